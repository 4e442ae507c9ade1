# The operator's kit: alerting rules (systemd/vcpuplace.rules.yml, unit
# tests in vcpuplace.rules.test.yml) and the Grafana dashboard
# (grafana/vcpuplace.json).  check-alerts runs promtool check rules and
# promtool test rules, checks the dashboard's JSON, and checks every
# metric name of every alert and panel against a live daemon's `metrics`
# answer (a dry run on libvirt's test driver, as check-socket starts
# them; promtool unpacked from Debian's prometheus package into
# $(B)/tools).  Under a minute.
.PHONY: check-alerts
check-alerts: $(B)/vcpuplaced
	python3 tests/alerts/run.py $(B)

# Integration tests: vcpuplaced against libvirt and tiny TCG QEMU guests
# (tests/integration/run.py).  Included by the top-level Makefile, which
# defines B and the $(B)/vcpuplaced rule.  Needs root; about 3-6 minutes.
.PHONY: check-integration
check-integration: $(B)/vcpuplaced
	sh tests/deps/install.sh integration
	python3 tests/integration/run.py $(B)/vcpuplaced

# tests/check.mk: every check, in one place, included last by the
# Makefile (after the module make files whose variables the rules name as
# prerequisites: MAN_PAGES from man/man.mk, SB and SCX_DAEMON from
# daemon/scx/scx.mk).  The module files keep what builds the things a
# check runs (the simulator, the fuzz targets, the BPF programs, the
# package) and the by-hand targets beside them (scx-test, kvm-test,
# fuzz, soak, bench).
#
# Each rule below says what it checks and what it needs beyond the build.
# "Packages" means its group of tools/deps/packages.list, which the rule
# (or `make deps`) installs if missing: that one step needs root and the
# network, and does nothing when they are there.  "libvirtd" means the
# host's real daemon (started if stopped); libvirt's test driver, which
# most suites use, needs neither libvirtd nor QEMU.
#
# `make check` installs the packages (deps), starts the sched_ext test
# kernel's build in the background (scx-kernel-bg, daemon/scx/scx.mk),
# builds everything once (`make -j check` builds in parallel), then runs
# CHECKS one after the other in this order: they share libvirtd, the
# socket tests' timeouts and two CPUs.  Everything after deps runs in a
# second make, which computes the pkg-config flags from the packages deps
# has just installed.

.PHONY: check check-build check-deps check-layering check-unit check-asan \
	check-man check-docs check-cli check-trust check-socket check-alerts \
	check-systemd check-deb check-systemd-boot check-deb-trixie \
	check-systemd-boot-trixie check-valgrind kvm-check check-sim \
	check-integration check-scx scx-test-deb check-fuzz check-soak \
	check-fresh

CHECKS := check-deps check-layering check-unit check-asan check-man check-docs \
	check-cli check-trust \
	check-socket check-alerts check-systemd check-deb check-systemd-boot \
	check-deb-trixie check-systemd-boot-trixie \
	check-valgrind kvm-check check-sim \
	check-integration check-scx scx-test-deb check-fuzz check-soak
check: deps
	$(MAKE) scx-kernel-bg
	$(MAKE) check-build
	$(MAKE) -j1 $(CHECKS)

check-build: all $(B)/asan/test-unit $(B)/asan/vcpuplaced \
		$(B)/asan/vcpuplacectl $(B)/vcpuplace-sim

# Every program the build and the tests run comes from a package that
# tools/deps/packages.list installs (or a required one): a tool the
# machine's image happens to carry would pass here and fail on a fresh
# host.  A few seconds; also shown to fail with tmux dropped.  Needs
# python3 and dpkg's database only.
check-deps:
	sh tools/deps/check.sh

# The layers as the linker sees them: the core pure (libc only, no I/O),
# adapters that neither log nor reach up, main.o imported by nothing, no
# circle among the service's files, libvirt referenced by its adapter
# alone; and each service header compiling on its own.  Needs the build
# (nm, tsort).  Then the call-graph walk's counter (tools/callwalk.py,
# `make walk`) on a tiny tree whose counts are known: a second; needs gcc.
check-layering: $(B)/libvpcore.a $(B)/libvpservice.a $(B)/libvphost.a \
		$(B)/vcpuplacectl $(B)/vcpuplaced | $(B)/gen/vp_paths.h
	sh tools/layering.sh $(B)
	@# each service header stands alone: it includes what it names
	@for h in daemon/vcpuplaced/*.h; do \
		printf '#include "vcpuplaced/%s"\n' "$${h##*/}" | \
		$(CC) $(ALL_CFLAGS) -x c -fsyntax-only - || \
		{ echo "layering: $$h does not compile on its own" >&2; \
		exit 1; }; done
	@echo "layering: $$(ls daemon/vcpuplaced/*.h | wc -l) service headers" \
		"compile on their own: PASS"
	sh tools/test_callwalk.sh

# The unit tests (Check), on the real topologies, which they find
# through VP_TOPOLOGY_DIR; then the same tests built with ASan+UBSan.
# Need the build only: no root, no libvirtd (the package's build runs
# check-unit too, debian/rules).
check-unit: $(B)/test-unit
	VP_TOPOLOGY_DIR=tests/topologies $(B)/test-unit

check-asan: $(B)/asan/test-unit
	VP_TOPOLOGY_DIR=tests/topologies \
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		$(B)/asan/test-unit

# The man pages: lint them, hold them to the binaries' options, and run
# their examples (tests/man/check.sh, on libvirt's test driver).  Needs
# packages (man).
check-man: $(MAN_PAGES) $(B)/vcpuplaced $(B)/vcpuplacectl
	sh tools/deps/install.sh man
	sh tests/man/check.sh $(B) $(POLICY_DIR_INSTALLED) $(SYSCONFDIR)

# The README stays a front door (< 150 lines) and no document links to
# a file that is not there (tests/docs/links.sh).  Needs nothing.
check-docs:
	sh tests/docs/links.sh

# The CLI without a daemon: topology and plan on every shipped topology
# (against hwloc-calc and a plan's invariants), policy commands, options,
# fleet planning, and status's table from canned answers (a socket that
# python3 serves, tests/cli/canned_daemon.py).  Needs the build only.
check-cli: $(B)/vcpuplacectl
	sh tests/cli/run.sh $(B)/vcpuplacectl
	sh tests/cli/policy.sh $(B)/vcpuplacectl
	sh tests/cli/options.sh $(B)/vcpuplacectl
	sh tests/cli/fleet.sh $(B)/vcpuplacectl
	sh tests/cli/status.sh $(B)/vcpuplacectl

# The trust boundary end to end: a VM's own metadata cannot take other
# VMs' CPUs (a dry run on libvirt's test driver, a 16-PU model that
# lstopo restricts a shipped topology to).  No libvirtd.
check-trust: $(B)/vcpuplaced
	python3 tests/trust/run.py $(B)

# The control socket's protocol, robustness and the CLI views, against
# daemons on libvirt's test driver (no VMs needed), then again with the
# daemon and CLI built with ASan+UBSan; promtool parses the metrics
# (unpacked from Debian's prometheus package into $(B)/tools: the network
# the first time).  Needs root (the permission tests switch to uid
# 65534) and packages (socket); no libvirtd.
check-socket: $(B)/vcpuplaced $(B)/vcpuplacectl $(B)/asan/vcpuplaced \
		$(B)/asan/vcpuplacectl
	sh tools/deps/install.sh socket
	python3 tests/socket/run.py $(B)
	@echo "socket tests again, daemon and CLI built with ASan+UBSan:"
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		python3 tests/socket/run.py $(B)/asan

# The operator's kit: alerting rules (systemd/vcpuplace.rules.yml, unit
# tests in vcpuplace.rules.test.yml) and the Grafana dashboard
# (grafana/vcpuplace.json).  Runs promtool check rules and promtool test
# rules, checks the dashboard's JSON, and checks every metric name of
# every alert and panel against a live daemon's `metrics` answer (a dry
# run on libvirt's test driver, as check-socket starts them; promtool
# unpacked from Debian's prometheus package into $(B)/tools, the network
# the first time).  Under a minute; no libvirtd.
check-alerts: $(B)/vcpuplaced
	python3 tests/alerts/run.py $(B)

# The unit as `make install` writes it, checked by systemd-analyze verify
# (which also fails on a missing ExecStart binary) and with no warning.
# ExecReload= runs kill(1), from procps: present on every standard
# Debian install (priority important), not in a minimal root.  Needs
# packages (systemd).
check-systemd: $(B)/vcpuplacectl $(B)/vcpuplaced
	sh tools/deps/install.sh systemd
	sh tests/systemd/verify.sh

# The Debian package (pkg/deb.mk): make deb, then tests/deb/check.sh: the
# package's files against what `make install` writes, conffiles,
# maintainer scripts, hardening, and a broken copy that must fail.
# check-deb-trixie does the same for Debian 13, inside a cached
# debootstrap root of trixie (pkg/build-root.sh).  Need root and the
# network (the Build-Depends; trixie's root the first time).
check-deb: deb
	sh tests/deb/check.sh $(B)/deb

# check.sh runs in the root too: make, readelf and the version of
# debian/rules' VP_MAKE that trixie's make expands
check-deb-trixie: deb-trixie
	sh pkg/in-root.sh "$$(sh pkg/build-root.sh trixie)" $(B)/deb-trixie \
		sh src/tests/deb/check.sh /build

# The package under a real systemd: a root of this host's release
# (debootstrap, cached in /var/cache/vcpuplace) booted with
# systemd-nspawn, the .deb installed in it with apt, libvirtd and a TCG
# guest inside (tests/systemd/boot.py).  About 2 minutes, 1 more to build
# the root.  check-systemd-boot-trixie does the same with the package
# built in Debian 13 (deb-trixie) on a trixie root: systemd 257, libvirt
# 11.3, QEMU 10.0.  Need root and the network (the roots); the libvirtd
# is the root's own, not the host's.
check-systemd-boot: deb
	sh tools/deps/install.sh systemd-boot integration
	sh tests/integration/guest/build.sh $(B)/integration-guest
	python3 tests/systemd/boot.py "$$(sh tests/systemd/boot-root.sh)" \
		$(B)/vcpuplace_$(VERSION)_$$(dpkg --print-architecture).deb \
		$(B)/integration-guest

check-systemd-boot-trixie: deb-trixie
	sh tools/deps/install.sh systemd-boot integration
	sh tests/integration/guest/build.sh $(B)/integration-guest
	python3 tests/systemd/boot.py "$$(sh tests/systemd/boot-root.sh trixie)" \
		$(B)/trixie/vcpuplace_$(VERSION)_$$(dpkg --print-architecture).deb \
		$(B)/integration-guest

# The daemon under valgrind against the test driver (20 VMs, dry run):
# no invalid access, nothing definitely lost.  Needs packages
# (valgrind); no libvirtd.
check-valgrind: $(B)/vcpuplaced
	sh tests/valgrind.sh $(B)/vcpuplaced

# The kernel series (kvm-patches/check): extracts Debian's
# linux-source-6.12, runs checkpatch --strict, compiles the objects the
# patch touches in a tiny config and in Debian's own, with no warning,
# and links the tiny kernel whole (about 15 minutes the first time on 2
# CPUs, cached in kvm-patches/build/ after that).  Needs packages
# (kernel-check: root and the network the first time).  The boot test,
# by hand, is kvm-test (kvm-patches/kvm.mk).
kvm-check:
	kvm-patches/check

# The simulator (bench/bench.mk): the sweep's arithmetic, the wake and
# balance rules on hand-built states, and a few seconds of invariants
# (tests/sim/).  Needs the build only.
check-sim: $(B)/vcpuplace-sim $(B)/test-sim $(B)/sim-rules
	$(B)/test-sim
	$(B)/sim-rules tests/topologies/g4dnmetal.xml \
	    tests/topologies/Intel-RaptorLake-Corei7-1370P.xml
	sh tests/sim/run.sh $(B)/vcpuplace-sim tests/topologies
	sh tests/sim/costs.sh $(B)/vcpuplace-sim tests/topologies
	sh tests/sim/hosttasks.sh $(B)/vcpuplace-sim tests/topologies
	sh tests/sim/stock.sh $(B)/vcpuplace-sim tests/topologies
	sh tests/sim/numbering.sh $(B)/vcpuplace-sim tests/topologies
	sh tests/sim/classes.sh $(B)/vcpuplace-sim tests/topologies
	sh tests/sim/schbench.sh $(B)/vcpuplace-sim tests/topologies

# vcpuplaced against libvirt and tiny TCG QEMU guests
# (tests/integration/run.py).  Needs root, libvirtd and packages
# (integration); about 3-6 minutes.
check-integration: $(B)/vcpuplaced $(B)/vcpuplacectl $(B)/rename_thread
	sh tools/deps/install.sh integration
	python3 tests/integration/run.py $(B)/vcpuplaced

# The sched_ext scheduler (daemon/scx/scx.mk): the 6.12 test kernel
# (cached outside the clone: built once per machine, then found; `make
# check` starts its build early, scx-kernel-bg, and kernel.sh's lock makes
# this wait for it), then scx-test's boots under QEMU TCG.  scx-test-deb
# boots the package's own daemon (make deb, SCX=yes), unpacked from the
# .deb, on Debian's 7.3.4 kernel through the same daemon test: the
# binary apt installs loads the scheduler with --sched-ext=auto, and its
# status says kernel mode sched-ext; after check-deb, which has built the
# package in the same run.  Need root and the network (packages, the
# kernel sources, Debian's kernel); no libvirtd.
check-scx:
	$(SCX_KERNEL) all
	$(MAKE) scx-test

scx-test-deb: deb $(SB)/scx_smoke $(SB)/scx_fakevm
	$(SCX_DEBIAN_KERNEL) all
	rm -rf $(SB)/deb-root
	dpkg-deb -x $(B)/vcpuplace_$(VERSION)_$$(dpkg --print-architecture).deb \
		$(SB)/deb-root
	$(SB)/deb-root/usr/sbin/vcpuplaced --version
	VP_SCX_KERNEL=debian bash tests/scx/boot.sh $(SB)/boot-deb \
		$(SB)/scx_smoke -- $(SB)/deb-root/usr/sbin/vcpuplaced \
		$(SB)/deb-root/usr/bin/vcpuplacectl $(SB)/scx_fakevm

# Every fuzz target (tests/fuzz/fuzz.mk) over its corpus and regression
# inputs, then a short fuzz with a fixed seed.  clang and its libFuzzer
# runtime (packages: fuzz) are installed, if missing, before the build,
# so the build runs in a second make.  No root otherwise.
check-fuzz:
	sh tools/deps/install.sh fuzz
	$(MAKE) fuzz-build
	sh tests/fuzz/run.sh check $(B)/fuzz 0 $(FUZZ_TARGETS)

# The chaos soak (tests/soak/, soak.mk): 90 s of lifecycle actions and
# faults against the real libvirtd and TCG VMs, seed 13 (see README.md
# there), after the checker's own self-test.  Needs root, libvirtd and
# packages (integration).
CHECK_SOAK_SEED ?= 13
check-soak: $(B)/vcpuplaced $(B)/vcpuplacectl
	python3 tests/soak/selftest.py
	sh tools/deps/install.sh integration
	python3 tests/soak/soak.py --self-check --seconds 90 \
		--seed $(CHECK_SOAK_SEED) $(B)

# By hand, not in `make check`: the whole `make check` as a new user runs
# it, in a pristine debootstrap minbase root of SUITE (bookworm; trixie)
# entered through a private mount namespace and pivot_root, the clone
# under a 0700 /root.  About an hour with empty caches, 25 minutes with
# VP_FRESH_CACHE=host (tests/fresh/run.sh).  Needs root and the network.
SUITE ?= bookworm
check-fresh:
	sh tests/fresh/run.sh $(SUITE)

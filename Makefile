# vcpuplace: placement daemon, CLI, kernel series and simulator for KVM hosts.
#
#   make          build the binaries into build/
#   make check    install missing Debian packages, then run every test
#   make demo     tiny QEMU VMs under libvirt, placed by the daemon
#   make install  DESTDIR= PREFIX=/usr/local
#
# Everything builds out of tree into $(B); `make check` builds a second
# copy with ASan+UBSan into $(B)/asan and runs the unit tests there too.

PREFIX ?= /usr/local
DESTDIR ?=
B ?= build

CC ?= cc
PKGS := hwloc json-c check libxml-2.0 libvirt libsystemd
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow \
	-Wstrict-prototypes -Wmissing-prototypes -Idaemon $(PKG_CFLAGS)
CFLAGS += -DVP_POLICY_DIR='"$(POLICY_DIR_INSTALLED)"'
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all

LIB_HWLOC := $(shell pkg-config --libs hwloc 2>/dev/null)
LIB_JSON := $(shell pkg-config --libs json-c 2>/dev/null)
LIB_CHECK := $(shell pkg-config --libs check 2>/dev/null)
LIB_XML := $(shell pkg-config --libs libxml-2.0 2>/dev/null)
LIB_VIRT := $(shell pkg-config --libs libvirt 2>/dev/null)
LIB_SYSTEMD := $(shell pkg-config --libs libsystemd 2>/dev/null)
LIB_CURSES := $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw)
ETCDIR ?= $(PREFIX)/etc
# where vcpuplaced and vcpuplacectl look for profiles when installed
POLICY_DIR_INSTALLED := $(ETCDIR)/vcpuplace/policies

# The placement core: pure C, no I/O (see daemon/vcpuplace.h).
CORE_SRCS := $(addprefix daemon/,features.c cpuset.c topo.c cpulist.c \
	idlemask.c policy.c prio.c trace.c scan.c place.c plan.c)
# Adapters shared by the daemon, the CLI, the tests and the benchmarks.
ADAPT_SRCS := daemon/hwtopo.c daemon/kvm_iface.c
POLICY_SRCS := daemon/policy_xml.c
CTL_SRCS := $(addprefix daemon/,vcpuplacectl.c ctl_topology.c ctl_plan.c \
	ctl_policy.c scenario.c ctl_sock.c ctl_status.c ctl_top.c)
# The daemon: the loop and its adapters around the core.
DAEMON_SRCS := $(addprefix daemon/,main.c virt.c sampler.c tick.c \
	actuate.c status.c metrics.c explain.c ctlsock.c ctlcmd.c reload.c \
	kvmhint.c)
UNIT_SRCS := $(sort $(wildcard tests/unit/*.c))

obj = $(patsubst %.c,$(1)/%.o,$(2))

.PHONY: all check check-unit check-asan check-cli check-socket \
	check-systemd deps install clean \
	bench-scan bench-daemon demo
all: $(B)/vcpuplacectl $(B)/vcpuplaced $(B)/test-unit $(B)/bench-scan

$(B)/%.o: %.c $(wildcard daemon/*.h tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/asan/%.o: %.c $(wildcard daemon/*.h tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -c -o $@ $<

$(B)/vcpuplacectl: $(call obj,$(B),$(CORE_SRCS) $(ADAPT_SRCS) $(POLICY_SRCS) \
		$(CTL_SRCS))
	$(CC) $(CFLAGS) -o $@ $^ $(LIB_HWLOC) $(LIB_JSON) $(LIB_XML) $(LIB_VIRT) \
		$(LIB_CURSES)

$(B)/vcpuplaced: $(call obj,$(B),$(CORE_SRCS) $(ADAPT_SRCS) $(POLICY_SRCS) \
		$(DAEMON_SRCS))
	$(CC) $(CFLAGS) -o $@ $^ $(LIB_HWLOC) $(LIB_JSON) $(LIB_XML) \
		$(LIB_VIRT) $(LIB_SYSTEMD) -lpthread

$(B)/test-unit: $(call obj,$(B),$(CORE_SRCS) $(ADAPT_SRCS) $(POLICY_SRCS) \
		$(UNIT_SRCS))
	$(CC) $(CFLAGS) -o $@ $^ $(LIB_HWLOC) $(LIB_CHECK) $(LIB_XML)

$(B)/asan/test-unit: $(call obj,$(B)/asan,$(CORE_SRCS) $(ADAPT_SRCS) \
		$(POLICY_SRCS) $(UNIT_SRCS))
	$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $^ $(LIB_HWLOC) $(LIB_CHECK) $(LIB_XML)

# The daemon and CLI with ASan+UBSan, for the socket tests' bad input.
$(B)/asan/vcpuplaced: $(call obj,$(B)/asan,$(CORE_SRCS) $(ADAPT_SRCS) \
		$(POLICY_SRCS) $(DAEMON_SRCS))
	$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $^ $(LIB_HWLOC) $(LIB_JSON) \
		$(LIB_XML) $(LIB_VIRT) $(LIB_SYSTEMD) -lpthread

$(B)/asan/vcpuplacectl: $(call obj,$(B)/asan,$(CORE_SRCS) $(ADAPT_SRCS) \
		$(POLICY_SRCS) $(CTL_SRCS))
	$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $^ $(LIB_HWLOC) $(LIB_JSON) \
		$(LIB_XML) $(LIB_VIRT) $(LIB_CURSES)

$(B)/bench-scan: $(call obj,$(B),$(CORE_SRCS) $(ADAPT_SRCS) bench/scan_bench.c)
	$(CC) $(CFLAGS) -o $@ $^ $(LIB_HWLOC)

# Installs the Debian packages the build and the tests need, only those
# that are missing, so a second run does nothing.
deps:
	@sh tests/deps.sh

# kvm-check extracts Debian's linux-source-6.12, applies the series and
# compiles the objects each patch touches (about 6 minutes the first time,
# cached in kvm-patches/build/ after that).
check: deps
	$(MAKE) check-unit check-asan check-cli check-socket check-systemd \
		check-valgrind kvm-check check-sim check-integration

# Unit tests find the topologies through VP_TOPOLOGY_DIR.
check-unit: $(B)/test-unit
	VP_TOPOLOGY_DIR=tests/topologies $(B)/test-unit

check-asan: $(B)/asan/test-unit
	VP_TOPOLOGY_DIR=tests/topologies \
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		$(B)/asan/test-unit

# The daemon under valgrind against the test driver (20 VMs, dry run):
# no invalid access, nothing definitely lost.
check-valgrind: $(B)/vcpuplaced
	sh tests/valgrind.sh $(B)/vcpuplaced

# The control socket's protocol, robustness and the CLI views, against
# daemons on libvirt's test driver (no VMs needed); promtool parses the
# metrics (unpacked from Debian's prometheus package into $(B)/tools).
check-socket: $(B)/vcpuplaced $(B)/vcpuplacectl $(B)/asan/vcpuplaced \
		$(B)/asan/vcpuplacectl
	sh tests/deps.sh tmux systemd
	python3 tests/socket/run.py $(B)
	@echo "socket tests again, daemon and CLI built with ASan+UBSan:"
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		python3 tests/socket/run.py $(B)/asan

check-cli: $(B)/vcpuplacectl
	sh tests/cli/run.sh $(B)/vcpuplacectl
	sh tests/cli/policy.sh $(B)/vcpuplacectl

bench-daemon: $(B)/vcpuplaced
	sh bench/daemon_bench.sh $(B)/vcpuplaced 60 200 4

bench-scan: $(B)/bench-scan
	$(B)/bench-scan tests/topologies

# Three tiny TCG VMs under libvirt with the latency, dedicated and
# balanced profiles; vcpuplaced places them; a live view for 20 s.
demo: deps $(B)/vcpuplaced $(B)/vcpuplacectl
	sh tests/integration/deps.sh
	python3 tests/integration/demo.py $(B)/vcpuplaced 20

include kvm-patches/kvm.mk
include bench/bench.mk
include tests/integration/integration.mk

# systemd looks in /usr/local/lib/... too, so these follow PREFIX.
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
DOCDIR ?= $(PREFIX)/share/doc/vcpuplace

install: $(B)/vcpuplacectl $(B)/vcpuplaced
	install -d $(DESTDIR)$(PREFIX)/bin
	install -d $(DESTDIR)$(PREFIX)/sbin
	install -m 0755 $(B)/vcpuplacectl $(DESTDIR)$(PREFIX)/bin/
	install -m 0755 $(B)/vcpuplaced $(DESTDIR)$(PREFIX)/sbin/
	install -d $(DESTDIR)$(POLICY_DIR_INSTALLED)
	install -m 0644 policies/*.xml policies/policy.rng \
		$(DESTDIR)$(POLICY_DIR_INSTALLED)/
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) \
		$(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(DOCDIR)
	sed -e 's|@SBINDIR@|$(PREFIX)/sbin|g' -e 's|@ETCDIR@|$(ETCDIR)|g' \
		-e 's|@DOCDIR@|$(DOCDIR)|g' systemd/vcpuplaced.service.in \
		> $(DESTDIR)$(UNITDIR)/vcpuplaced.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/vcpuplaced.service
	install -m 0644 systemd/vcpuplace.sysusers \
		$(DESTDIR)$(SYSUSERSDIR)/vcpuplace.conf
	install -m 0644 systemd/vcpuplace.tmpfiles \
		$(DESTDIR)$(TMPFILESDIR)/vcpuplace.conf
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/

# The unit as `make install` writes it, checked by systemd-analyze verify
# (which also fails on a missing ExecStart binary) and with no warning.
check-systemd: $(B)/vcpuplacectl $(B)/vcpuplaced
	sh tests/systemd/verify.sh

clean:
	rm -rf $(B)

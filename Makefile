# vcpuplace: placement daemon, CLI, kernel series and simulator for KVM hosts.
#
#   make            build the binaries into build/ (needs the -dev packages:
#                   `make deps` installs them)
#   make check      install missing Debian packages, then run every test
#                   (each check is a rule in tests/check.mk)
#   make demo       tiny QEMU VMs under libvirt, placed by the daemon
#   make install    DESTDIR= PREFIX=/usr/local SYSCONFDIR=$(PREFIX)/etc
#                   MANDIR=$(PREFIX)/share/man
#   make uninstall  the same variables, removes what install wrote
#   make scx-test   the sched_ext scheduler booted under QEMU (daemon/scx/)
#   make SCX=yes    the daemon with the sched_ext scheduler in it, as
#                   `make all` builds and `make install` installs it (the
#                   package's build): needs clang-19, libbpf-dev >= 1.4 and
#                   bpftool >= 7.5 (daemon/scx/scx.mk); SCX=no (default)
#                   builds the daemon without it, which needs neither
#
# GNU conventions: CFLAGS, CPPFLAGS, LDFLAGS and LDLIBS are the user's and
# are honoured; the project's own flags live in VP_CFLAGS.  WERROR=
# (empty) turns -Werror off; `make check` and CI keep it on.
#
# Everything builds out of tree into $(B); `make check` builds a second
# copy with ASan+UBSan into $(B)/asan and runs the unit tests there too.

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
# /usr is the distribution's prefix, and its configuration lives in /etc
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
RUNSTATEDIR ?= /run
DOCDIR ?= $(PREFIX)/share/doc/vcpuplace
# the Prometheus rules and the Grafana dashboard, for the admin to copy
DATADIR ?= $(PREFIX)/share/vcpuplace
# systemd looks in /usr/local/lib/... too, so these follow PREFIX.
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
# where vcpuplaced and vcpuplacectl look for profiles when installed
POLICY_DIR_INSTALLED = $(SYSCONFDIR)/vcpuplace/policies

B ?= build
CC ?= cc
CFLAGS ?= -O2 -g
WERROR ?= -Werror

# pkg-config runs when a recipe first needs the flags, not when this file
# is parsed: on a fresh machine `make check` and `make demo` install the
# packages (deps) before anything compiles.  Each query runs once.
PKGS := hwloc json-c check libxml-2.0 libvirt libsystemd ncursesw libcap-ng libseccomp
pkg = $(call pkg_ok,$(shell pkg-config $(1) $(2) 2>/dev/null || \
	echo VP_PKG_MISSING),$(2))
pkg_ok = $(if $(filter VP_PKG_MISSING,$(1)),$(error pkg-config $(2): not \
	found; run `make deps DEPS=build` (as root) first),$(1))
PKG_CFLAGS = $(eval PKG_CFLAGS := $(call pkg,--cflags,$(PKGS)))$(PKG_CFLAGS)
LIB_HWLOC = $(eval LIB_HWLOC := $(call pkg,--libs,hwloc))$(LIB_HWLOC)
LIB_JSON = $(eval LIB_JSON := $(call pkg,--libs,json-c))$(LIB_JSON)
LIB_CHECK = $(eval LIB_CHECK := $(call pkg,--libs,check))$(LIB_CHECK)
LIB_XML = $(eval LIB_XML := $(call pkg,--libs,libxml-2.0))$(LIB_XML)
LIB_VIRT = $(eval LIB_VIRT := $(call pkg,--libs,libvirt))$(LIB_VIRT)
LIB_SYSTEMD = $(eval LIB_SYSTEMD := $(call pkg,--libs,libsystemd))$(LIB_SYSTEMD)
LIB_CURSES = $(eval LIB_CURSES := $(call pkg,--libs,ncursesw))$(LIB_CURSES)
LIB_PRIVS = $(eval LIB_PRIVS := $(call pkg,--libs,libcap-ng libseccomp))$(LIB_PRIVS)

VP_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra $(WERROR) -Wshadow \
	-Wstrict-prototypes -Wmissing-prototypes -Idaemon -I$(B)/gen
ALL_CFLAGS = $(VP_CFLAGS) $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS)
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all

# The file list is the architecture: each folder is one layer, and its
# sources are whatever the folder holds.
#   core/          the placement core: pure C, libc only (check-layering)
#   host/          adapters: hwloc, libvirt, /proc, sched/features, XML, log,
#                  clock
#   scx/           sched_ext in one place: the BPF scheduler (scx.mk), its
#                  loader, and its adapter (scx.c, scxfeed.c: host's layer)
#   vcpuplaced/    the service; main.c is linked only into the daemon
#   vcpuplacectl/  the CLI
CORE_SRCS := $(sort $(wildcard daemon/core/*.c))
# sched_ext's adapter lives beside its BPF program: daemon/scx/'s userspace
# files, but for the loader that only the scheduler's build has (scx.mk)
SCX_USER_SRCS := daemon/scx/scx.c daemon/scx/scx_stub.c daemon/scx/scxfeed.c
HOST_SRCS := $(sort $(wildcard daemon/host/*.c)) $(SCX_USER_SRCS)
SERVICE_SRCS := $(filter-out daemon/vcpuplaced/main.c,\
	$(sort $(wildcard daemon/vcpuplaced/*.c)))
CTL_SRCS := $(sort $(wildcard daemon/vcpuplacectl/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/*.c tests/unit/*/*.c))

obj = $(patsubst %.c,$(1)/%.o,$(2))
LIBS_ALL = $(LIB_HWLOC) $(LIB_JSON) $(LIB_XML) $(LIB_VIRT) $(LIB_SYSTEMD) \
	$(LIB_PRIVS)

.PHONY: all deps install uninstall clean bench-scan bench-daemon demo \
	demo-run walk
# The daemon `make install` installs: with the BPF scheduler (SCX=yes,
# built by daemon/scx/scx.mk into $(B)/scx/) or without.
SCX ?= no
ifeq ($(SCX),yes)
VP_DAEMON = $(B)/scx/vcpuplaced
else ifeq ($(SCX),no)
VP_DAEMON = $(B)/vcpuplaced
else
$(error SCX=$(SCX): want yes or no)
endif
all: $(B)/vcpuplacectl $(B)/vcpuplaced $(B)/test-unit $(B)/bench-scan \
	$(VP_DAEMON)

# Install paths compiled into the binaries.  The header is rewritten only
# when a path changes, so `make; make PREFIX=/usr install` rebuilds what
# uses it (found through -MMD) and nothing else.
# The version is the package's: the first line of debian/changelog.
VERSION := $(shell sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)
PATHS_H = \#define VP_SYSCONFDIR "$(SYSCONFDIR)"\n\#define VP_RUNSTATEDIR \
	"$(RUNSTATEDIR)"\n\#define VP_POLICY_DIR_INSTALLED \
	"$(POLICY_DIR_INSTALLED)"\n\#define VP_VERSION "$(VERSION)"
$(B)/gen/vp_paths.h: FORCE
	@mkdir -p $(dir $@)
	@printf '/* generated by the Makefile */\n$(PATHS_H)\n' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
FORCE:

# Objects depend on the headers they include (-MMD -MP) and, through
# order only, on the generated header existing before the first compile.
$(B)/%.o: %.c | $(B)/gen/vp_paths.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/asan/%.o: %.c | $(B)/gen/vp_paths.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -MMD -MP -c -o $@ $<

# One archive a layer: the linker takes only the objects a binary uses.
define archive
$(1)/libvpcore.a: $(call obj,$(1),$(CORE_SRCS))
	rm -f $$@ && $(AR) rcs $$@ $$^
$(1)/libvphost.a: $(call obj,$(1),$(HOST_SRCS))
	rm -f $$@ && $(AR) rcs $$@ $$^
$(1)/libvpservice.a: $(call obj,$(1),$(SERVICE_SRCS))
	rm -f $$@ && $(AR) rcs $$@ $$^
endef
$(eval $(call archive,$(B)))
$(eval $(call archive,$(B)/asan))

LINK = $(CC) $(CFLAGS) $(LDFLAGS) -o $@
$(B)/vcpuplacectl: $(call obj,$(B),$(CTL_SRCS)) $(B)/libvphost.a \
		$(B)/libvpcore.a
	$(LINK) $^ $(LIB_HWLOC) $(LIB_JSON) $(LIB_XML) $(LIB_VIRT) \
		$(LIB_PRIVS) $(LIB_CURSES) $(LDLIBS)

$(B)/vcpuplaced: $(B)/daemon/vcpuplaced/main.o $(B)/libvpservice.a \
		$(B)/libvphost.a $(B)/libvpcore.a
	$(LINK) $^ $(LIBS_ALL) -lpthread $(LDLIBS)

$(B)/test-unit: $(call obj,$(B),$(UNIT_SRCS)) $(B)/libvpservice.a \
		$(B)/libvphost.a $(B)/libvpcore.a
	$(LINK) $^ $(LIBS_ALL) $(LIB_CHECK) -lpthread $(LDLIBS)

$(B)/asan/test-unit: $(call obj,$(B)/asan,$(UNIT_SRCS)) \
		$(B)/asan/libvpservice.a $(B)/asan/libvphost.a \
		$(B)/asan/libvpcore.a
	$(LINK) $(SAN_FLAGS) $^ $(LIBS_ALL) $(LIB_CHECK) -lpthread $(LDLIBS)

# The daemon and CLI with ASan+UBSan, for the socket tests' bad input.
$(B)/asan/vcpuplaced: $(B)/asan/daemon/vcpuplaced/main.o \
		$(B)/asan/libvpservice.a $(B)/asan/libvphost.a \
		$(B)/asan/libvpcore.a
	$(LINK) $(SAN_FLAGS) $^ $(LIBS_ALL) -lpthread $(LDLIBS)

$(B)/asan/vcpuplacectl: $(call obj,$(B)/asan,$(CTL_SRCS)) \
		$(B)/asan/libvphost.a $(B)/asan/libvpcore.a
	$(LINK) $(SAN_FLAGS) $^ $(LIB_HWLOC) $(LIB_JSON) $(LIB_XML) \
		$(LIB_VIRT) $(LIB_PRIVS) $(LIB_CURSES) $(LDLIBS)

$(B)/bench-scan: $(B)/bench/scan_bench.o $(B)/libvphost.a $(B)/libvpcore.a
	$(LINK) $^ $(LIB_HWLOC) $(LDLIBS)

# Installs the Debian packages the build and the tests need, only those
# that are missing, so a second run does nothing.  They are all named in
# tools/deps/packages.list; DEPS=build installs only what `make` needs.
DEPS ?=
deps:
	@sh tools/deps/install.sh $(DEPS)

bench-daemon: $(B)/vcpuplaced
	sh bench/daemon_bench.sh $(B)/vcpuplaced 60 200 4

bench-scan: $(B)/bench-scan
	$(B)/bench-scan tests/topologies

# The daemon's static call graph walked from the loop's rounds and the
# libvirt worker's thread, counted by layer (tools/callwalk.py,
# doc/libvirt-worker.md "The walk, counted").  A copy of the daemon's
# objects at -O0 with -fcallgraph-info (GCC) in $(WALK): nothing inlined
# away, every call an edge; the build's own flags stay as they are.  Not
# part of `make check`.
WALK = $(B)/walk
WALK_SRCS = $(CORE_SRCS) $(HOST_SRCS) $(SERVICE_SRCS) \
	daemon/vcpuplaced/main.c
WALK_ROOTS = tick event_round answers_round worker_main
# GCC's option, whatever CC is
WALK_CC ?= gcc
$(WALK)/%.o: %.c | $(B)/gen/vp_paths.h
	@mkdir -p $(dir $@)
	$(WALK_CC) $(VP_CFLAGS) $(PKG_CFLAGS) $(CPPFLAGS) -O0 -fcallgraph-info \
		-MMD -MP -c -o $@ $<

walk: $(call obj,$(WALK),$(WALK_SRCS))
	python3 tools/callwalk.py $(WALK) $(addprefix -r ,$(WALK_ROOTS)) \
		--path tick virDomainPinVcpuFlags \
		--path tick libvirt_apply sendmsg \
		--path worker_main virDomainPinVcpuFlags

# Three tiny TCG VMs under libvirt with the latency, dedicated and
# balanced profiles; vcpuplaced places them; a live view for 20 s.  The
# packages come first, then a second make builds with their flags.
demo:
	@sh tools/deps/install.sh build integration
	$(MAKE) demo-run

demo-run: $(B)/vcpuplaced $(B)/vcpuplacectl
	python3 tests/integration/demo.py $(B)/vcpuplaced 20

# The modules' own make files, then every check (tests/check.mk), last:
# its rules name the modules' variables as prerequisites.
include kvm-patches/kvm.mk
include daemon/scx/scx.mk
include bench/bench.mk
include tests/integration/integration.mk
include tests/fuzz/fuzz.mk
include tests/soak/soak.mk
include man/man.mk
# `make deb` and `make deb-trixie`: the Debian package (debian/)
include pkg/deb.mk
include tests/check.mk

# The host options the unit reads (EnvironmentFile=): a commented template,
# written only where none exists, so a reinstall keeps the admin's.
DEFAULTS = $(SYSCONFDIR)/default/vcpuplaced
INSTALLED = $(BINDIR)/vcpuplacectl $(SBINDIR)/vcpuplaced \
	$(UNITDIR)/vcpuplaced.service $(SYSUSERSDIR)/vcpuplace.conf \
	$(TMPFILESDIR)/vcpuplace.conf $(DOCDIR)/README.md \
	$(addprefix $(DOCDIR)/doc/,$(notdir $(wildcard doc/*.md))) \
	$(addprefix $(POLICY_DIR_INSTALLED)/,$(notdir $(wildcard \
	policies/*.xml)) policy.rng) $(MAN_INSTALLED) \
	$(DATADIR)/vcpuplace.rules.yml $(DATADIR)/vcpuplace-grafana.json

install: $(B)/vcpuplacectl $(VP_DAEMON)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR)
	install -m 0755 $(B)/vcpuplacectl $(DESTDIR)$(BINDIR)/
	install -m 0755 $(VP_DAEMON) $(DESTDIR)$(SBINDIR)/vcpuplaced
	install -d $(DESTDIR)$(POLICY_DIR_INSTALLED)
	install -m 0644 policies/*.xml policies/policy.rng \
		$(DESTDIR)$(POLICY_DIR_INSTALLED)/
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) \
		$(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(DOCDIR)
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@ETCDIR@|$(SYSCONFDIR)|g' \
		-e 's|@DOCDIR@|$(DOCDIR)|g' systemd/vcpuplaced.service.in \
		> $(DESTDIR)$(UNITDIR)/vcpuplaced.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/vcpuplaced.service
	install -m 0644 systemd/vcpuplace.sysusers \
		$(DESTDIR)$(SYSUSERSDIR)/vcpuplace.conf
	install -m 0644 systemd/vcpuplace.tmpfiles \
		$(DESTDIR)$(TMPFILESDIR)/vcpuplace.conf
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/
	install -d $(DESTDIR)$(DOCDIR)/doc
	install -m 0644 doc/*.md $(DESTDIR)$(DOCDIR)/doc/
	install -d $(DESTDIR)$(SYSCONFDIR)/default
	test -e $(DESTDIR)$(DEFAULTS) || \
		install -m 0644 systemd/vcpuplaced.default $(DESTDIR)$(DEFAULTS)
	install -d $(DESTDIR)$(DATADIR)
	install -m 0644 systemd/vcpuplace.rules.yml $(DESTDIR)$(DATADIR)/
	install -m 0644 grafana/vcpuplace.json \
		$(DESTDIR)$(DATADIR)/vcpuplace-grafana.json

# Removes the files install wrote, then the folders it made if empty;
# the host options file only if nobody edited it.
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	! cmp -s systemd/vcpuplaced.default $(DESTDIR)$(DEFAULTS) || \
		rm -f $(DESTDIR)$(DEFAULTS)
	-rmdir $(DESTDIR)$(POLICY_DIR_INSTALLED) \
		$(DESTDIR)$(SYSCONFDIR)/vcpuplace $(DESTDIR)$(DOCDIR)/doc \
		$(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(DATADIR) 2>/dev/null

clean:
	rm -rf $(B)

# Not $(B)/deb: `make deb`'s copy of the tree has its own build there (and
# folders such as usr/lib/tmpfiles.d that are no dependency files).
-include $(shell find $(B) -path $(B)/deb -prune -o -type f -name '*.d' \
	-print 2>/dev/null)

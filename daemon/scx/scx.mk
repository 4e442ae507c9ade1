# daemon/scx/scx.mk: the sched_ext scheduler's build and boot test,
# included by the top-level Makefile.  Paths are relative to the root.
#
#   make scx-bpf        the BPF object, its skeleton, the static test
#                       programs and the daemon with the real loader, into
#                       $(B)/scx/, from Debian packages alone (group scx of
#                       tools/deps/packages.list: clang-19, libbpf-dev 1.4
#                       and bpftool 7.5, from bookworm-backports on Debian
#                       12) and the headers committed under
#                       daemon/scx/include/: no kernel build
#   make scx-kernel     the 6.12 test kernel the boot test runs on
#                       (linux-source-6.12, allnoconfig +
#                       daemon/scx/config.fragment), cached in
#                       $(SCX_CACHE)/<key>/ (tests/scx/kernel.sh): ~18 min
#                       with -j2 at nice 19 on a loaded 2-CPU machine the
#                       first time, nothing after
#   make scx-debian-kernel  Debian's prebuilt 7.3.4 kernel from
#                       trixie-backports, fetched with a private apt state
#                       into its cache (tests/scx/debian-kernel.sh)
#   make scx-test       boot both under QEMU TCG, one after the other, and
#                       run the smoke, safety, ping-pong, nested-KVM and
#                       daemon tests on each (tests/scx/boot.sh), then the
#                       isolcpus= boot of Debian's kernel; every
#                       verdict and figure is printed with the kernel's
#                       release; VP_QEMU_SMP sets the guest topology
#   make scx-test-isolcpus  Debian's kernel booted with isolcpus=domain,2-3:
#                       the daemon must say sched-ext unavailable (cause
#                       isolcpus) before loading, and the kernel must refuse
#                       scx_smoke (tests/scx/isolcpus.sh); scx-test runs it
#                       too
#   make scx-test-deb   the package's daemon (make deb, SCX=yes) booted on
#                       Debian's 7.3.4 with the daemon test: it loads the
#                       scheduler with --sched-ext=auto
#   make scx-vmlinux-h  regenerate the committed daemon/scx/include/x86/
#                       vmlinux.h from the Debian kernel's BTF
#
# `all` builds the daemon with the scheduler only with SCX=yes (the
# package's build); `make check` runs check-scx and scx-test-deb, whose
# rules are in tests/check.mk with every check.  The
# normal build links daemon/scx/scx_stub.c in place of the loader.
# See daemon/scx/README.md.

.PHONY: scx-kernel scx-debian-kernel scx-vmlinux-h scx-bpf scx-test \
	scx-test-isolcpus install-scx

SCX_CACHE ?= $(or $(VP_SCX_CACHE),/var/cache/vcpuplace/scx-kernel)
# kernel.sh and boot.sh both read it from the environment: one cache for
# the build and the boot, whichever of the two names set it
export VP_SCX_CACHE := $(SCX_CACHE)
# Debian 12 has clang 14 by default and clang-19 as a package; 19 is what
# the scheduler was built and run with here (see README.md)
SCX_CLANG ?= clang-19
# bpftool 7.5 (package bpftool): skeletons with struct_ops shadow types
SCX_BPFTOOL ?= bpftool
SCX_KERNEL = VP_SCX_CACHE=$(SCX_CACHE) bash tests/scx/kernel.sh
SCX_DEBIAN_KERNEL = bash tests/scx/debian-kernel.sh
SB = $(B)/scx

scx-kernel:
	$(SCX_KERNEL) all

scx-debian-kernel:
	$(SCX_DEBIAN_KERNEL) all

scx-vmlinux-h:
	bash daemon/scx/include/vmlinux-h.sh

# libbpf-dev's static archive: the daemon and the tests carry libbpf 1.4
# inside, whatever libbpf1 the host that runs them has (Debian 12's is
# 1.1, which knows no .struct_ops.link)
SCX_LIBBPF_A = -l:libbpf.a

# The committed vmlinux.h (x86-64) and our sched_ext declarations;
# libbpf's BPF headers (bpf/bpf_helpers.h ...) from libbpf-dev in
# /usr/include.
SCX_BPF_INC := -Idaemon/scx/include/x86 -Idaemon/scx/include -Idaemon/scx
# -Wextra less unused parameters: libbpf's BPF_PROG() passes ctx to every
# callback, and struct_ops callbacks take the arguments their member has
# -fms-extensions: kernels since 6.19 embed named structs unnamed (their
# own -fms-extensions), and 7.3's vmlinux.h has such members ("struct
# slock_owned;" in a union); without it clang drops them, and with them
# the layout of the types around
SCX_BPF_CFLAGS := -g -O2 -Wall -Wextra -Wno-unused-parameter -Werror \
	-fms-extensions -Wno-microsoft-anon-tag \
	-target bpf -mcpu=v3 -D__TARGET_ARCH_x86 -mlittle-endian
SCX_BPF_HDRS := daemon/scx/vcpuplace_scx.h daemon/scx/vcpuplace_wake.h \
	daemon/scx/include/x86/vmlinux.h \
	daemon/scx/include/vp_scx/common.bpf.h \
	daemon/scx/include/vp_scx/compat.bpf.h

$(SB)/vcpuplace.bpf.o: daemon/scx/vcpuplace.bpf.c $(SCX_BPF_HDRS)
	@mkdir -p $(dir $@)
	$(SCX_CLANG) $(SCX_BPF_CFLAGS) $(SCX_BPF_INC) -c -o $@ $<

# bpftool's static linker first (it checks and sanitizes the object, as
# the kernel's own skeletons are built), then the skeleton.
#
# bpftool 7.5 writes the skeleton of libbpf 1.5, and Debian 12's newest
# libbpf-dev is 1.4.6.  They differ in one line: 1.5's map skeleton has a
# link member, set for struct_ops maps so that vcpuplace__attach() can
# attach them.  The loader never calls that (scx_load() attaches the
# struct_ops map itself, bpf_map__attach_struct_ops()), and libbpf 1.4
# steps through the map skeletons by the size the skeleton states
# (map_skel_sz), so the line goes, and the rest stands as written.  The
# grep fails the build if bpftool writes anything else about links.
$(SB)/vcpuplace.skel.h: $(SB)/vcpuplace.bpf.o
	$(SCX_BPFTOOL) gen object $(SB)/vcpuplace.linked.o $<
	$(SCX_BPFTOOL) gen skeleton $(SB)/vcpuplace.linked.o name vcpuplace \
		| sed '/^\tmap->link = &obj->links\.vcpuplace_ops;$$/d' > $@.tmp
	! grep -n 'map->link' $@.tmp
	mv -f $@.tmp $@

# The real loader, daemon/scx/scx_loader.c, and scx_btf.c, which only it
# uses; the normal build has scx/scx_stub.c in their place.  libbpf's
# headers are Debian's, in /usr/include/bpf.
SCX_HOST_CFLAGS = $(VP_CFLAGS) $(CPPFLAGS) $(CFLAGS) -I$(SB)

$(SB)/scx_loader.o: daemon/scx/scx_loader.c daemon/scx/scx.h \
		daemon/scx/scx_btf.h daemon/scx/vcpuplace_scx.h \
		$(SB)/vcpuplace.skel.h
	@mkdir -p $(dir $@)
	$(CC) $(SCX_HOST_CFLAGS) -c -o $@ $<

$(SB)/scx_btf.o: daemon/scx/scx_btf.c daemon/scx/scx_btf.h
	@mkdir -p $(dir $@)
	$(CC) $(SCX_HOST_CFLAGS) -c -o $@ $<

$(SB)/%.o: tests/scx/%.c daemon/scx/scx.h daemon/scx/scxfeed.h \
		daemon/scx/vcpuplace_scx.h tests/scx/guest_topo.h \
		tests/scx/guest_util.h tests/scx/guest_kvm.h
	@mkdir -p $(dir $@)
	$(CC) $(SCX_HOST_CFLAGS) -c -o $@ $<

# Static, so the initramfs needs no libc: libbpf needs libelf and zlib.
# The real loader in place of the normal build's stub (libvphost.a is not
# linked), with what needs no BPF (scx.o); the placement core comes whole
# from libvpcore.a.
SCX_TEST_LIBS = $(SB)/guest_util.o $(SB)/scx_loader.o $(SB)/scx_btf.o \
	$(B)/daemon/scx/scx.o $(B)/daemon/scx/scxfeed.o \
	$(B)/daemon/host/procstat.o \
	$(B)/daemon/host/smallfile.o $(B)/libvpcore.a
SCX_TESTS = $(SB)/scx_smoke $(SB)/scx_progress $(SB)/scx_slice \
	$(SB)/scx_weight $(SB)/scx_pingpong $(SB)/scx_kvm $(SB)/scx_yield \
	$(SB)/scx_join $(SB)/scx_pollend $(SB)/scx_resume

$(SB)/scx_smoke: $(SB)/scx_smoke.o $(SB)/guest_topo.o $(SCX_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -static -pthread -o $@ $^ \
		$(SCX_LIBBPF_A) -lelf -lz $(LDLIBS)

$(SB)/scx_progress: $(SB)/scx_progress.o $(SB)/guest_topo.o $(SCX_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -static -pthread -o $@ $^ \
		$(SCX_LIBBPF_A) -lelf -lz $(LDLIBS)

$(SB)/scx_join: $(SB)/scx_join.o $(SB)/guest_topo.o $(SCX_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -static -pthread -o $@ $^ \
		$(SCX_LIBBPF_A) -lelf -lz $(LDLIBS)

$(SB)/scx_resume: $(SB)/scx_resume.o $(SB)/guest_topo.o $(SCX_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -static -pthread -o $@ $^ \
		$(SCX_LIBBPF_A) -lelf -lz $(LDLIBS)

$(SB)/scx_slice: $(SB)/scx_slice.o $(SB)/guest_topo.o $(SCX_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -static -pthread -o $@ $^ \
		$(SCX_LIBBPF_A) -lelf -lz $(LDLIBS)

$(SB)/scx_weight: $(SB)/scx_weight.o $(SB)/guest_topo.o $(SCX_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -static -pthread -o $@ $^ \
		$(SCX_LIBBPF_A) -lelf -lz $(LDLIBS)

$(SB)/scx_pingpong: $(SB)/scx_pingpong.o $(SB)/guest_topo.o $(SCX_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -static -pthread -o $@ $^ \
		$(SCX_LIBBPF_A) -lelf -lz -lm $(LDLIBS)

$(SB)/scx_fakevm: tests/scx/scx_fakevm.c
	@mkdir -p $(dir $@)
	$(CC) $(VP_CFLAGS) $(CFLAGS) -static -pthread -o $@ $< $(LDLIBS)

# The daemon with the real loader: the normal build's objects, with the
# loader named before the archive, so that the archive's scx_stub.o is
# never pulled in, and libbpf linked in statically.
$(SB)/vcpuplaced: $(B)/daemon/vcpuplaced/main.o $(B)/libvpservice.a \
		$(SB)/scx_loader.o $(SB)/scx_btf.o $(B)/libvphost.a \
		$(B)/libvpcore.a
	$(LINK) $^ $(SCX_LIBBPF_A) $(LIBS_ALL) -lelf -lz -lpthread $(LDLIBS)

SCX_DAEMON = $(SB)/vcpuplaced $(B)/vcpuplacectl $(SB)/scx_fakevm

$(SB)/scx_kvm: $(SB)/scx_kvm.o $(SB)/guest_topo.o $(SB)/guest_kvm.o \
		$(SCX_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -static -pthread -o $@ $^ \
		$(SCX_LIBBPF_A) -lelf -lz $(LDLIBS)

$(SB)/scx_yield: $(SB)/scx_yield.o $(SB)/guest_topo.o $(SB)/guest_kvm.o \
		$(SCX_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -static -pthread -o $@ $^ \
		$(SCX_LIBBPF_A) -lelf -lz $(LDLIBS)

$(SB)/scx_pollend: $(SB)/scx_pollend.o $(SB)/guest_topo.o $(SB)/guest_kvm.o \
		$(SCX_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -static -pthread -o $@ $^ \
		$(SCX_LIBBPF_A) -lelf -lz $(LDLIBS)

scx-bpf: $(SCX_TESTS) $(SCX_DAEMON)

# Both kernels, one after the other, each in its own directory, then
# Debian's kernel again booted with isolcpus=domain,2-3 (the refusal:
# tests/scx/isolcpus.sh; the 6.12 test kernel has no CPU_ISOLATION and
# ignores isolcpus=, so only a kernel that has it can show the refusal).
# Each boot runs even when one before it failed, and the target fails if
# any did.  The last lines say which kernel passed what.
#   KERNEL:OUTDIR:GUEST SCRIPT:EXTRA KERNEL COMMAND LINE
SCX_BOOTS = test:$(SB)/boot-test:daemon: \
	debian:$(SB)/boot-debian:daemon: \
	debian:$(SB)/isolcpus-debian:isolcpus:isolcpus=domain,2-3
scx-test: $(SCX_TESTS) $(SCX_DAEMON)
	$(SCX_DEBIAN_KERNEL) all
	@ok=1; sum=""; for b in $(SCX_BOOTS); do \
		k=$$(echo $$b | cut -d: -f1); d=$$(echo $$b | cut -d: -f2); \
		g=$$(echo $$b | cut -d: -f3); a=$$(echo $$b | cut -d: -f4); \
		progs="$(SCX_TESTS)"; [ $$g = daemon ] || progs=$(SB)/scx_smoke; \
		echo "== scx-test: the $$k kernel, $$g$${a:+, $$a} (console: $$d/console.txt)"; \
		if VP_SCX_KERNEL=$$k VP_SCX_GUEST=$$g KP_QEMU_APPEND="$$a" \
		    bash tests/scx/boot.sh $$d $$progs -- $(SCX_DAEMON); \
		then v=PASS; else v=FAIL; ok=0; fi; \
		r=$$(sed -n 's/^SCXTEST: kernel \([^ ,]*\),.*/\1/p' \
		    $$d/console.txt 2>/dev/null | head -1); \
		sum="$$sum\nscx-test: $$k kernel $${r:-?}, $$g$${a:+ ($$a)}: $$v"; \
	done; printf "$$sum\n"; [ $$ok = 1 ]

# One boot with isolcpus=domain,2-3 (part of scx-test on Debian's
# kernel); VP_SCX_KERNEL=test boots the 6.12 kernel, which ignores it.
# isolcpus.sh runs scx_smoke itself (its load must fail) and the daemon.
scx-test-isolcpus: $(SB)/scx_smoke $(SCX_DAEMON)
	$(SCX_DEBIAN_KERNEL) all
	VP_SCX_KERNEL=$${VP_SCX_KERNEL:-debian} \
		KP_QEMU_APPEND="isolcpus=domain,2-3" VP_SCX_GUEST=isolcpus \
		bash tests/scx/boot.sh $(SB)/isolcpus $(SB)/scx_smoke -- \
		$(SCX_DAEMON)

# The daemon with the scheduler, in place of the normal build's (which
# cannot load one); the rest as `make install` puts it.
install-scx: $(SB)/vcpuplaced
	install -D -m 755 $(SB)/vcpuplaced $(DESTDIR)$(SBINDIR)/vcpuplaced

# Starts the cached kernel's build at low priority in the background,
# after installing its packages in the foreground (one apt at a time).
scx-kernel-bg:
	$(SCX_KERNEL) deps
	@mkdir -p $(B)
	nohup env VP_SCX_NICE=19 $(SCX_KERNEL) all >$(B)/scx-kernel.log 2>&1 </dev/null &

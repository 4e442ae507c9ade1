# daemon/scx/scx.mk: the sched_ext scheduler's build and boot test,
# included by the top-level Makefile.  Paths are relative to the root.
#
#   make scx-kernel     the sched_ext test kernel (linux-source-6.12,
#                       allnoconfig + daemon/scx/config.fragment: only what
#                       the guest needs), libbpf and bpftool from its
#                       tools/, and vmlinux.h from its BTF, all cached in
#                       $(SCX_CACHE)/<key>/ (tests/scx/kernel.sh): ~18 min
#                       with -j2 at nice 19 on a loaded 2-CPU machine the
#                       first time, nothing after
#   make scx-vmlinux-h  only regenerate vmlinux.h (bpftool btf dump)
#   make scx-bpf        the BPF object, its skeleton, and the static smoke
#                       test with the real loader, into $(B)/scx/
#   make scx-test       boot the cached kernel under QEMU TCG and run the
#                       smoke test (tests/scx/boot.sh); VP_QEMU_SMP sets
#                       the guest topology
#   make scx-test-isolcpus  the same kernel booted with isolcpus=domain,2-3:
#                       the daemon must say sched-ext unavailable (cause
#                       isolcpus) before loading, and the kernel must refuse
#                       scx_smoke (tests/scx/isolcpus.sh); not in scx-test
#
# None of these is part of `all` or `check`: a host without sched_ext or
# without the cache builds and tests everything else.  There, daemon/host/
# scx.c compiles without VP_HAVE_SCX, to stubs.  See daemon/scx/README.md.

.PHONY: scx-kernel scx-vmlinux-h scx-bpf scx-test scx-test-isolcpus \
	install-scx check-scx

SCX_CACHE ?= /var/cache/vcpuplace/scx-kernel
# Debian 12 has clang 14 by default and clang-19 as a package; 19 is what
# 6.12's tools/sched_ext were tested with here (see README.md)
SCX_CLANG ?= clang-19
SCX_KERNEL = VP_SCX_CACHE=$(SCX_CACHE) bash tests/scx/kernel.sh
SB = $(B)/scx

scx-kernel:
	$(SCX_KERNEL) all

scx-vmlinux-h:
	$(SCX_KERNEL) vmlinux.h

# The cache key (a hash of the fragments and the linux-source version) is
# computed only when an scx goal that needs it is asked for, so a plain
# `make` never runs dpkg-query or touches the cache.
ifneq ($(filter scx-bpf scx-test scx-test-isolcpus install-scx $(SB)/%,$(MAKECMDGOALS)),)
SCX_K := $(shell $(SCX_KERNEL) dir)
SCX_LIBBPF := $(SCX_K)/tools/libbpf
SCX_BPFTOOL := $(SCX_K)/tools/bpftool

# One run of kernel.sh makes all three; it locks, so -j is safe.
$(SCX_K)/vmlinux.h $(SCX_LIBBPF)/lib/libbpf.a $(SCX_BPFTOOL) &:
	$(SCX_KERNEL) all

# vmlinux.h from the cache; scx/common.bpf.h and friends straight from the
# extracted kernel source (not copied into the repository).
SCX_BPF_INC := -I$(SCX_K) -I$(SCX_LIBBPF)/include \
	-I$(SCX_K)/src/tools/sched_ext/include -Idaemon/scx
SCX_BPF_CFLAGS := -g -O2 -Wall -Werror -target bpf -mcpu=v3 \
	-D__TARGET_ARCH_x86 -mlittle-endian

$(SB)/vcpuplace.bpf.o: daemon/scx/vcpuplace.bpf.c daemon/scx/vcpuplace_scx.h \
		daemon/scx/vcpuplace_wake.h \
		$(SCX_K)/vmlinux.h $(SCX_LIBBPF)/lib/libbpf.a
	@mkdir -p $(dir $@)
	$(SCX_CLANG) $(SCX_BPF_CFLAGS) $(SCX_BPF_INC) -c -o $@ $<

# bpftool's static linker first (it checks and sanitizes the object, as
# the kernel's own skeletons are built), then the skeleton.
$(SB)/vcpuplace.skel.h: $(SB)/vcpuplace.bpf.o $(SCX_BPFTOOL)
	$(SCX_BPFTOOL) gen object $(SB)/vcpuplace.linked.o $<
	$(SCX_BPFTOOL) gen skeleton $(SB)/vcpuplace.linked.o name vcpuplace \
		> $@.tmp
	mv -f $@.tmp $@

# The real loader: daemon/host/scx.c with VP_HAVE_SCX, apart from the
# stub object of the normal build ($(B)/daemon/host/scx.o).  The kernel's
# headers come in as system headers: our -Wextra -Werror is not theirs
# (compat.h compares int with __u32).
SCX_HOST_CFLAGS = $(VP_CFLAGS) $(CPPFLAGS) $(CFLAGS) -DVP_HAVE_SCX -I$(SB) \
	-isystem $(SCX_LIBBPF)/include \
	-isystem $(SCX_K)/src/tools/sched_ext/include

$(SB)/host/scx.o: daemon/host/scx.c daemon/host/scx.h \
		daemon/scx/vcpuplace_scx.h $(SB)/vcpuplace.skel.h
	@mkdir -p $(dir $@)
	$(CC) $(SCX_HOST_CFLAGS) -c -o $@ $<

$(SB)/%.o: tests/scx/%.c daemon/host/scx.h daemon/host/scxfeed.h \
		daemon/scx/vcpuplace_scx.h tests/scx/guest_topo.h \
		tests/scx/guest_util.h
	@mkdir -p $(dir $@)
	$(CC) $(SCX_HOST_CFLAGS) -c -o $@ $<

# Static, so the initramfs needs no libc: libbpf needs libelf and zlib.
# The real loader replaces the normal build's stub (libvphost.a is not
# linked); the placement core comes whole from libvpcore.a.
SCX_TEST_LIBS = $(SB)/guest_util.o $(SB)/host/scx.o $(B)/daemon/host/scxfeed.o $(B)/libvpcore.a \
	$(SCX_LIBBPF)/lib/libbpf.a
SCX_TESTS = $(SB)/scx_smoke $(SB)/scx_pingpong $(SB)/scx_kvm

$(SB)/scx_smoke: $(SB)/scx_smoke.o $(SB)/guest_topo.o $(SCX_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -static -pthread -o $@ $^ -lelf -lz $(LDLIBS)

$(SB)/scx_pingpong: $(SB)/scx_pingpong.o $(SB)/guest_topo.o $(SCX_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -static -pthread -o $@ $^ -lelf -lz -lm \
		$(LDLIBS)

$(SB)/scx_fakevm: tests/scx/scx_fakevm.c
	@mkdir -p $(dir $@)
	$(CC) $(VP_CFLAGS) $(CFLAGS) -static -pthread -o $@ $< $(LDLIBS)

# The daemon with the real loader: the normal build's objects, with the
# stub scx.o replaced (an object named before the archive wins), and
# libbpf linked in statically.
$(SB)/vcpuplaced: $(B)/daemon/vcpuplaced/main.o $(B)/libvpservice.a \
		$(SB)/host/scx.o $(B)/libvphost.a $(B)/libvpcore.a \
		$(SCX_LIBBPF)/lib/libbpf.a
	$(LINK) $^ $(LIBS_ALL) -lelf -lz -lpthread $(LDLIBS)

SCX_DAEMON = $(SB)/vcpuplaced $(B)/vcpuplacectl $(SB)/scx_fakevm

$(SB)/scx_kvm: $(SB)/scx_kvm.o $(SB)/guest_topo.o $(SCX_TEST_LIBS)
	$(CC) $(CFLAGS) $(LDFLAGS) -static -pthread -o $@ $^ -lelf -lz $(LDLIBS)

scx-bpf: $(SCX_TESTS) $(SCX_DAEMON)

scx-test: $(SCX_TESTS) $(SCX_DAEMON)
	bash tests/scx/boot.sh $(SB) $(SCX_TESTS) -- $(SCX_DAEMON)

# isolcpus.sh runs scx_smoke itself (its load must fail) and the daemon
scx-test-isolcpus: $(SB)/scx_smoke $(SCX_DAEMON)
	KP_QEMU_APPEND="isolcpus=domain,2-3" VP_SCX_GUEST=isolcpus \
		bash tests/scx/boot.sh $(SB)/isolcpus $(SB)/scx_smoke -- \
		$(SCX_DAEMON)

# The daemon with the scheduler, in place of the normal build's (which
# cannot load one); the rest as `make install` puts it.
install-scx: $(SB)/vcpuplaced
	install -D -m 755 $(SB)/vcpuplaced $(DESTDIR)$(SBINDIR)/vcpuplaced
endif

# make check's part: the kernel (cached outside the clone: built once per
# machine, then found), then the boot tests.  `make check` starts the
# kernel build in the background early (scx-kernel-bg), so it overlaps
# the other suites; kernel.sh's lock makes this wait for it.
check-scx:
	$(SCX_KERNEL) all
	$(MAKE) scx-test

# Starts the cached kernel's build at low priority in the background,
# after installing its packages in the foreground (one apt at a time).
scx-kernel-bg:
	$(SCX_KERNEL) deps
	@mkdir -p $(B)
	nohup env VP_SCX_NICE=19 $(SCX_KERNEL) all >$(B)/scx-kernel.log 2>&1 </dev/null &

# kvm-patches/kvm.mk: included by the top-level Makefile.  Paths are
# relative to the repository root.
#   make kvm-check   static check of the kernel series (checkpatch --strict,
#                    per-patch compile of the touched objects, no warnings)
#   make kvm-test    build the patched kernel and boot-test it under QEMU TCG

.PHONY: kvm-check kvm-test

kvm-check:
	kvm-patches/check

kvm-test:
	kvm-patches/kvm-test

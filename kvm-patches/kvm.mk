# kvm-patches/kvm.mk: included by the top-level Makefile.  Paths are
# relative to the repository root.
#   make kvm-check   static check of the kernel series (checkpatch --strict,
#                    per-patch compile of the touched objects, no warnings;
#                    the rule is in tests/check.mk, with every check)
#   make kvm-test    build the patched kernel and boot-test it under QEMU TCG

.PHONY: kvm-test

kvm-test:
	kvm-patches/kvm-test

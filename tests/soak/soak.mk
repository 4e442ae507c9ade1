# The chaos soak (tests/soak/soak.py, README.md there): vcpuplaced against
# the real libvirtd and TCG VMs under a random schedule of lifecycle
# actions and faults, judged by an independent checker.  Included by the
# top-level Makefile, which defines B and the daemon's rules.  Needs root.
#
#   make soak [SOAK_S=600] [SOAK_SEED=N]   a random seed when none is given
#   make check-soak                        90 s, seed 13 (see README.md;
#                                          the rule is in tests/check.mk)
SOAK_S ?= 600
SOAK_SEED ?=

.PHONY: soak
soak: $(B)/vcpuplaced $(B)/vcpuplacectl
	sh tools/deps/install.sh integration
	python3 tests/soak/soak.py --seconds $(SOAK_S) \
		$(if $(SOAK_SEED),--seed $(SOAK_SEED)) $(B)

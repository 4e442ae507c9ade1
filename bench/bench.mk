# bench/bench.mk - the host simulator (issue 6), included by the Makefile.
#
#   make bench       the standard sweep: tables and plots in bench/results/,
#                    last line vcpuplace_vs_stock_throughput_at_125=...
#                    ... bound_violations=K (runs above bound.c's bound)
#   make check-sim   a few seconds of invariants (tests/sim/run.sh)
#   bench/sim ...    one point, one JSON line (builds the binary if needed)
#
# The simulator links the placement core itself (libvpcore.a), not a copy.

SIM_SRCS := $(sort $(wildcard bench/simulator/*.c))

.PHONY: bench check-sim

$(B)/vcpuplace-sim: $(call obj,$(B),$(SIM_SRCS)) $(B)/libvphost.a \
		$(B)/libvpcore.a
	$(LINK) $^ $(LIB_HWLOC) $(LIB_JSON) -lm $(LDLIBS)

# Two workers: this machine has 2 CPUs (about 10 minutes here).
bench: $(B)/vcpuplace-sim
	@sh tests/deps.sh gnuplot-nox
	$(B)/vcpuplace-sim --sweep tests/topologies bench/results --jobs 2

check-sim: $(B)/vcpuplace-sim
	sh tests/sim/run.sh $(B)/vcpuplace-sim tests/topologies

# bench/bench.mk - the host simulator, included by the Makefile.
#
#   make bench       the standard sweep: tables and plots in bench/results/,
#                    last line vcpuplace_vs_stock_throughput_at_125=...
#                    ... bound_violations=K (runs above bound.c's bound)
#   make check-sim   a few seconds of invariants (tests/sim/run.sh; the
#                    rule is in tests/check.mk, with every check)
#   bench/sim ...    one point, one JSON line (builds the binary if needed)
#   VP_SWEEP_STRATS=stock,sis-core VP_SWEEP_FAMILIES=standard,nopoll \
#   build/vcpuplace-sim --sweep tests/topologies OUT --jobs 1
#                    a partial sweep (points.c): those points only, into
#                    OUT; bench/splice_results.py OUT sis-core patch-0003
#                    puts one strategy's rows into bench/results/
#
# The simulator links the placement core itself (libvpcore.a), not a copy.

SIM_SRCS := $(sort $(wildcard bench/simulator/*.c))

.PHONY: bench

$(B)/vcpuplace-sim: $(call obj,$(B),$(SIM_SRCS)) $(B)/libvphost.a \
		$(B)/libvpcore.a
	$(LINK) $^ $(LIB_HWLOC) $(LIB_JSON) $(LIB_XML) -lm $(LDLIBS)

# Two workers: this machine has 2 CPUs (about 30 minutes here).
# bench/results/MODEL.md names the commit of the model that made the
# tables (every table says which model produced it); a tree
# with uncommitted changes says so ("-dirty").
bench: $(B)/vcpuplace-sim
	@sh tools/deps/install.sh bench
	$(B)/vcpuplace-sim --sweep tests/topologies bench/results --jobs 2
	@{ echo "# The model behind these tables"; echo; \
	  echo "Made by \`make bench\` at commit" \
	    "\`$$(git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)\`" \
	    "on $$(date -u +%Y-%m-%d)."; } > bench/results/MODEL.md

# The sweep's arithmetic (break-even, bound check), with Check.
$(B)/test-sim: $(call obj,$(B),tests/sim/test_sweep.c \
		$(filter-out bench/simulator/main.c,$(SIM_SRCS))) \
		$(B)/libvphost.a $(B)/libvpcore.a
	$(LINK) $^ $(LIB_HWLOC) $(LIB_JSON) $(LIB_XML) $(LIB_CHECK) -lm $(LDLIBS)

# The wake and balance rules on hand-built states (tests/sim/rules.c).
$(B)/sim-rules: $(call obj,$(B),tests/sim/rules.c \
		$(filter-out bench/simulator/main.c,$(SIM_SRCS))) \
		$(B)/libvphost.a $(B)/libvpcore.a
	$(LINK) $^ $(LIB_HWLOC) $(LIB_JSON) $(LIB_XML) -lm $(LDLIBS)

# Placement latency from outside: virsh start / setvcpus to the
# vCPU threads' affinity changing, against qemu:///system (root, libvirt).
.PHONY: bench-placement
bench-placement: $(B)/vcpuplaced
	python3 bench/placement_latency.py --daemon $(B)/vcpuplaced

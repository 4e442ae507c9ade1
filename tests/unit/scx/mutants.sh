#!/bin/sh
# tests/unit/scx/mutants.sh - deletes each rule of daemon/scx/vcpuplace_wake.h
# in turn and checks that the scxwake suite (test_wake.c) then fails, and
# the test named for that rule among the failures.  Not part of any check
# target (each mutant rebuilds build/test-unit); run by hand from the root:
#   sh tests/unit/scx/mutants.sh
set -u
h=daemon/scx/vcpuplace_wake.h
keep=$(mktemp)
cp "$h" "$keep"
trap 'cp "$keep" "$h"; rm -f "$keep"; make -s build/test-unit >/dev/null 2>&1' EXIT
fail=0

# mutant TESTNAME PYTHON-REPLACEMENT-OLD PYTHON-REPLACEMENT-NEW
mutant() {
	cp "$keep" "$h"
	python3 - "$h" "$2" "$3" <<'PY' || { echo "MUTANT NOT APPLIED: $1"; fail=1; return; }
import sys
p, old, new = sys.argv[1:4]
s = open(p).read()
assert s.count(old) == 1, old
open(p, "w").write(s.replace(old, new))
PY
	make -s build/test-unit >/dev/null 2>&1 || { echo "build failed: $1"; fail=1; return; }
	out=$(CK_RUN_SUITE=scxwake VP_TOPOLOGY_DIR=tests/topologies \
	    build/test-unit 2>&1)
	if echo "$out" | grep -q ":$1:"; then
		echo "killed: $1"
	else
		echo "SURVIVED: $1"
		fail=1
	fi
}

mutant test_home_whole_first "	whole = vpw_idle_core(w, v->home);" "	whole = false;"
mutant test_half_home_loses_to_near_core \
    "if (vpw_feat(w, VP_SCX_FEAT_CLUSTER_FIRST) &&" "if (0 &&"
mutant test_half_home_loses_to_far_core \
    "	return claim_idle_core_in(w, v->far_dom);" "	return -1;"
mutant test_smt_prio "	return pu->prio / 2;" "	return pu->prio;"
mutant test_soon_idle "busy_rest_ns(w, pu) : 0;" \
    "busy_rest_ns(w, pu) * 0 : 0;"
mutant test_idle_pu_prev_first "((soon && cpu == w->prev) || rest < best_rest)" \
    "(rest < best_rest)"
mutant test_idle_pu_prev_first "((soon && cpu == w->prev) || rest < best_rest)" \
    "(cpu == w->prev || rest < best_rest)"
mutant test_cache_hot_prev "	if ((cpu = try_cache_hot(w)) >= 0) {" \
    "	if (0 && (cpu = try_cache_hot(w)) >= 0) {"
mutant test_stay_far_dom "	if (w->v->flags & VP_SCX_F_STAY_FAR_DOM)
		return -1;" "	if (0)
		return -1;"
mutant test_queued_inside_allowed "	if (allowed(w, w->prev))
		return w->prev;" "	return w->prev;"
mutant test_poll_end "	if ((cpu = try_polling(w)) >= 0) {" \
    "	if (0 && (cpu = try_polling(w)) >= 0) {"
mutant test_poll_end "	if (allowed(w, w->prev) && vpw_claim_poll(w, w->prev))" \
    "	if (0)"
mutant test_poll_end "	    (cpu = claim_polling_in(w, pu->cluster_dom, &ps)) >= 0)" \
    "	    (cpu = -1) >= 0)"
mutant test_poll_end_probes_once "		if (poll_scanned(w, ps, cpu))
			continue;" "		if (0)
			continue;"
mutant test_poll_end_probes_once "		ps.tried = v->home;" "		(void)0;"
mutant test_llc_first "	    (cpu = claim_idle_core_in(w, (__u32)llc)) >= 0)" \
    "	    (cpu = -1) >= 0)"
mutant test_llc_first "	    (cpu = claim_idle_pu_in(w, (__u32)llc)) >= 0)" \
    "	    (cpu = -1) >= 0)"
mutant test_llc_first "	    (cpu = claim_polling_in(w, (__u32)llc, &ps)) >= 0)" \
    "	    (cpu = -1) >= 0)"
mutant test_llc_first "	    pu->llc_dom == v->far_dom || pu->llc_dom == v->near_dom)" \
    "	    pu->llc_dom == v->far_dom || pu->llc_dom == v->near_dom || 1)"
mutant test_llc_first "!vpw_feat(w, VP_SCX_FEAT_LLC_FIRST) || !allowed(w, w->prev) ||" \
    "!vpw_feat(w, VP_SCX_FEAT_LLC_FIRST) ||"
mutant test_poll_end "	if (v->near_dom != v->far_dom &&
	    (cpu = claim_polling_in(w, v->near_dom, &ps)) >= 0)" "	if (0)"
mutant test_poll_end "		if (allowed(w, cpu) && vpw_claim_poll(w, cpu))" \
    "		if (vpw_claim_poll(w, cpu))"
mutant test_stay_prev "	if ((cpu = try_stay_prev(w)) >= 0) {" \
    "	if (0 && (cpu = try_stay_prev(w)) >= 0) {"
mutant test_stay_prev " || r->expect_ns - ran > VP_SCX_STAY_PREV_NS)" ")"
mutant test_stay_prev "	if (!r || !r->vcpu)" "	if (!r)"
mutant test_stay_prev "	if (r->expect_ns <= ran ||" "	if ("
mutant test_stay_prev "	return vpw_claim_stay(w, w->prev) ? w->prev : -1;" \
    "	return vpw_claim_stay(w, w->prev) || 1 ? w->prev : -1;"
mutant test_join_waker "	if ((cpu = try_join_waker(w)) >= 0) {" \
    "	if (0 && (cpu = try_join_waker(w)) >= 0) {"
mutant test_join_waker "	if (!run || run > vpw_join_run_ns(w))" "	if (!run)"
mutant test_join_waker "	if (cpu < 0 || !allowed(w, cpu))" "	if (cpu < 0)"
mutant test_join_waker "	if (!r || !r->vcpu || !r->expect_ns ||" "	if (!r || !r->expect_ns ||"
mutant test_join_waker "	    r->expect_ns > vpw_join_run_ns(w))" "	    0)"
mutant test_join_waker "		*direct = false;
		*why = VP_SCX_V_JOIN_WAKER;" "		*why = VP_SCX_V_JOIN_WAKER;"
mutant test_busy_host_no_scan \
    "	if (vpw_any_idle(w, false) && (cpu = decide_idle(w, why)) >= 0)" \
    "	if ((cpu = decide_idle(w, why)) >= 0)"
mutant test_busy_host_no_scan "	if (!vpw_any_idle(w, true))
		return -1;" "	if (0)
		return -1;"
exit $fail

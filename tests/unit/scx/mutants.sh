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

mutant test_home_whole_first "	if (home_ok) {" "	if (0) {"
mutant test_half_home_loses_to_near_core \
    "if (vpw_feat(w, VP_SCX_FEAT_CLUSTER_FIRST) &&" "if (0 &&"
mutant test_half_home_loses_to_far_core \
    "if ((cpu = claim_idle_core_in(w, v->far_dom)) >= 0)" \
    "if (0 && (cpu = claim_idle_core_in(w, v->far_dom)) >= 0)"
mutant test_smt_prio "	return pu->prio / 2;" "	return pu->prio;"
mutant test_soon_idle "busy_rest_ns(w, pu) : 0;" \
    "busy_rest_ns(w, pu) * 0 : 0;"
mutant test_cache_hot_prev "	if (cache_hot(w)) {" "	if (0 && cache_hot(w)) {"
mutant test_stay_far_dom "	if (!(v->flags & VP_SCX_F_STAY_FAR_DOM)) {" "	if (1) {"
mutant test_queued_inside_allowed "	if (allowed(w, w->prev))
		return w->prev;" "	return w->prev;"
exit $fail

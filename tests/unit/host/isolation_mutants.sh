#!/bin/sh
# tests/unit/host/isolation_mutants.sh - deletes each rule of the
# isolcpus= refusal in turn (daemon/host/isolation.c: how the kernel
# takes isolcpus=, the verdict; daemon/vcpuplaced/: the decision, its
# report) and checks that the named test then fails.  Not part of any
# check target (each mutant rebuilds build/test-unit); run by hand from
# the root:
#   sh tests/unit/host/isolation_mutants.sh
set -u
files="daemon/host/isolation.c daemon/vcpuplaced/schedext.c
daemon/vcpuplaced/status.c daemon/vcpuplaced/metrics.c"
keep=$(mktemp -d)
for f in $files; do cp "$f" "$keep/$(basename "$f")"; done
restore() { for f in $files; do cp "$keep/$(basename "$f")" "$f"; done; }
trap 'restore; rm -rf "$keep"; make -s build/test-unit >/dev/null 2>&1' EXIT
fail=0

# mutant FILE SUITE TESTNAME OLD NEW
mutant() {
	restore
	python3 - "$1" "$4" "$5" <<'PY' || { echo "MUTANT NOT APPLIED: $3"; fail=1; return; }
import sys
p, old, new = sys.argv[1:4]
s = open(p).read()
assert s.count(old) == 1, old
open(p, "w").write(s.replace(old, new))
PY
	make -s build/test-unit >/dev/null 2>&1 || { echo "build failed: $3"; fail=1; return; }
	out=$(CK_RUN_SUITE=$2 VP_TOPOLOGY_DIR=tests/topologies \
	    build/test-unit 2>&1)
	if echo "$out" | grep -q ":$3:"; then
		echo "killed: $3 ($(echo "$5" | head -1 | tr -s '\t ' ' '))"
	else
		echo "SURVIVED: $3 ($(echo "$5" | head -1))"
		fail=1
	fi
}

i=daemon/host/isolation.c
# isolcpus= without a known flag is domain isolation
mutant $i isolation test_parse_cmdline "	if (!flags)
		domain = true;" "	if (0 && !flags)
		domain = true;"
# the domain flag
mutant $i isolation test_parse_cmdline "			flags = domain = true;
			v += 7;" "			flags = true;
			v += 7;"
# nohz (and managed_irq) alone are not domain isolation
mutant $i isolation test_parse_cmdline "			flags = true;
			v += 5;" "			flags = domain = true;
			v += 5;"
mutant $i isolation test_parse_cmdline "			flags = true;
			v += 12;" "			flags = domain = true;
			v += 12;"
# an illegal flag makes the kernel ignore the parameter
mutant $i isolation test_parse_cmdline '				return;		/* "Invalid flag": ignored */' '				break;'
# so does a bad CPU list
mutant $i isolation test_parse_cmdline "	if (isol_cpulist_check(v) < 0)
		return;" ""
# init's arguments after --
mutant $i isolation test_parse_cmdline "		if (!strcmp(arg, \"--\"))
			break;" ""
# quotes
mutant $i isolation test_parse_cmdline "			if (*val == '\"')
				memmove(val, val + 1, strlen(val));" ""
# nohz_full= is kept (for status), never a refusal
mutant $i isolation test_parse_cmdline "		else if (!strncmp(arg, \"nohz_full=\", 10))" "		else if (0)"
# the isolated file: an empty list is fine, garbage an error
mutant $i isolation test_read_tree "		if (*t && (isol_cpulist_check(t) < 0 ||" "		if ((isol_cpulist_check(t) < 0 ||"
mutant $i isolation test_read_errors "		if (*t && (isol_cpulist_check(t) < 0 ||" "		if (*t && (0 ||"
# unreadable files are kept as errors
mutant $i isolation test_read_errors "		in.cmdline_err = (int)n;" "		;"
# before 7.0 the isolated file is the kernel's test
mutant $i isolation test_read_tree "	if (before7 && !in->isolated_err)" "	if (0 && before7)"
# 7.0+: the boot flag
mutant $i isolation test_read_tree "	if (boot)
		return ISOL_BOOT;" ""
# 7.0+: isolated without isolcpus=: a partition
mutant $i isolation test_read_tree "	if (isolated)
		return ISOL_PARTITION;" ""
mutant $i isolation test_read_tree "		return ISOL_UNKNOWN;" "		return ISOL_NONE;"
mutant $i isolation test_parse_release "	if (errno || *end != '.' || !isdigit((unsigned char)end[1]))" "	if (errno)"

s=daemon/vcpuplaced/schedext.c
# the decision: refused under isolcpus= domain isolation
mutant $s schedext test_decide "	else if (p->isol == ISOL_BOOT || p->isol == ISOL_DOMAIN)" "	else if (0)"
# ... and for this kernel's reason before this binary's
mutant $s schedext test_decide "	else if (p->isol == ISOL_BOOT || p->isol == ISOL_DOMAIN)
		verdict(&v, VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_ISOLCPUS," "	else if (p->supported != -EOPNOTSUPP && (p->isol == ISOL_BOOT || p->isol == ISOL_DOMAIN))
		verdict(&v, VP_SCX_UNAVAILABLE, VP_SCX_CAUSE_ISOLCPUS,"
# a partition's EINVAL
mutant $s schedext test_decide "	else if (p->load_err == -EINVAL && p->isol == ISOL_PARTITION)" "	else if (0)"
# sched_ext enabling or disabling
mutant $s schedext test_decide "	else if (p->busy)" "	else if (0)"
mutant $s schedext test_life_busy "			p.busy = state;" "			(void)0;"
# start-up reads it
mutant $s schedext test_life_isolcpus "		probe_isolation(s, &p, isol_why, sizeof(isol_why));" \
    "		(void)probe_isolation, (void)isol_why;"
# the words
mutant $s schedext test_life_isolcpus "	if (boot && isolated)" "	if (0)"
# the report
mutant daemon/vcpuplaced/status.c schedext test_life_isolcpus "	json_object_object_add(o, \"isolation\", s->isol_known ?" "	json_object_object_add(o, \"isolation_\", s->isol_known ?"
mutant daemon/vcpuplaced/status.c schedext test_life_isolcpus "	if (in->cmdline_err)
		json_object_object_add(errs, ISOL_CMDLINE," "	if (0)
		json_object_object_add(errs, ISOL_CMDLINE,"
mutant daemon/vcpuplaced/metrics.c schedext test_life_isolcpus "	if (s->isol_known) {" "	if (0) {"
exit $fail

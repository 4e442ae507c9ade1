/*
 * feature_list.h - every placement heuristic is a named switch.
 *
 * Modelled on kernel/sched/features.h: one line per heuristic, with the
 * reason it exists.  Benchmarks and tests toggle them; status and metrics
 * list them.  A feature that is off makes its helper return VP_PU_NONE, so
 * callers never need an #ifdef.
 *
 * VP_FEATURE(NAME, default, "why"); "seed NNN" is the kernel thread the
 * idea comes from (doc/seeds.md).
 */
VP_FEATURE(SIS_CORE, 1,
	"scan a per-LLC idle mask holding at most one PU per core (seed 000)")
VP_FEATURE(SIS_CACHE, 1,
	"a short sleeper wakes on its cache-hot previous PU (seed 001)")
VP_FEATURE(CLUSTER_FIRST, 1,
	"scans start at the first PU of the home cluster (seed 003)")
VP_FEATURE(SMT_PRIO, 1,
	"a PU whose SMT siblings are busy is worth less (seed 002)")
VP_FEATURE(FAIL_PRONE, 1,
	"a PU whose last scan failed also probes SMT siblings next time")
/* The eight below steer only the sched_ext scheduler (daemon/scx/). */
VP_FEATURE(SOON_IDLE, 1,
	"of idle PUs next to busy siblings, take prev, else the one whose sibling idles soonest")
VP_FEATURE(HOST_PACK, 1,
	"host tasks wake next to other host work, keeping whole cores for vCPUs")
VP_FEATURE(POLL_END, 1,
	"with nothing idle, wake onto a PU whose vCPU only halt-polls, ending the poll")
VP_FEATURE(YIELD_TO, 1,
	"a vCPU's directed yield (KVM's yield_to()) hands its turn to the vCPU of its VM it names")
/* Off: the held-out set's schbench tails tripled (bench/README.md). */
VP_FEATURE(STAY_PREV, 0,
	"with nothing idle nor polling, a vCPU waits on prev if its task should stop within a slice")
VP_FEATURE(JOIN_WAKER, 1,
	"with nothing idle, a short-run vCPU woken by a short-run vCPU of its VM queues on the waker's PU")
VP_FEATURE(LLC_FIRST, 1,
	"a wake domain wider than prev's LLC is scanned in that LLC first, as select_idle_sibling() stays in its target's")
VP_FEATURE(RESUME_PREV, 1,
	"a task whose slice ended while others waited resumes on its PU: the others pass it over while less than two slices behind")

/*
 * cpus.c - per CPU model: idle states, turbo, TLB and caches, each with
 * its source, and the lookup of a topology's model through hwloc.
 *
 * Idle states are what Linux 6.12's cpuidle driver declares for the
 * model (drivers/idle/intel_idle.c tables, ACPI _CST through
 * drivers/acpi/processor_idle.c with target_residency = latency *
 * latency_factor 2, skiboot's OPAL table on POWER9).  These are the
 * declared worst cases the governor uses; the simulator charges them as
 * the exit latency (measured exits are often shorter: say so, sweep).
 *
 * Turbo: f1 = the published single-core maximum, fall = the published
 * all-core turbo; between them the simulator interpolates linearly,
 * rounded to 100 MHz bins (the per-active-core bin tables are not public for most
 * of these SKUs: an assumption, see bench/notes/costs.md).
 */
#include <stdio.h>
#include <string.h>

#include <hwloc.h>

#include "sim.h"
#include "costs.h"

const struct cpu_model cpu_models[] = {
	{
		/*
		 * g4dnmetal: Xeon Platinum 8259CL (Cascade Lake-SP, AWS SKU).
		 * 6.12 intel_idle skx_cstates (Cascade Lake matches
		 * INTEL_SKYLAKE_X): C1 2/2 us, C1E 10/20 us, C6 133/600 us;
		 * C6 is core C6 (all threads must request it).
		 * Turbo: AWS g4dn page "up to 3.5 GHz"; AWS M5 page
		 * "sustained all core Turbo CPU frequency of up to 3.1 GHz"
		 * for the 8259CL (product page, not re-checked in this
		 * session; range 3.1-3.5 to sweep).  dTLB: 64 entries (Intel optimization
		 * manual, Skylake-SP).  L1d 32 KiB, L2 1 MiB (XML).
		 */
		.name = "Xeon Platinum 8259CL (Cascade Lake)",
		.match = { "8259CL" }, .vmm = VMM_VMX,
		.idle = { { "C1", 2000, 2000, false },
			  { "C1E", 10000, 20000, false },
			  { "C6", 133000, 600000, true } }, .nidle = 3,
		.f1_ghz = 3.5, .fall_ghz = 3.1, .tlb_entries = 64,
		.l1d_bytes = 32768, .l2_bytes = 1048576,
	},
	{
		/*
		 * memorysidecaches: Xeon Gold 6230 (Cascade Lake): skx table
		 * as above.  Intel ARK: max turbo 3.9 GHz; all-core turbo
		 * 2.8 GHz (Intel 2nd gen Xeon Scalable spec update; not
		 * re-checked in this session: a range 2.8-3.1 to sweep).
		 */
		.name = "Xeon Gold 6230 (Cascade Lake)",
		.match = { "Gold 6230" }, .vmm = VMM_VMX,
		.idle = { { "C1", 2000, 2000, false },
			  { "C1E", 10000, 20000, false },
			  { "C6", 133000, 600000, true } }, .nidle = 3,
		.f1_ghz = 3.9, .fall_ghz = 2.8, .tlb_entries = 64,
		.l1d_bytes = 32768, .l2_bytes = 1048576,
	},
	{
		/*
		 * knl: Xeon Phi 7250.  6.12 intel_idle knl_cstates: C1 1/2 us,
		 * C6 120/500 us (core C6).  Intel ARK: 1.4 GHz base, 1.6 GHz
		 * max turbo; all-tile turbo 1.5 GHz (Intel Xeon Phi x200
		 * product brief).  L1 dTLB 64 entries (Sodani et al., IEEE
		 * Micro 36(2), 2016).
		 */
		.name = "Xeon Phi 7250 (Knights Landing)",
		.match = { "Phi" }, .vmm = VMM_VMX,
		.idle = { { "C1", 1000, 2000, false },
			  { "C6", 120000, 500000, true } }, .nidle = 2,
		.f1_ghz = 1.6, .fall_ghz = 1.5, .tlb_entries = 64,
		.l1d_bytes = 32768, .l2_bytes = 1048576,
	},
	{
		/*
		 * epyc-corona: EPYC 7401 (Zen 1 "Naples", not Zen 2: the XML
		 * says "AMD EPYC 7401", SOURCES.md too).  No intel_idle:
		 * acpi_idle with the BIOS _CST.  Typical EPYC _CST: C1 (FFH
		 * MWAIT) 1 us, C2 (I/O port, core CC6) 400 us, as reported for
		 * an EPYC 7502P in FreeBSD review D47444; Zen 1 assumed the
		 * same.  target_residency = 2 x latency (processor_idle.c
		 * latency_factor).  AMD: base 2.0, all-core boost 2.8, max
		 * boost 3.0 GHz.  L1 dTLB 64 entries (AMD Zen SOG).
		 */
		.name = "EPYC 7401 (Zen 1)",
		.match = { "EPYC 7401" }, .vmm = VMM_SVM,
		.idle = { { "C1", 1000, 2000, false },
			  { "C2", 400000, 800000, true } }, .nidle = 2,
		.f1_ghz = 3.0, .fall_ghz = 2.8, .tlb_entries = 64,
		.l1d_bytes = 32768, .l2_bytes = 524288,
	},
	{
		/*
		 * 128arm: HiSilicon Kunpeng 920 (TaiShan v110), found by its
		 * Huawei DMI board.  No public LPI table for it was found:
		 * WFI only, exit 1 us as arm's generic WFI state
		 * (ARM_CPUIDLE_WFI_STATE in arch/arm/include/asm/cpuidle.h).
		 * Fixed 2.6 GHz, no turbo (Huawei Kunpeng 920 spec).  L1
		 * dTLB 32 entries: no public figure, assumed.
		 */
		.name = "Kunpeng 920",
		.match = { "aarch64", "Huawei" }, .vmm = VMM_ARM64,
		.idle = { { "WFI", 1000, 1000, false } }, .nidle = 1,
		.f1_ghz = 2.6, .fall_ghz = 2.6, .tlb_entries = 32,
		.l1d_bytes = 65536, .l2_bytes = 524288,
	},
	{
		/*
		 * coral-lassen: POWER9.  skiboot hw/slw.c
		 * power9_cpu_idle_states ("estimated values"): stop0_lite
		 * 1/10 us, stop0 2/20 us, stop1 5/50 us, stop2 10/100 us;
		 * deeper states need >= 10 ms, beyond avg_idle's 1 ms cap.
		 * stop2 taken as core level.  WOF boost per active core:
		 * no public curve, flat.  TLB: assumed 64.
		 */
		.name = "POWER9",
		.match = { "POWER9" }, .vmm = VMM_PPC,
		.idle = { { "stop0_lite", 1000, 10000, false },
			  { "stop0", 2000, 20000, false },
			  { "stop1", 5000, 50000, false },
			  { "stop2", 10000, 100000, true } }, .nidle = 4,
		.f1_ghz = 1, .fall_ghz = 1, .tlb_entries = 64,
		.l1d_bytes = 32768, .l2_bytes = 524288,
	},
	{
		/*
		 * Raptor Lake i7-1370P: 6.12 intel_idle has no RAPTORLAKE_P
		 * entry (ACPI _CST); the adl_l_cstates table is the proxy:
		 * C1 1/1, C1E 2/4, C6 170/500 us.  Turbo curve not public:
		 * flat.
		 */
		.name = "Core i7-1370P (Raptor Lake)",
		.match = { "i7-1370P" }, .vmm = VMM_VMX,
		.idle = { { "C1", 1000, 1000, false },
			  { "C1E", 2000, 4000, false },
			  { "C6", 170000, 500000, true } }, .nidle = 3,
		.f1_ghz = 1, .fall_ghz = 1, .tlb_entries = 64,
		.l1d_bytes = 49152, .l2_bytes = 1310720,
	},
	/*
	 * The families: a CPU model with no table of its own gets its
	 * architecture's and vendor's, never another architecture's.  Each
	 * is an assumption (named in bench/notes/costs.md): the shallowest
	 * idle state the family's 6.12 driver always has, no turbo curve,
	 * and that architecture's KVM (its migration cost, its halt-poll
	 * default and adaptation, costs.c).
	 */
	{
		/* POWER (not POWER9, e.g. POWER8/10): KVM HV; stop0_lite
		 * as POWER9's skiboot table, the shallowest stop state */
		.name = "POWER (generic)", .family = true,
		.match = { "ppc64" }, .vmm = VMM_PPC,
		.idle = { { "stop0_lite", 1000, 10000, false } }, .nidle = 1,
		.f1_ghz = 1, .fall_ghz = 1, .tlb_entries = 64,
		.l1d_bytes = 32768, .l2_bytes = 524288,
	},
	{
		/* other arm64 (e.g. the GB10's Cortex-X925/A725): WFI only,
		 * no turbo curve, arm64 KVM; an assumption */
		.name = "arm64 (generic)", .family = true,
		.match = { "aarch64" }, .vmm = VMM_ARM64,
		.idle = { { "WFI", 1000, 1000, false } }, .nidle = 1,
		.f1_ghz = 1, .fall_ghz = 1, .tlb_entries = 48,
		.l1d_bytes = 65536, .l2_bytes = 1048576,
	},
	{
		/* other AMD (e.g. Zen 5 laptops): C1 only, SVM; assumed */
		.name = "AMD (generic)", .family = true,
		.match = { "AuthenticAMD" }, .vmm = VMM_SVM,
		.idle = { { "C1", 1000, 2000, false } }, .nidle = 1,
		.f1_ghz = 1, .fall_ghz = 1, .tlb_entries = 64,
		.l1d_bytes = 49152, .l2_bytes = 1048576,
	},
	{
		/* other Intel: C1 only (1 us), no turbo, Cascade Lake
		 * caches and TLB, VMX; assumed */
		.name = "Intel (generic)", .family = true,
		.match = { "GenuineIntel" }, .vmm = VMM_VMX,
		.idle = { { "C1", 1000, 1000, false } }, .nidle = 1,
		.f1_ghz = 1, .fall_ghz = 1, .tlb_entries = 64,
		.l1d_bytes = 32768, .l2_bytes = 1048576,
	},
	{
		/* x86 whose vendor the XML does not name: as Intel */
		.name = "x86 (generic, vendor unknown: Intel assumed)",
		.family = true,
		.match = { "x86_64" }, .vmm = VMM_VMX,
		.idle = { { "C1", 1000, 1000, false } }, .nidle = 1,
		.f1_ghz = 1, .fall_ghz = 1, .tlb_entries = 64,
		.l1d_bytes = 32768, .l2_bytes = 1048576,
	},
	{
		/* an XML that names no architecture at all (none shipped
		 * does): nothing to go by, so x86's figures, said in the
		 * name so that no result hides it */
		.name = "unknown architecture (x86 assumed)", .family = true,
		.match = { "" }, .vmm = VMM_VMX,
		.idle = { { "C1", 1000, 1000, false } }, .nidle = 1,
		.f1_ghz = 1, .fall_ghz = 1, .tlb_entries = 64,
		.l1d_bytes = 32768, .l2_bytes = 1048576,
	},
};

const int ncpu_models = sizeof(cpu_models) / sizeof(cpu_models[0]);

const char *
cpus_vmm_name(enum cpu_vmm v)
{
	switch (v) {
	case VMM_VMX:
		return "VMX";
	case VMM_SVM:
		return "SVM";
	case VMM_ARM64:
		return "arm64";
	case VMM_PPC:
		return "POWER HV";
	}
	return "?";
}

/* Appends every info value of @o to @buf (for substring matching). */
static void
add_infos(hwloc_obj_t o, char *buf, size_t len)
{
	unsigned int i;

	for (i = 0; i < o->infos_count; i++) {
		size_t n = strlen(buf);

		if (n + 2 >= len)
			return;
		snprintf(buf + n, len - n, "%s|", o->infos[i].value);
	}
}

static bool
matches(const struct cpu_model *m, const char *infos)
{
	int i;

	for (i = 0; i < 3 && m->match[i]; i++)
		if (!strstr(infos, m->match[i]))
			return false;
	return true;
}

const struct cpu_model *
cpus_identify(const char *path, double *l1d, double *l2, bool *l2_shared)
{
	const struct cpu_model *m = &cpu_models[ncpu_models - 1];
	hwloc_topology_t topo;
	hwloc_obj_t o, pu, core;
	char infos[8192] = "";
	int i;

	*l1d = *l2 = 0;
	*l2_shared = false;
	if (hwloc_topology_init(&topo) < 0)
		return m;
	if (hwloc_topology_set_xml(topo, path) < 0 ||
	    hwloc_topology_load(topo) < 0)
		goto out;
	add_infos(hwloc_get_root_obj(topo), infos, sizeof(infos));
	o = NULL;
	while ((o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PACKAGE, o)))
		add_infos(o, infos, sizeof(infos));
	for (i = 0; i < ncpu_models; i++)
		if (matches(&cpu_models[i], infos)) {
			m = &cpu_models[i];
			break;
		}
	pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, 0);
	core = pu ? hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE,
	    pu) : NULL;
	for (o = pu ? pu->parent : NULL; o; o = o->parent) {
		if (o->type == HWLOC_OBJ_L1CACHE &&
		    o->attr->cache.type != HWLOC_OBJ_CACHE_INSTRUCTION)
			*l1d = (double)o->attr->cache.size;
		if (o->type == HWLOC_OBJ_L2CACHE) {
			*l2 = (double)o->attr->cache.size;
			*l2_shared = core && hwloc_bitmap_weight(o->cpuset) >
			    hwloc_bitmap_weight(core->cpuset);
		}
	}
out:
	hwloc_topology_destroy(topo);
	if (*l1d <= 0)
		*l1d = m->l1d_bytes;
	if (*l2 <= 0)
		*l2 = m->l2_bytes;
	return m;
}

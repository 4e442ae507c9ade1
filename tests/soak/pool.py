"""The soak's VM pool: which domains exist, how they are defined, and
what the harness believes each one's state and policy is.

Every domain is named vpsoak-*; cleanup() removes those and nothing else.
The guest is the integration tests' (tests/integration/guest/build.sh):
TCG, 96 MiB, no disk, no network.

The pool is sized for this 2-CPU host (2 cores, 2 LLCs of one PU each):
exactly one dedicated VM of one vCPU, since a second exclusive PU would
leave the shared VMs nothing; no `isolated` VM for the same reason (it
takes a whole core too).  Everything else is shared (balanced, latency,
throughput, or no metadata: the host default) or `mode off`.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
import vmlib  # noqa: E402

PREFIX = "vpsoak-"

# name, profile (None: no metadata), vcpus (max), hot-pluggable, persistent
SPEC = (
    ("ded0", "dedicated", 1, False, True),
    ("off0", "off", 1, False, True),
    ("off1", "off", 1, False, False),
    ("bal0", "balanced", 2, True, True),
    ("bal1", "balanced", 2, True, True),
    ("bal2", "balanced", 1, False, False),
    ("bal3", "balanced", 2, False, False),
    ("lat0", "latency", 2, True, True),
    ("lat1", "latency", 1, False, True),
    ("lat2", "latency", 1, False, False),
    ("thr0", "throughput", 2, False, True),
    ("thr1", "throughput", 1, False, True),
    ("thr2", "throughput", 2, True, False),
    ("nom0", None, 1, False, True),
)

# Good live metadata a burst may end with, for a shared VM: each keeps
# the allowed set inside one LLC (so "placed" stays recognisable, see
# README) and none is exclusive (the host has room for one exclusive
# VM, ded0).  "off" hands the VM back to libvirt.
GOOD_SHARED = (
    ("balanced", None),
    ("latency", None),
    ("throughput", None),
    ("balanced", {"smt": "any"}),
    ("latency", {"priority": "low", "cache_hot": "no"}),
    ("off", None),
)

# Bad metadata: each must be refused with the VM keeping its policy.
BAD = (
    '<policy profile="nonexistent"/>',
    '<policy profile="balanced"><smt>sometimes</smt></policy>',
    '<policy profile="balanced"><smt>any</smt><smt>any</smt></policy>',
    '<policy profile="balanced"><bogus>1</bogus></policy>',
    '<policy/>',
    '<policy profile="../../etc/passwd"/>',
    '<policy profile="balanced"><mode>dedicated-ish</mode></policy>',
    '<policy profile="balanced">' + "<priority>high</priority>" * 40 +
    '</policy>',
)


def profile_localities(policies):
    """{profile name: locality} read from the profile files in
    @policies, so the checker knows each VM's locality domain."""
    out = {}
    for f in os.listdir(policies):
        if f.endswith(".xml"):
            with open(os.path.join(policies, f)) as fh:
                m = re.search(r"<locality>\s*(\w+)\s*</locality>",
                              fh.read())
            if m:
                out[f[:-4]] = m.group(1)
    return out


def locality_groups(topo, online):
    """vmlib.load_topology()'s map of the online PUs only, which
    checker.widened_groups() widens for a VM's size."""
    return {lvl: {pu: set(g) & set(online) for pu, g in m.items()
                  if pu in online}
            for lvl, m in topo.items()}


class Dom:
    """One pool domain and what the harness knows of it.  state is one
    of shutoff, running, paused, saved (a `virsh save` file exists),
    managedsaved (persistent, image held by libvirt)."""

    def __init__(self, tag, profile, vcpus, hotplug, persistent):
        self.name = PREFIX + tag
        self.profile = profile
        self.vcpus_max = vcpus
        self.hotplug = hotplug
        self.persistent = persistent
        self.off_pool = profile == "off"
        self.dedicated = profile == "dedicated"
        self.state = "shutoff"
        self.save_file = None
        self.xml = None
        # the live policy the harness last wrote: (profile, fields)
        self.live = (profile, None)
        # action bookkeeping, written under the harness lock
        self.busy = False
        self.gen = 0
        self.settle_from = 0.0

    def mode(self):
        """The mode the daemon should apply: off, shared or dedicated."""
        prof = self.live[0]
        if prof == "off":
            return "off"
        if prof == "dedicated":
            return "dedicated"
        return "shared"

    def locality(self, localities):
        """The live policy's locality (no burst overrides it)."""
        return localities.get(self.live[0] or "balanced", "llc")

    def initial_vcpus(self):
        return 1 if self.hotplug else self.vcpus_max

    def metadata(self):
        if self.profile is None:
            return None
        return vmlib.policy_xml(self.profile)


def domain_xml(dom, guestdir, rundir):
    """The domain XML: vmlib's, with hot-pluggable vCPUs when asked
    (<vcpu current=1>N</vcpu> and a <vcpus> list, vCPU 0 fixed)."""
    console = os.path.join(rundir, dom.name + ".console")
    xml = vmlib.domain_xml(dom.name, dom.vcpus_max,
                   os.path.join(guestdir, "vmlinuz"),
                   os.path.join(guestdir, "initramfs.gz"), console,
                   metadata=dom.metadata())
    if dom.hotplug:
        vcpus = "".join(
            "<vcpu id='%d' enabled='%s' hotpluggable='%s'/>" % (
                i, "yes" if i == 0 else "no",
                "no" if i == 0 else "yes")
            for i in range(dom.vcpus_max))
        xml = re.sub(r"<vcpu placement='static'>(\d+)</vcpu>",
                 r"<vcpu placement='static' current='1'>\1</vcpu>"
                 "\n  <vcpus>%s</vcpus>" % vcpus, xml)
    return xml


def build(guestdir, rundir):
    """The pool's Dom objects, each with its XML written to @rundir;
    persistent ones are defined (not started)."""
    doms = []
    for spec in SPEC:
        d = Dom(*spec)
        d.xml = os.path.join(rundir, d.name + ".xml")
        with open(d.xml, "w") as f:
            f.write(domain_xml(d, guestdir, rundir))
        if d.persistent:
            vmlib.virsh("define", d.xml, timeout=180)
        doms.append(d)
    return doms


def cleanup():
    """Destroys and undefines every vpsoak-* domain (managed save images
    too).  Returns the names removed."""
    gone = []
    for name in vmlib.list_domains():
        if not name.startswith(PREFIX):
            continue
        vmlib.virsh("destroy", name, check=False)
        vmlib.virsh("undefine", name, "--managed-save", check=False)
        gone.append(name)
    return gone

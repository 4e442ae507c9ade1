"""Test VMs for the vcpuplace integration tests, through `virsh` only
(python3 standard library, no libvirt bindings).

Every VM this module creates is named vptest-*; cleanup_all() removes
every domain with that prefix and touches nothing else.  A VM is a
TCG QEMU guest (<domain type='qemu'>: /dev/kvm cannot run guests here),
96 MiB, no disk, no network, direct kernel boot of the guest that
guest/build.sh makes, its serial console written to a file.

Affinity is read both ways a placement can be checked:
  vcpupin_live(dom)       `virsh vcpupin DOM --live`, libvirt's view
  thread_affinity(dom, n) Cpus_allowed_list of the QEMU thread named
                          "CPU n/TCG" (or "CPU n/KVM"), the kernel's view
"""
import os
import re
import shutil
import subprocess
import time

import locality

URI = "qemu:///system"
PREFIX = "vptest-"
POLICY_NS = "urn:vcpuplace:policy:1"
POLICY_KEY = "vp"
QEMU = "/usr/bin/qemu-system-x86_64"
PIDDIR = "/run/libvirt/qemu"
READY = "VPGUEST READY"


GUEST_FILES = ("vmlinuz", "initramfs.gz")


class VirshError(RuntimeError):
    pass


def virsh(*args, uri=URI, check=True, timeout=60):
    """Runs virsh -c URI ARGS; returns stdout.  Raises VirshError (with
    stderr) on failure when @check."""
    cmd = ["virsh", "-q", "-c", uri] + [str(a) for a in args]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        raise VirshError("timeout after %ss: %s" % (timeout, " ".join(cmd)))
    if check and p.returncode != 0:
        raise VirshError("%s: %s" % (" ".join(cmd), p.stderr.strip()))
    return p.stdout


# ---- CPU lists --------------------------------------------------------

def parse_cpulist(s):
    """'0-2,5' -> {0,1,2,5}.  Raises ValueError on junk."""
    out = set()
    s = s.strip()
    if not s:
        return out
    for part in s.split(","):
        part = part.strip()
        if "-" in part:
            a, b = part.split("-", 1)
            a, b = int(a), int(b)
            if b < a:
                raise ValueError("bad range %r" % part)
            out.update(range(a, b + 1))
        else:
            out.add(int(part))
    return out


def format_cpulist(cpus):
    """{0,1,2,5} -> '0-2,5'."""
    cpus = sorted(set(cpus))
    out = []
    i = 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(out)


def host_cpus():
    """The host's online CPUs, as a set."""
    with open("/sys/devices/system/cpu/online") as f:
        return parse_cpulist(f.read())


# ---- policy metadata ---------------------------------------------------

def policy_xml(profile=None, fields=None, ns=True):
    """The <vp:policy> metadata element.  @fields: dict of child elements
    (mode, smt, locality, priority, ...).  With ns=False, the bare
    <policy> text `virsh metadata --key vp --set` wants."""
    attrs = ""
    if ns:
        attrs += ' xmlns:vp="%s"' % POLICY_NS
    if profile is not None:
        attrs += ' profile="%s"' % profile
    tag = "vp:policy" if ns else "policy"
    kids = "".join("<%s%s>%s</%s%s>" % ("vp:" if ns else "", k, v,
                                        "vp:" if ns else "", k)
                   for k, v in (fields or {}).items())
    if not kids:
        return "<%s%s/>" % (tag, attrs)
    return "<%s%s>%s</%s>" % (tag, attrs, kids, tag)


def set_policy(dom, profile=None, fields=None, raw=None):
    """Changes the live metadata of @dom (as an admin would), either to
    profile/fields or to the @raw element text (may be invalid on
    purpose)."""
    text = raw if raw is not None else policy_xml(profile, fields, ns=False)
    virsh("metadata", dom, "--uri", POLICY_NS, "--key", POLICY_KEY,
          "--set", text, "--live")


def get_policy(dom):
    out = virsh("metadata", dom, "--uri", POLICY_NS, "--live", check=False)
    return out.strip() or None


# ---- VMs -------------------------------------------------------------

def domain_xml(name, vcpus, kernel, initrd, console, work="idle",
               metadata=None, memory_mib=96):
    meta = ""
    if metadata:
        meta = "  <metadata>%s</metadata>\n" % metadata
    return """<domain type='qemu'>
  <name>%(name)s</name>
  <memory unit='MiB'>%(mem)d</memory>
  <vcpu placement='static'>%(vcpus)d</vcpu>
%(meta)s  <os>
    <type arch='x86_64'>hvm</type>
    <kernel>%(kernel)s</kernel>
    <initrd>%(initrd)s</initrd>
    <cmdline>console=ttyS0 quiet panic=-1 vp.work=%(work)s</cmdline>
  </os>
  <features><acpi/></features>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>destroy</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <emulator>%(qemu)s</emulator>
    <serial type='file'>
      <source path='%(console)s'/>
      <target port='0'/>
    </serial>
    <controller type='usb' model='none'/>
    <video><model type='none'/></video>
    <memballoon model='none'/>
  </devices>
</domain>
""" % dict(name=name, mem=memory_mib, vcpus=vcpus, meta=meta, kernel=kernel,
           initrd=initrd, work=work, qemu=QEMU, console=console)


class VM:
    def __init__(self, name, console, persistent):
        self.name = name
        self.console = console
        self.persistent = persistent

    def __repr__(self):
        return "VM(%s)" % self.name

    def console_text(self):
        try:
            with open(self.console, errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def wait_ready(self, timeout=180):
        """Waits for "VPGUEST READY" on the console; raises on timeout
        or when the domain stops."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if READY in self.console_text():
                return
            if not is_running(self.name):
                raise RuntimeError("%s stopped before %r; console:\n%s" % (
                    self.name, READY, self.console_text()[-2000:]))
            time.sleep(0.2)
        raise RuntimeError("%s: no %r within %ss; console tail:\n%s" % (
            self.name, READY, timeout, self.console_text()[-2000:]))

    def qemu_pid(self):
        return qemu_pid(self.name)

    def destroy(self):
        destroy(self.name)


def guest_copy(guestdir, rundir):
    """Copies the guest (guest/build.sh's kernel and initramfs) into
    RUNDIR/guest and returns that folder.  QEMU runs as another user
    (libvirt-qemu) and opens them itself: the cache in the checkout's
    build/ is out of its reach when the checkout sits under a folder only
    root can enter (/root is 0700).  @rundir must be reachable (0755 all
    the way up)."""
    out = os.path.join(rundir, "guest")
    os.makedirs(out, exist_ok=True)
    os.chmod(out, 0o755)
    for f in GUEST_FILES:
        shutil.copyfile(os.path.join(guestdir, f), os.path.join(out, f))
        os.chmod(os.path.join(out, f), 0o644)
    return out


def start_vm(name, guestdir, rundir, vcpus=1, work="idle", metadata=None,
             persistent=False, wait=True, timeout=180):
    """Creates and starts vptest-NAME (prefix added if missing).
    @metadata: policy element text (policy_xml()), or None.  Transient
    unless @persistent (then defined, started, undefined by destroy()).
    With @wait, returns once the guest printed VPGUEST READY."""
    if not name.startswith(PREFIX):
        name = PREFIX + name
    console = os.path.join(os.path.abspath(rundir), name + ".console")
    try:
        os.unlink(console)
    except FileNotFoundError:
        pass
    guestdir = os.path.abspath(guestdir)
    xml = domain_xml(name, vcpus, os.path.join(guestdir, "vmlinuz"),
                     os.path.join(guestdir, "initramfs.gz"), console,
                     work=work, metadata=metadata)
    path = os.path.join(rundir, name + ".xml")
    with open(path, "w") as f:
        f.write(xml)
    if persistent:
        virsh("define", path)
        virsh("start", name)
    else:
        virsh("create", path)
    vm = VM(name, console, persistent)
    if wait:
        vm.wait_ready(timeout)
    return vm


def is_running(name):
    out = virsh("domstate", name, check=False)
    return out.strip() == "running"


def list_domains(uri=URI):
    out = virsh("list", "--all", "--name", uri=uri)
    return [l.strip() for l in out.splitlines() if l.strip()]


def destroy(name):
    """Stops and removes @name (vptest-* only); no error if gone."""
    if not name.startswith(PREFIX):
        raise ValueError("refusing to touch %r (not %s*)" % (name, PREFIX))
    virsh("destroy", name, check=False)
    virsh("undefine", name, check=False)


def cleanup_all():
    """Removes every vptest-* domain, running or defined.  Returns the
    names removed."""
    gone = []
    for name in list_domains():
        if name.startswith(PREFIX):
            destroy(name)
            gone.append(name)
    return gone


# ---- affinity --------------------------------------------------------

def qemu_pid(name):
    """The QEMU process of running domain @name, from libvirt's pid file."""
    with open(os.path.join(PIDDIR, name + ".pid")) as f:
        pid = int(f.read().strip())
    if not os.path.exists("/proc/%d" % pid):
        raise RuntimeError("%s: qemu pid %d is gone" % (name, pid))
    return pid


_VCPU_COMM = re.compile(r"^CPU (\d+)/(TCG|KVM)$")


def vcpu_threads(name):
    """{vcpu index: tid} from the QEMU threads named "CPU N/TCG"."""
    pid = qemu_pid(name)
    out = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                comm = f.read().strip()
        except OSError:
            continue
        m = _VCPU_COMM.match(comm)
        if m:
            out[int(m.group(1))] = int(tid)
    return out


def tid_affinity(tid):
    """Cpus_allowed_list of thread @tid, as a set."""
    with open("/proc/%d/status" % tid) as f:
        for line in f:
            if line.startswith("Cpus_allowed_list:"):
                return parse_cpulist(line.split(":", 1)[1])
    raise RuntimeError("no Cpus_allowed_list for tid %d" % tid)


def thread_affinity(name, vcpu):
    """The kernel's affinity of vCPU @vcpu of @name, as a set."""
    threads = vcpu_threads(name)
    if vcpu not in threads:
        raise RuntimeError("%s: no thread 'CPU %d/TCG' (have %s)" % (
            name, vcpu, sorted(threads)))
    return tid_affinity(threads[vcpu])


def parse_vcpupin(text):
    """Parses `virsh vcpupin DOM` output (with or without -q header):
        VCPU   CPU Affinity
       ----------------------
        0      0-1
    into {vcpu: set}."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^\s*(\d+)\s*:?\s+([0-9,\-]+)\s*$", line)
        if m:
            out[int(m.group(1))] = parse_cpulist(m.group(2))
    return out


def vcpupin_live(name, uri=URI):
    """{vcpu: set} from `virsh vcpupin NAME --live`."""
    return parse_vcpupin(virsh("vcpupin", name, "--live", uri=uri))


def set_vcpupin(name, vcpu, cpus):
    """Pins vCPU @vcpu of @name to @cpus (set or cpulist string), live."""
    if not isinstance(cpus, str):
        cpus = format_cpulist(cpus)
    virsh("vcpupin", name, vcpu, cpus, "--live")


# ---- host topology (as vcpuplace models it) ----------------------------

def load_topology(ctl):
    """{'llc'|'cluster'|'numa'|'package'|'core': {pu: set of PUs sharing
    it}} from `vcpuplacectl topology --json`, or None if @ctl cannot
    tell."""
    import json
    try:
        p = subprocess.run([ctl, "topology", "--json"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True, timeout=30)
        pus = json.loads(p.stdout)["pu"]
        return locality.domains(pus)
    except (OSError, ValueError, KeyError, subprocess.TimeoutExpired):
        return None

#!/usr/bin/env python3
"""make demo: three tiny QEMU VMs under libvirt with different policies,
vcpuplaced placing them, and a live view of where every vCPU sits.

    demo.py PATH/TO/vcpuplaced [SECONDS]

The VMs are named vptest-demo-* and are removed at the end."""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import vmlib  # noqa: E402

VMS = [  # name, vCPUs, profile, guest work
    ("demo-latency", 2, "latency", "burn"),
    ("demo-dedicated", 1, "dedicated", "idle"),
    ("demo-balanced", 2, "balanced", "idle"),
]


def show(status_path, t0):
    try:
        with open(status_path) as f:
            st = json.load(f)
    except (OSError, ValueError):
        return
    print("\033[2J\033[H", end="")
    print("vcpuplaced live view  t=%.0fs  tick %d  connected=%s  "
          "core_sched=%s  invalid_metadata=%d" % (
              time.monotonic() - t0, st["tick"], st["connected"],
              st["core_sched"], st["invalid_metadata"]))
    print("%-22s %-10s %4s %6s %8s %-8s %-13s %s" % (
        "VM", "PROFILE", "VCPU", "TID", "ON-CPU", "ALLOWED", "REASON",
        "virsh vcpupin"))
    for vm in st["vms"]:
        try:
            pins = vmlib.vcpupin_live(vm["name"])
        except Exception:  # the VM may be going away
            pins = {}
        for v in vm["vcpus"]:
            print("%-22s %-10s %4d %6d %8s %-8s %-13s %s" % (
                vm["name"], vm["policy"]["profile"], v["vcpu"], v["tid"],
                v["current"], v["allowed"], v["reason"],
                vmlib.format_cpulist(pins.get(v["vcpu"], set()))))
        if vm["error"]:
            print("    error: %s" % vm["error"])


def main(argv):
    daemon = os.path.abspath(argv[0])
    secs = int(argv[1]) if len(argv) > 1 else 20
    for cmd in (["sh", os.path.join(HERE, "libvirt-up.sh")],
                ["sh", os.path.join(HERE, "guest", "build.sh"),
                 os.path.join(ROOT, "build", "integration-guest")]):
        subprocess.run(cmd, check=True)
    vmlib.cleanup_all()
    run = tempfile.mkdtemp(prefix="vptest-demo-")
    os.chmod(run, 0o755)
    guest = os.path.join(ROOT, "build", "integration-guest")
    status = os.path.join(run, "status.json")
    vms, proc = [], None
    try:
        for name, n, profile, work in VMS:
            print("starting %s (%d vCPU, profile %s)" % (name, n, profile))
            vms.append(vmlib.start_vm(name, guest, run, vcpus=n, work=work,
                                      metadata=vmlib.policy_xml(profile)))
        proc = subprocess.Popen([daemon, "--connect", "qemu:///system",
                                 "--policies", os.path.join(ROOT, "policies"),
                                 "--status-file", status, "--tick", "250"],
                                stderr=open(os.path.join(run, "daemon.log"),
                                            "w"))
        t0 = time.monotonic()
        while time.monotonic() - t0 < secs:
            show(status, t0)
            time.sleep(1)
        print("\ndaemon log:")
        with open(os.path.join(run, "daemon.log")) as f:
            print(f.read())
    finally:
        if proc:
            proc.terminate()
            proc.wait(timeout=10)
        for vm in vms:
            vm.destroy()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

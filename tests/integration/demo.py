#!/usr/bin/env python3
"""make demo: three tiny QEMU VMs under libvirt with different policies,
vcpuplaced placing them, what `vcpuplacectl status`, `explain` and
`metrics` say about them, and last the live view, `vcpuplacectl top`.

    demo.py PATH/TO/vcpuplaced [SECONDS]

The VMs are named vptest-demo-* and are removed at the end."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import vmlib  # noqa: E402

CTL = None     # vcpuplacectl, beside the daemon

VMS = [  # name, vCPUs, profile, guest work
    ("demo-latency", 2, "latency", "burn"),
    ("demo-dedicated", 1, "dedicated", "idle"),
    ("demo-balanced", 2, "balanced", "idle"),
]


def ctl(*args):
    """vcpuplacectl's output (the binary beside the daemon's)."""
    return subprocess.run([CTL] + list(args), capture_output=True,
                          text=True).stdout


def wait_placed(sock, timeout=30):
    """Until every vCPU of the demo VMs has a home in the status."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            st = json.loads(ctl("status", "--socket", sock, "--json"))
            vms = [v for v in st["vms"] if v["name"].startswith("vptest-")]
            if len(vms) == len(VMS) and all(
                    c["home"] is not None for v in vms for c in v["vcpus"]):
                return
        except ValueError:
            pass
        time.sleep(0.5)


def live_view(sock, secs):
    """vcpuplacectl top: on the terminal when there is one, else one
    screen of it captured through tmux (a log, CI)."""
    if sys.stdout.isatty():
        subprocess.run([CTL, "top", "--socket", sock, "--frames",
                        str(secs * 4)])
        return
    session = "vpdemo%d" % os.getpid()
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "140",
                    "-y", "40", CTL, "top", "--socket", sock], check=True)
    time.sleep(3)
    print(subprocess.run(["tmux", "capture-pane", "-p", "-t", session],
                         capture_output=True, text=True).stdout)
    subprocess.run(["tmux", "kill-session", "-t", session])


def main(argv):
    global CTL
    daemon = os.path.abspath(argv[0])
    CTL = os.path.join(os.path.dirname(daemon), "vcpuplacectl")
    secs = int(argv[1]) if len(argv) > 1 else 20
    for cmd in (["sh", os.path.join(HERE, "libvirt-up.sh")],
                ["sh", os.path.join(HERE, "guest", "build.sh"),
                 os.path.join(ROOT, "build", "integration-guest")]):
        subprocess.run(cmd, check=True)
    vmlib.cleanup_all()
    run = tempfile.mkdtemp(prefix="vptest-demo-")
    os.chmod(run, 0o755)
    # QEMU runs as libvirt-qemu: a copy it can reach (see vmlib)
    guest = vmlib.guest_copy(os.path.join(ROOT, "build",
                                          "integration-guest"), run)
    status = os.path.join(run, "status.json")
    vms, proc = [], None
    try:
        for name, n, profile, work in VMS:
            print("starting %s (%d vCPU, profile %s)" % (name, n, profile))
            vms.append(vmlib.start_vm(name, guest, run, vcpus=n, work=work,
                                      metadata=vmlib.policy_xml(profile)))
        sock = os.path.join(run, "vcpuplaced.sock")
        proc = subprocess.Popen([daemon, "--connect", "qemu:///system",
                                 "--policies", os.path.join(ROOT, "policies"),
                                 "--status-file", status, "--socket", sock,
                                 "--tick", "250", "--trust-metadata"],
                                stderr=open(os.path.join(run, "daemon.log"),
                                            "w"))
        wait_placed(sock)
        print("\n$ vcpuplacectl status")
        print(ctl("status", "--socket", sock))
        print("$ vcpuplacectl explain vptest-demo-latency 1")
        print(ctl("explain", "--socket", sock, "vptest-demo-latency", "1"))
        print("$ vcpuplacectl metrics | grep -E 'managed_vcpus|moves_total'")
        print("\n".join(l for l in ctl("metrics", "--socket", sock)
                        .splitlines() if not l.startswith("#") and
                        ("managed_vcpus" in l or "moves_total" in l)))
        print("\n$ vcpuplacectl top   (q quits)")
        time.sleep(2)
        live_view(sock, secs)
        print("\ndaemon log:")
        with open(os.path.join(run, "daemon.log")) as f:
            print(f.read())
    finally:
        if proc:
            proc.terminate()
            proc.wait(timeout=10)
        for vm in vms:
            vm.destroy()
        shutil.rmtree(guest, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

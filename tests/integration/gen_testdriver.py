#!/usr/bin/env python3
"""Writes a libvirt test-driver node file: N running domains of VCPUS
vCPUs each, for `--connect test:///ABS/PATH/OUT.xml` (libvirt's "mock"
driver, https://libvirt.org/drvtest.html: a <node> holding the host's
<cpu> and <memory> and any number of <domain type='test'>; every domain
listed starts running unless <test:runstate> says otherwise, and we say
running (1) explicitly).

    gen_testdriver.py N VCPUS OUT.xml [--host-cpus C]

The fake host has C CPUs (default: this machine's count), 1 NUMA node,
1 socket, C cores, 1 thread: nodeinfo then agrees with the live host the
daemon models with hwloc.  Every 10th domain carries a vcpuplace policy
in its <metadata> (profile balanced) so metadata reading is exercised;
the rest have none (host default).
"""
import argparse
import os
import sys
import uuid

TEST_NS = "http://libvirt.org/schemas/domain/test/1.0"
VP_NS = "urn:vcpuplace:policy:1"


def domain_xml(i, vcpus):
    name = "vptest-td-%04d" % i
    u = uuid.UUID(int=(0x5650 << 112) | i)      # stable, unique
    meta = ""
    if i % 10 == 0:
        meta = ("  <metadata>\n"
                "    <vp:policy xmlns:vp='%s' profile='balanced'/>\n"
                "  </metadata>\n" % VP_NS)
    return (
        "<domain type='test' xmlns:test='%s'>\n"
        "  <name>%s</name>\n"
        "  <uuid>%s</uuid>\n"
        "%s"
        "  <memory unit='KiB'>98304</memory>\n"
        "  <currentMemory unit='KiB'>98304</currentMemory>\n"
        "  <vcpu placement='static'>%d</vcpu>\n"
        "  <test:runstate>1</test:runstate>\n"
        "  <os><type arch='x86_64'>hvm</type></os>\n"
        "  <on_poweroff>destroy</on_poweroff>\n"
        "  <on_reboot>restart</on_reboot>\n"
        "  <on_crash>destroy</on_crash>\n"
        "  <devices/>\n"
        "</domain>\n" % (TEST_NS, name, u, meta, vcpus))


def node_xml(n, vcpus, host_cpus):
    parts = ["<node>\n",
             "<cpu>\n"
             "  <nodes>1</nodes>\n"
             "  <sockets>1</sockets>\n"
             "  <cores>%d</cores>\n"
             "  <threads>1</threads>\n"
             "  <active>%d</active>\n"
             "  <mhz>2000</mhz>\n"
             "  <model>x86_64</model>\n"
             "</cpu>\n" % (host_cpus, host_cpus),
             "<memory>%d</memory>\n" % (max(n * 98304 * 2, 8 << 20))]
    for i in range(n):
        parts.append(domain_xml(i, vcpus))
    parts.append("</node>\n")
    return "".join(parts)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n", type=int)
    ap.add_argument("vcpus", type=int)
    ap.add_argument("out")
    ap.add_argument("--host-cpus", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args(argv)
    if a.n < 0 or a.vcpus < 1 or a.host_cpus < 1:
        ap.error("N >= 0, VCPUS >= 1, --host-cpus >= 1")
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        f.write(node_xml(a.n, a.vcpus, a.host_cpus))
    os.replace(tmp, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

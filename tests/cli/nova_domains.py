#!/usr/bin/env python3
"""Writes N domain XML files, as `virsh dumpxml` writes a Nova instance,
into DIR: each wraps tests/nova/instance-1.1.xml (Nova's own metadata
element, tests/nova/SOURCES) with its name, uuid, flavor and vCPU count
varied; every tenth carries a vcpuplace element of its own.

    nova_domains.py DIR N
"""
import os
import sys
import uuid

FLAVORS = [("gold.large", 4), ("silver.medium", 2), ("m1.small", 1)]
NOVA = os.path.join(os.path.dirname(__file__), "..", "nova",
                    "instance-1.1.xml")
OWN = ('<vp:policy xmlns:vp="urn:vcpuplace:policy:1" profile="throughput">'
       '<vp:smt>siblings</vp:smt></vp:policy>\n')


def domain(i, nova):
    flavor, vcpus = FLAVORS[i % len(FLAVORS)]
    name = "instance-%08x" % (i + 1)
    u = str(uuid.UUID(int=0x5a0e3c2e8f434c399d430c9d00000000 + i))
    meta = (nova.replace("gold.large", flavor)
            .replace("<nova:vcpus>2</nova:vcpus>",
                     "<nova:vcpus>%d</nova:vcpus>" % vcpus)
            .replace("<nova:name>web-07</nova:name>",
                     "<nova:name>web-%03d</nova:name>" % i))
    own = OWN if i % 10 == 9 else ""
    return f"""<domain type='kvm' id='{i + 1}'>
  <name>{name}</name>
  <uuid>{u}</uuid>
  <metadata>
    {meta.strip()}
    {own}</metadata>
  <memory unit='KiB'>{vcpus * 1048576}</memory>
  <currentMemory unit='KiB'>{vcpus * 1048576}</currentMemory>
  <vcpu placement='static'>{vcpus}</vcpu>
  <cputune>
    <shares>{vcpus * 1024}</shares>
  </cputune>
  <sysinfo type='smbios'>
    <system>
      <entry name='manufacturer'>OpenStack Foundation</entry>
      <entry name='product'>OpenStack Nova</entry>
      <entry name='serial'>{u}</entry>
      <entry name='uuid'>{u}</entry>
      <entry name='family'>Virtual Machine</entry>
    </system>
  </sysinfo>
  <os>
    <type arch='x86_64' machine='pc-q35-8.2'>hvm</type>
    <boot dev='hd'/>
    <smbios mode='sysinfo'/>
  </os>
  <cpu mode='host-model' check='partial'>
    <topology sockets='{vcpus}' dies='1' cores='1' threads='1'/>
  </cpu>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <disk type='file' device='disk'>
      <driver name='qemu' type='qcow2' cache='none'/>
      <source file='/var/lib/nova/instances/{u}/disk'/>
      <target dev='vda' bus='virtio'/>
    </disk>
  </devices>
</domain>
"""


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    with open(NOVA) as f:
        nova = f.read()
    os.makedirs(out, exist_ok=True)
    for i in range(n):
        with open(os.path.join(out, "instance-%08x.xml" % (i + 1)),
                  "w") as f:
            f.write(domain(i, nova))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""tests/sim/renumber.py IN OUT - the same machine, PUs relabelled.

Writes a copy of the hwloc XML IN whose PUs' OS numbers are dealt again
by a fixed rule that turns the sibling interleave over:
  - the cores, in the file's order, are riffled: c0, ch, c1, ch+1, ...
    (h = ceil(ncores / 2)), so consecutive numbers cross clusters, LLCs
    and packages in another order;
  - where the file numbers a core's siblings consecutively (POWER's
    4c .. 4c+3, the P-cores of a hybrid), the copy numbers them apart,
    first sibling of every core, then the second, ... (x86's i, i + n/2);
    where it numbers them apart, the copy numbers each core's siblings
    together.
The k-th PU of that listing gets the k-th smallest of the file's own PU
numbers, so the set of numbers stays the same.  Every cpuset-like
attribute of every element is remapped the same way; bits of no PU keep
their place.  Caches, cores, packages, kinds and distances (indexed by
NUMA node, not PU) are the same objects: the same machine, so a model
that reads the topology and not CPU numbers gives the same answer.
"""
import re
import sys
import xml.etree.ElementTree as ET

MEMORY_OR_IO = ('NUMANode', 'MemCache', 'Bridge', 'PCIDev', 'OSDev',
                'Misc')
BITMAP = re.compile(r'^(0x[0-9a-fA-F]*)?(,(0x[0-9a-fA-F]*)?)*$')


def parse(text):
    """hwloc's bitmap text: 32-bit words, most significant first;
    '0xf...f' first means every higher bit is set (returned as inf)."""
    words = text.split(',')
    inf = words[0] == '0xf...f'
    if inf:
        words = words[1:]
    bits = set()
    for k, w in enumerate(reversed(words)):
        v = int(w, 16) if w not in ('', '0x') else 0
        for b in range(32):
            if v >> b & 1:
                bits.add(32 * k + b)
    return bits, (32 * len(words) if inf else None)


def unparse(bits, inf_from):
    top = max(bits) + 1 if bits else 1
    if inf_from is not None:
        top = max(top, inf_from)
    nwords = (top + 31) // 32
    words = []
    for k in reversed(range(nwords)):
        v = 0
        for b in range(32):
            if 32 * k + b in bits:
                v |= 1 << b
        words.append('0x%08x' % v)
    if inf_from is not None:
        words.insert(0, '0xf...f')
    return ','.join(words)


def main():
    src, dst = sys.argv[1], sys.argv[2]
    tree = ET.parse(src)
    root = tree.getroot()
    parent = {c: p for p in root.iter() for c in p}
    pus = [e for e in root.iter('object') if e.get('type') == 'PU']
    cores, core_of = [], {}
    for e in pus:
        a = parent.get(e)
        while a is not None and a.get('type') != 'Core':
            a = parent.get(a)
        key = id(a) if a is not None else id(e)
        if key not in core_of:
            core_of[key] = len(cores)
            cores.append([])
        cores[core_of[key]].append(e)
    for c in cores:
        c.sort(key=lambda e: int(e.get('os_index')))
    half = (len(cores) + 1) // 2
    riffled = []
    for k in range(half):
        riffled.append(cores[k])
        if half + k < len(cores):
            riffled.append(cores[half + k])
    first = [int(e.get('os_index')) for e in cores[0]]
    together = first == list(range(first[0], first[0] + len(first)))
    if together and len(first) > 1:
        listing = [c[r] for r in range(max(map(len, cores)))
                   for c in riffled if r < len(c)]
    else:
        listing = [e for c in riffled for e in c]
    os_sorted = sorted(int(e.get('os_index')) for e in pus)
    perm = {int(e.get('os_index')): os_sorted[k]
            for k, e in enumerate(listing)}
    assert sorted(perm.values()) == os_sorted
    for e in pus:
        e.set('os_index', str(perm[int(e.get('os_index'))]))
    for e in root.iter():
        for k, v in list(e.attrib.items()):
            if not k.endswith('cpuset') or not BITMAP.match(v.replace(
                    '0xf...f', '0x0')):
                continue
            bits, inf_from = parse(v)
            if inf_from is not None and any(b >= inf_from for b in perm):
                sys.exit('renumber: infinite cpuset over the PUs')
            e.set(k, unparse({perm.get(b, b) for b in bits}, inf_from))
    # hwloc wants each object's CPU children in cpuset order
    for e in root.iter():
        kids = [c for c in e if c.tag == 'object' and c.get('cpuset') and
                c.get('type') not in MEMORY_OR_IO]
        if len(kids) < 2:
            continue
        slots = [i for i, c in enumerate(e) if c in kids]
        kids.sort(key=lambda c: min(parse(c.get('cpuset'))[0] or {0}))
        for i, c in zip(slots, kids):
            e[i] = c
    tree.write(dst, xml_declaration=True, encoding='UTF-8')


if __name__ == '__main__':
    main()

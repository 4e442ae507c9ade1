#!/usr/bin/env python3
"""Self-test of the soak's judging code, without libvirt: the placement
rule (checker.vcpu_placed), the leak rule (checker.growth), the p99
(soak.percentile) and the parsing of one batched `virsh vcpupin` run.
Each case says what a broken rule would let through.

    python3 tests/soak/selftest.py      # prints `soak selftest: N passed`
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checker  # noqa: E402
import pool  # noqa: E402
import soak  # noqa: E402

F = frozenset
ONLINE = F({0, 1})
# this host: 1 LLC of 2 PUs, each core its own cluster
TOPO = {"cluster": {0: {0}, 1: {1}}, "llc": {0: {0, 1}, 1: {0, 1}},
        "numa": {0: {0, 1}, 1: {0, 1}}, "core": {0: {0}, 1: {1}}}


class W:
    groups = pool.locality_groups(TOPO, ONLINE)


# two LLCs of two single-PU cores (clusters are cores), one node
ONLINE4 = F({0, 1, 2, 3})
TOPO4 = {"cluster": {p: {p} for p in ONLINE4},
         "llc": {0: {0, 1}, 1: {0, 1}, 2: {2, 3}, 3: {2, 3}},
         "numa": {p: set(ONLINE4) for p in ONLINE4},
         "core": {p: {p} for p in ONLINE4}}


class W4:
    groups = pool.locality_groups(TOPO4, ONLINE4)


CASES = [
    # (host, mode, locality, vCPUs, affinity, dedicated PU of another VM,
    # placed?)
    (W, "dedicated", "llc", 1, F({1}), None, True),
    (W, "dedicated", "llc", 1, ONLINE, None, False),    # not pinned yet
    (W, "shared", "cluster", 1, F({0}), None, True),
    # a one-core cluster is no locality: the LLC, here the whole host
    (W, "shared", "cluster", 1, ONLINE, None, True),
    (W, "shared", "llc", 2, ONLINE, None, True),
    (W, "shared", "llc", 1, ONLINE, 1, False),          # on the dedicated PU
    (W, "shared", "llc", 1, F({0}), 1, True),
    (W, "shared", "cluster", 1, F({1}), 1, False),
    # widened to its LLC, not past it: a set across LLCs is unplaced
    (W4, "shared", "cluster", 1, F({0, 1}), None, True),
    (W4, "shared", "cluster", 2, F({1, 2}), None, False),
    # three vCPUs: no LLC holds three cores, so the node
    (W4, "shared", "llc", 3, F({1, 2, 3}), None, True),
    (W4, "shared", "llc", 2, F({1, 2, 3}), None, False),
]


def main():
    n = 0
    for host, mode, loc, nv, aff, ded, want in CASES:
        got = checker.vcpu_placed(host, mode, loc, aff, ded, nv)
        assert got == want, (mode, loc, nv, aff, ded, got)
        n += 1
    # leaks: thirds of [0, 90): warm-up, second, last; only clean
    # samples of the given pid count
    flat = [(t, 7, 20, 4000, True) for t in range(90)]
    assert checker.growth(flat, 0, 90, 7)[:2] == (0, 0)
    leak = [(t, 7, 20 + (t >= 60), 4000 + 10 * t, True) for t in range(90)]
    fd, rss, _, _ = checker.growth(leak, 0, 90, 7)
    assert fd == 1 and rss == 300, (fd, rss)
    dirty = [(t, 7, 20 + (t >= 60), 4000, t < 60) for t in range(90)]
    assert checker.growth(dirty, 0, 90, 7)[0] is None
    # the slope: 10 KiB/s after warm-up is 36000 KiB/h; flat is 0
    assert abs(checker.rss_slope(leak, 0, 90, 7) - 36000) < 1e-6
    assert checker.rss_slope(flat, 0, 90, 7) == 0
    assert checker.rss_slope(dirty, 0, 90, 7) == 0
    assert checker.rss_slope(leak, 0, 90, 8) is None    # another pid
    n += 4
    assert soak.percentile(list(range(1, 101)), 99) == 99
    assert soak.percentile([5], 99) == 5
    n += 2
    # the batched virsh output as seen on libvirt 8 with -q: the first
    # row shares the echo's line (a parser that took the whole line as
    # the name compared nothing in the first real run)
    got = checker.parse_vcpupins("@@vpsoak-a 0   0-1\n 1   1\n"
                                 "@@vpsoak-b 0   1\n@@vpsoak-c\n")
    assert got == {"vpsoak-a": {0: F({0, 1}), 1: F({1})},
                   "vpsoak-b": {0: F({1})}}, got
    got = checker.parse_vcpupins("@@vpsoak-a\n 0: 0-1\n")
    assert got == {"vpsoak-a": {0: F({0, 1})}}, got
    n += 2
    print("soak selftest: %d passed" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())

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


CASES = [
    # (mode, locality, affinity, dedicated PU of another VM, placed?)
    ("dedicated", "llc", F({1}), None, True),
    ("dedicated", "llc", ONLINE, None, False),      # not pinned yet
    ("shared", "cluster", F({0}), None, True),
    ("shared", "cluster", ONLINE, None, False),     # latency VM unplaced
    ("shared", "llc", ONLINE, None, True),
    ("shared", "llc", ONLINE, 1, False),            # on the dedicated PU
    ("shared", "llc", F({0}), 1, True),
    ("shared", "cluster", F({1}), 1, False),
]


def main():
    n = 0
    for mode, loc, aff, ded, want in CASES:
        got = checker.vcpu_placed(W, mode, loc, aff, ded)
        assert got == want, (mode, loc, aff, ded, got)
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

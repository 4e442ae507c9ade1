#!/usr/bin/env python3
"""Writes the seed corpus of fz_kvm_stats: KVM binary stats files laid out
as the kernel's kvm_stats_read() does (struct kvm_stats_header, then the
id string, descriptors of 16 bytes + name_size, the data block), with the
stock 6.12 generic vCPU stats and patch 1's wake counters.

    python3 tests/fuzz/gen_kvm_stats.py tests/fuzz/corpus/kvm_stats
"""
import os
import struct
import sys

COUNTER, INSTANT, HIST = 0x0, 0x1, 0x4
SECONDS, BOOLEAN = 0x2 << 4, 0x4 << 4

STOCK = [("halt_successful_poll", COUNTER, 1), ("halt_attempted_poll",
         COUNTER, 1), ("halt_poll_invalid", COUNTER, 1),
         ("halt_wakeup", COUNTER, 1), ("halt_poll_success_ns", COUNTER, 1),
         ("halt_poll_fail_ns", COUNTER, 1), ("halt_wait_ns", COUNTER, 1),
         ("halt_poll_success_hist", HIST | SECONDS, 32),
         ("halt_poll_fail_hist", HIST | SECONDS, 32),
         ("halt_wait_hist", HIST | SECONDS, 32),
         ("blocking", INSTANT | BOOLEAN, 1)]
WAKE = [("halt_wake_home", COUNTER, 1), ("halt_wake_smt_busy", COUNTER, 1),
        ("halt_wake_migrated", COUNTER, 1)]


def build(stats, name_size=48):
    hdr = 24
    stride = 16 + name_size
    desc_off = hdr + name_size
    data_off = desc_off + len(stats) * stride
    out = struct.pack("<6I", 0, name_size, len(stats), hdr, desc_off,
                      data_off)
    out += b"kvm-4242/vcpu-0".ljust(name_size, b"\0")
    off = 0
    data = b""
    for i, (name, flags, size) in enumerate(stats):
        exp = -9 if flags & SECONDS else 0
        out += struct.pack("<IhHII", flags, exp, size, off,
                           1 if flags & HIST else 0)
        out += name.encode().ljust(name_size, b"\0")[:name_size]
        data += struct.pack("<Q", 100 + i) * size
        off += 8 * size
    return out + data


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    seeds = {"patched": build(STOCK + WAKE),
             "stock-6.12": build(STOCK),
             "patched-no-halt-wakeup": build(
                 [s for s in STOCK if s[0] != "halt_wakeup"] + WAKE),
             "patched-name64": build(STOCK + WAKE, 64)}
    for name, data in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Puts the bandwidth lines of bench_tensor_ops built against FreeDNN and
against NVIDIA's cuDNN side by side, relative to the cudaMemcpy D2D copy
each run measured itself.

Usage: bench_table.py ours.txt theirs.txt
"""
import sys


def parse(path):
    rows = {}
    order = []
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) < 3 or parts[0] != "bench":
                    continue
                name = parts[1]
                kv = dict(p.split("=", 1) for p in parts[2:] if "=" in p)
                if "failed" in parts:
                    rows[name] = None
                else:
                    rows[name] = (float(kv["gbs"]), float(kv["ms"]))
                order.append(name)
    except FileNotFoundError:
        pass
    return rows, order


def main(argv):
    ours, order = parse(argv[1])
    theirs, torder = parse(argv[2])
    for n in torder:
        if n not in order:
            order.append(n)
    copy_o = (ours.get("memcpy.d2d.f32") or (0, 0))[0]
    copy_t = (theirs.get("memcpy.d2d.f32") or (0, 0))[0]
    hdr = f"{'operation':28} {'ours GB/s':>10} {'cuDNN GB/s':>10} {'ours/copy':>9} {'ours/cuDNN':>10}"
    print(hdr)
    print("-" * len(hdr))
    for n in order:
        o, t = ours.get(n), theirs.get(n)
        os_ = f"{o[0]:10.1f}" if o else f"{'fail' if n in ours else '-':>10}"
        ts_ = f"{t[0]:10.1f}" if t else f"{'fail' if n in theirs else '-':>10}"
        rc = f"{o[0] / copy_o:9.2f}" if o and copy_o else f"{'-':>9}"
        rt = f"{o[0] / t[0]:10.2f}" if o and t else f"{'-':>10}"
        print(f"{n:28} {os_} {ts_} {rc} {rt}")
    if copy_t:
        print(f"(copy measured in the cuDNN run: {copy_t:.1f} GB/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Tables of dev/vmlab/bench-fidelity.sh.

usage: fidelity_table.py FIDELITY_TXT --results DIR
FIDELITY_TXT holds "workload target real|replay run wall_ns ops divergent
mount_behaviour" lines; DIR the replays' JSON summaries (WORKLOAD.TARGET.RUN.json).
Prints (markdown) the error of the median think-mode replay against the median
real run per workload and target, with divergent ops, and the per-class mean
latency of the 9p and virtiofs replays relative to the ext4 replays of the same
traces (all workloads pooled): the lab's figures for slowfs. Exit 1 when a row
misses |error| <= 10% or divergences (less the mount's own behaviour) <= 0.1%.
"""
import argparse
import collections
import glob
import json
import os
import statistics
import sys

TARGETS = ("ext4", "9p", "virtiofs")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fidelity")
    ap.add_argument("--results", required=True)
    a = ap.parse_args()
    real, rep = collections.defaultdict(list), collections.defaultdict(list)
    div = collections.Counter()
    for line in open(a.fidelity):
        p = line.split()
        if len(p) != 8:
            continue
        w, t, kind = p[0], p[1], p[2]
        wall, ops, d, m = int(p[4]), int(p[5]), int(p[6]), int(p[7])
        if kind == "real":
            real[(w, t)].append(wall)
        else:
            rep[(w, t)].append(wall)
            div[(w, t, "ops")] += ops
            div[(w, t, "div")] += d
            div[(w, t, "mount")] += max(m, 0)
    workloads = list(dict.fromkeys(w for w, _ in real))
    ok = True
    print("| workload | target | real (median) | think-mode replay (median) | error | divergent ops | of them the mount's behaviour |")
    print("|---|---|---|---|---|---|---|")
    for w in workloads:
        for t in TARGETS:
            if not real[(w, t)] or not rep[(w, t)]:
                print(f"| {w} | {t} | missing | | | | |")
                ok = False
                continue
            r, p = statistics.median(real[(w, t)]), statistics.median(rep[(w, t)])
            err = (p - r) * 100 / r
            ops, d, m = div[(w, t, "ops")], div[(w, t, "div")], div[(w, t, "mount")]
            pct = 100.0 * d / ops if ops else 0
            print(f"| {w} | {t} | {r / 1e9:.3f} s | {p / 1e9:.3f} s | {err:+.1f}% | {d} of {ops} ({pct:.3f}%) | {m} |")
            if abs(err) > 10 or (100.0 * (d - m) / ops if ops else 0) > 0.1:
                ok = False
    # Per-class latency of the replays, 9p and virtiofs against ext4, pooled.
    tot = collections.defaultdict(lambda: [0, 0])
    for f in glob.glob(os.path.join(a.results, "*.*.*.json")):
        parts = os.path.basename(f).split(".")
        if len(parts) != 4 or parts[1] not in TARGETS:
            continue
        try:
            j = json.load(open(f))
        except (json.JSONDecodeError, OSError):
            continue
        for cls, v in j.get("by_class", {}).items():
            tot[(parts[1], cls)][0] += v["total_ns"]
            tot[(parts[1], cls)][1] += v["count"]
    classes = sorted({c for (_, c) in tot if tot[("ext4", c)][1]})
    print("\nPer-class mean latency of the replays (all workloads, all runs), and the ratio to ext4:\n")
    print("| class | ops per run set | ext4 mean | 9p mean | 9p:ext4 | virtiofs mean | virtiofs:ext4 |")
    print("|---|---|---|---|---|---|---|")
    for c in classes:
        row = []
        e = tot[("ext4", c)]
        em = e[0] / e[1]
        for t in ("9p", "virtiofs"):
            x = tot[(t, c)]
            xm = x[0] / x[1] if x[1] else 0
            row += [f"{xm / 1e3:.1f} us", f"{xm / em:.2f}" if em else "-"]
        print(f"| {c} | {e[1]} | {em / 1e3:.1f} us | {' | '.join(row)} |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

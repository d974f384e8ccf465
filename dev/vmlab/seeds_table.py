#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Medians of the lab's seeds benchmark beside the published WSL table.

usage: seeds_table.py SEEDS_TXT [--small N] [--repo TEXT] [--runs N]
SEEDS_TXT holds "round target operation ns" lines (dev/vmlab/guest/seeds.sh).
Prints a markdown table: the lab's medians (s) on ext4, 9p and virtiofs, and
the ratios 9p:virtiofs, 9p:ext4, virtiofs:ext4 beside the published ones
(WSL 3.0.1, the seeds' published WSL 3.0.1 figures). Exit 1 if a cell is missing.
"""
import argparse
import statistics
import sys

# operation -> (published 9p s, virtiofs s, ext4 s), WSL 3.0.1, vscode clone.
PUBLISHED = {
    "clone": ("git clone", 305.1, 112.8, 3.84),
    "status1": ("git status (1st)", 17.9, 8.4, 0.23),
    "status2": ("git status (2nd)", 17.7, 8.2, 0.08),
    "find": ("find -type f | wc -l", 7.92, 2.96, 0.05),
    "du": ("du -sh", 16.6, 4.17, 0.05),
    "create": ("create {n} small files", 7.64, 3.03, 0.10),
    "ls": ("ls -l of those", 4.97, 2.29, 0.02),
    "rmsmall": ("remove them", 2.56, 1.65, 0.04),
    "rmrepo": ("remove the repository", 20.2, 10.7, 0.49),
}
TARGETS = ("ext4", "9p", "virtiofs")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("seeds")
    ap.add_argument("--small", type=int, default=5000)
    ap.add_argument("--repo", default="")
    ap.add_argument("--runs", type=int, default=0)
    a = ap.parse_args()
    times = {}
    with open(a.seeds) as f:
        for line in f:
            p = line.split()
            if len(p) != 4:
                continue
            times.setdefault((p[1], p[2]), []).append(int(p[3]) / 1e9)
    missing = [(t, op) for op in PUBLISHED for t in TARGETS if (t, op) not in times]
    if missing:
        print(f"seeds_table: {a.seeds} lacks {missing[:3]}... (did the guest run fail?)", file=sys.stderr)
        return 1
    med = {k: statistics.median(v) for k, v in times.items()}
    rounds = max(len(v) for v in times.values())
    print(f"Lab medians of {rounds} rounds; repository: {a.repo}; published: WSL 3.0.1, vscode 1.140.0.\n")
    print("| operation | lab ext4 s | lab 9p s | lab virtiofs s | 9p:virtiofs lab | published | "
          "9p:ext4 lab | published | virtiofs:ext4 lab | published |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for op, (name, p9, pv, pe) in PUBLISHED.items():
        e, n, v = med[("ext4", op)], med[("9p", op)], med[("virtiofs", op)]
        print(f"| {name.format(n=f'{a.small:,}')} | {e:.3f} | {n:.3f} | {v:.3f} | {n / v:.2f} | {p9 / pv:.2f} | "
              f"{n / e:.1f} | {p9 / pe:.1f} | {v / e:.1f} | {pv / pe:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

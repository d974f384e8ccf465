#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""slowfs latencies for WSL2's 9p and virtiofs, from the lab's replays.

usage: slowfs_from_lab.py RESULTS_DIR [--anchor-stat-us 1020]
RESULTS_DIR holds the JSON summaries of bench-fidelity.sh's replays
(WORKLOAD.TARGET.RUN.json, with by_class totals and counts). Inside one guest
TCG slows every mount alike, so only differences and ratios carry over. The
extra time a 9p or virtiofs call costs over the same call on the guest's ext4,
per syscall class, is scaled by one published figure: a stat() on WSL2's
/mnt/c over 9p costs ~1,020 us against ~1.7 us on ext4 (microsoft/WSL#7038).
So scale = 1,018.3 us / (lab 9p stat - lab ext4 stat), and each class's added
latency = scale * (lab mount mean - lab ext4 mean). A path call on slowfs
pays a LOOKUP plus its own request; the profile splits stat's added cost
evenly between lookup and stat (as the built-in profiles do) and takes the
lookup out of the other path classes. Prints the per-class table and a
`--lat` list for each mount.
"""
import argparse
import collections
import glob
import json
import os
import sys

# syscall class -> (slowfs class, pays a lookup first)
SLOWFS = {"stat": ("stat", True), "open": ("open", True), "close": ("close", False),
          "read": ("read", False), "write": ("write", False), "readdir": ("readdir", False),
          "mkdir": ("mkdir", True), "rmdir": ("rmdir", True), "unlink": ("unlink", True),
          "rename": ("rename", True), "link": ("link", True), "attr": ("attr", True),
          "xattr": ("xattr", True), "sync": ("sync", False)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--anchor-stat-us", type=float, default=1020.0)
    ap.add_argument("--anchor-ext4-us", type=float, default=1.7)
    a = ap.parse_args()
    tot = collections.defaultdict(lambda: [0, 0])
    for f in glob.glob(os.path.join(a.results, "*.*.*.json")):
        parts = os.path.basename(f).split(".")
        if len(parts) != 4 or parts[1] not in ("ext4", "9p", "virtiofs"):
            continue
        try:
            j = json.load(open(f))
        except (OSError, json.JSONDecodeError):
            continue
        for cls, v in j.get("by_class", {}).items():
            tot[(parts[1], cls)][0] += v["total_ns"]
            tot[(parts[1], cls)][1] += v["count"]
    mean = {k: v[0] / v[1] / 1e3 for k, v in tot.items() if v[1]}
    if ("9p", "stat") not in mean or ("ext4", "stat") not in mean:
        print(f"slowfs_from_lab: no stat replays under {a.results}", file=sys.stderr)
        return 1
    scale = (a.anchor_stat_us - a.anchor_ext4_us) / (mean[("9p", "stat")] - mean[("ext4", "stat")])
    print(f"scale: {scale:.3f} (published 9p stat {a.anchor_stat_us:.0f} us over ext4's {a.anchor_ext4_us} us, "
          f"lab 9p stat {mean[('9p', 'stat')]:.1f} us, ext4 {mean[('ext4', 'stat')]:.1f} us)\n")
    print("| syscall class | lab ext4 us | lab 9p us | lab virtiofs us | 9p:ext4 | virtiofs:ext4 | 9p:virtiofs | added 9p us | added virtiofs us |")
    print("|---|---|---|---|---|---|---|---|---|")
    added = {}
    for cls in SLOWFS:
        if ("ext4", cls) not in mean:
            continue
        e = mean[("ext4", cls)]
        p, v = mean.get(("9p", cls)), mean.get(("virtiofs", cls))
        if p is None or v is None:
            continue
        ap9, av = max(0.0, scale * (p - e)), max(0.0, scale * (v - e))
        added[cls] = (ap9, av)
        print(f"| {cls} | {e:.1f} | {p:.1f} | {v:.1f} | {p / e:.2f} | {v / e:.2f} | {p / v:.2f} | {ap9:.0f} | {av:.0f} |")
    for i, mount in enumerate(("9p", "virtiofs")):
        lookup = added["stat"][i] / 2
        lat = [f"lookup={lookup:.0f}us"]
        for cls, (sc, walks) in SLOWFS.items():
            if cls in added:
                lat.append(f"{sc}={max(0.0, added[cls][i] - (lookup if walks and cls != 'stat' else 0) - (lookup if cls == 'stat' else 0)):.0f}us")
        print(f"\nwsl2-{mount} from the lab: " + ",".join(lat))
    return 0


if __name__ == "__main__":
    sys.exit(main())

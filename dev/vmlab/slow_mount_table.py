#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The table of dev/vmlab/bench-slow-mount.sh.

usage: slow_mount_table.py SLOW_MOUNT_TXT
Rounds numbered 0 or less are warm-ups, left out. The file holds the guest's "run W MOUNT ROUND KIND SECONDS TWALK TGETATTR TOTAL
DIVERGENCES" and "pred W MOUNT SECONDS" lines (dev/vmlab/guest/slow-mount.sh).
Prints, per workload and mount, medians (min..max) over the rounds and each
replay's and predict's error against the real run's median, [its 95% interval]
(dev/bench/benchstats.py), and the median 9p request counts; then the gitplace
rows (errors against the real split run; predict all-9p against real all-9p).
"""
import collections
import statistics
import sys

from benchstats import ratio, spread


def cell(v, ref=None):
    if not v:
        return "-"
    s = spread(v)
    c = "%.2f (%.2f..%.2f)" % (s["median"], s["min"], s["max"])
    if ref:
        r = ratio(v, ref)
        c += " %+.1f%%" % (100 * (r["ratio"] - 1))
        if r["lo"] is not None:
            c += " [%+.0f,%+.0f]" % (100 * (r["lo"] - 1), 100 * (r["hi"] - 1))
    return c


def pred(p, ref):
    return "%.2f %+.1f%%" % (p, 100 * (p / statistics.median(ref) - 1)) if p is not None and ref else "-"


def counts(rows, i):
    v = [r[i] for r in rows if r[i] is not None]
    return "%d" % statistics.median(v) if v else "-"


def main():
    runs = collections.defaultdict(list)  # (w, mount, kind) -> [(secs, walk+getattr, total)]
    preds = {}
    types = collections.defaultdict(lambda: collections.defaultdict(list))  # (w, mount) -> type -> kind -> [n]
    for line in open(sys.argv[1]):
        p = line.split()
        if p and p[0] in ("run", "types") and len(p) > 3 and int(p[3]) <= 0:
            continue  # a warm-up round
        if len(p) == 10 and p[0] == "run" and p[5] != "?":
            num = lambda x: None if x == "-" else int(x)
            wg = None if p[6] == "-" else num(p[6]) + num(p[7])
            runs[(p[1], p[2], p[4])].append((float(p[5]), wg, num(p[8])))
        elif len(p) >= 5 and p[0] == "types":
            for kv in p[5:]:
                t, n = kv.split("=")
                types[(p[1], p[2])][(t, p[4])].append(int(n))
        elif len(p) == 4 and p[0] == "pred":
            preds[(p[1], p[2])] = float(p[3])
    secs = lambda w, m, k: [r[0] for r in runs.get((w, m, k), [])]
    print("%-7s %-9s %-20s %-20s %-34s %-34s %-14s %-22s %s" % (
        "work", "mount", "real s", "rec-mount s", "rp-mount s", "rp-ext4 s", "predict s",
        "TWALK+TGETATTR r/m/e", "9p req total r/m/e"))
    for w, m in dict.fromkeys((w, m) for (w, m, k) in runs if k == "real"):
        real = secs(w, m, "real")
        req = [runs.get((w, m, k), []) for k in ("real", "rpm", "rpe")]
        print("%-7s %-9s %-20s %-20s %-34s %-34s %-14s %-22s %s" % (
            w, m, cell(real), cell(secs(w, m, "rec")), cell(secs(w, m, "rpm"), real),
            cell(secs(w, m, "rpe"), real), pred(preds.get((w, m)), real),
            "/".join(counts(x, 1) for x in req), "/".join(counts(x, 2) for x in req)))
    placements = {"gitplace": "clone/.git", "cplace": "obj", "npmplace": "node_modules"}
    for pw in [w for w in placements if (w, "9p", "real-split") in runs]:
        split, alls = secs(pw, "9p", "real-split"), secs(pw, "9p", "real-all")
        print()
        print("%-9s %-20s %-20s %-34s %-16s %-16s %s" % (
            pw, "real all-9p s", "real split s", "rp-ext4 --place s", "predict split s",
            "predict all-9p s", "TWALK+TGETATTR all/split/rp"))
        req = [runs.get((pw, "9p", k), []) for k in ("real-all", "real-split", "rp-split")]
        print("%-9s %-20s %-20s %-34s %-16s %-16s %s" % (
            placements[pw], cell(alls), cell(split), cell(secs(pw, "9p", "rp-split"), split),
            pred(preds.get((pw, "split")), split), pred(preds.get((pw, "all9p")), alls),
            "/".join(counts(x, 1) for x in req)))
    for (w, m), per in types.items():
        kinds = ("real", "rpm", "rpe") if w not in placements else ("real-all", "real-split", "rp-split")
        names = sorted({t for (t, k) in per}, key=lambda t: -max(sum(per[(t, k)]) for k in kinds))
        med = lambda t, k: "%d" % statistics.median(per[(t, k)]) if per[(t, k)] else "0"
        print("# %s %s requests by type, medians (%s): %s" % (w, m, " / ".join(kinds), ", ".join(
            "%s %s" % (t, "/".join(med(t, k) for k in kinds)) for t in names)))
    print("# errors: each median against the real run's median (gitplace, cplace, npmplace: the real split run; predict all-9p:")
    print("# the real all-9p run), [95% interval] of the ratio of medians (dev/bench/benchstats.py, 3 rounds")
    print("# or more); (min..max) over the rounds; counts: medians of the 9p client's requests (r/m/e: real,")
    print("# replay of the mount's recording, of the ext4 one); '-': not counted (virtiofs has no counter here)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""One row of predict's validation: a replay's report against its baseline
(`fsreplay report RESULT --baseline BASE -f json`) beside `fsreplay predict
TRACE --profile P -f json` for the same trace and mount.

  predict_compare.py WORKLOAD TARGET REPORT.json PREDICT.json [--header]

Prints workload, target, replayed and predicted wall, the error, the
baseline's wall, the largest difference of any class's share of the
slowdown (points) and the top three classes (replayed/predicted %). Exit 1
when |error| > 10% or a share differs by more than 5 points (the issue's
acceptance), else 0.
"""
import json
import sys


def shares(report):
    return {c["class"]: c.get("share_of_slowdown") or 0.0 for c in report["classes"]}


def main(argv):
    if len(argv) >= 2 and argv[1] == "--header":
        print(f"{'workload':<12} {'target':<14} {'replayed':>11} {'predicted':>11} {'error':>7} {'baseline':>11} "
              f"{'max_dshare':>10}  shares (class replayed/predicted, top 3)")
        return 0
    if len(argv) != 5:
        print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        return 2
    w, t, rep, pre = argv[1:5]
    r = json.load(open(rep))
    p = json.load(open(pre))["reports"][0]
    rs, ps = shares(r), shares(p)
    d = max((abs(rs.get(c, 0) - ps.get(c, 0)) for c in set(rs) | set(ps)), default=0) * 100
    err = (p["wall_ns"] - r["wall_ns"]) * 100 / r["wall_ns"]
    top = sorted(rs, key=lambda c: -abs(rs[c]))[:3]
    txt = " ".join(f"{c} {rs[c] * 100:.0f}/{ps.get(c, 0) * 100:.0f}" for c in top)
    print(f"{w:<12} {t:<14} {r['wall_ns'] / 1e9:10.3f}s {p['wall_ns'] / 1e9:10.3f}s {err:+6.1f}% "
          f"{r['baseline_wall_ns'] / 1e9:10.3f}s {d:8.1f}pt  {txt}")
    return 0 if abs(err) <= 10 and d <= 5 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

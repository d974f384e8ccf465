#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Per recorded thread: when it started and how long it lived, recorded
against replayed, for one trace and one replay result of it.

    dev/bench/thread-drift.py TRACE RESULT [-b FSREPLAY]

Reads both with `fsreplay dump --json`. Prints one row per thread in
recorded start order: tid, program (the last path it exec'd), events,
start offset recorded/replayed (ms since the first event / the replay's
start), lifetime recorded/replayed, and the stretch (replayed minus
recorded lifetime). A thread whose replayed start drifts later than its
creator's is where the replay's timeline stretches: what the think clock
adds that the original did not have. Asserts nothing.
"""
import argparse
import collections
import json
import os
import subprocess
import sys


def dump(fsreplay, path):
    p = subprocess.run([fsreplay, "dump", "--json", path], capture_output=True, text=True)
    if p.returncode not in (0, 6):
        sys.exit("thread-drift: fsreplay dump %s failed: %s" % (path, p.stderr.strip().splitlines()[-1:]))
    return [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("result")
    ap.add_argument("-b", "--fsreplay", default=os.path.join(here, "..", "..", "build", "cli", "fsreplay"))
    a = ap.parse_args()
    events = dump(a.fsreplay, a.trace)
    ops = dump(a.fsreplay, a.result)
    if not events or not ops:
        sys.exit("thread-drift: %s or %s holds no events" % (a.trace, a.result))
    base = min(e["ts"] for e in events)
    rec = collections.defaultdict(lambda: {"start": None, "end": 0, "n": 0, "prog": "", "pid": 0})
    prog_of_pid = {}
    for e in events:
        r = rec[e["tid"]]
        t = e["ts"] - base
        r["start"] = t if r["start"] is None else min(r["start"], t)
        r["end"] = max(r["end"], t + e["dur"])
        r["n"] += 1
        r["pid"] = e["pid"]
        if e["name"] in ("execve", "execveat", "proc_exec") and e.get("path"):
            r["prog"] = prog_of_pid[e["pid"]] = e["path"].rsplit("/", 1)[-1]
    rep = collections.defaultdict(lambda: {"start": None, "end": 0})
    for o in ops:
        r = rep[o["tid"]]
        r["start"] = o["start"] if r["start"] is None else min(r["start"], o["start"])
        r["end"] = max(r["end"], o["start"] + o["latency"])
    print("%8s %-14s %6s %10s %10s %9s %9s %8s" % ("tid", "program", "events", "rec_start", "rep_start",
                                                   "rec_ms", "rep_ms", "stretch"))
    for tid in sorted(rec, key=lambda t: rec[t]["start"]):
        r, p = rec[tid], rep.get(tid)
        if not p or p["start"] is None:
            continue
        rl, pl = r["end"] - r["start"], p["end"] - p["start"]
        print("%8d %-14s %6d %10.3f %10.3f %9.3f %9.3f %+8.3f" % (tid, (r["prog"] or prog_of_pid.get(r["pid"], "?"))[:14], r["n"], r["start"] / 1e6,
                                                               p["start"] / 1e6, rl / 1e6, pl / 1e6, (pl - rl) / 1e6))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Prints a replay result's divergent ops, one per line, sorted:
event index, syscall, recorded result, replayed result, path.
usage: divergences.py FSREPLAY RESULT"""
import json, subprocess, sys

fsreplay, result = sys.argv[1:3]
p = subprocess.Popen([fsreplay, "dump", "--json", result], stdout=subprocess.PIPE, text=True)
rows = []
for line in p.stdout:
    o = json.loads(line)
    if o.get("flags", 0) & 1:  # kOfDivergent (traces/event.h)
        rows.append((o["event"], o["name"], o["recorded_ret"], o["ret"], o.get("path", "")))
if p.wait() != 0:
    sys.exit(f"divergences.py: fsreplay dump --json {result} failed")
for r in sorted(rows):
    print(*r, sep="\t")

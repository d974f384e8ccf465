#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `fsreplay compare TRACE --target A --target B` replays a recorded trace on
# each target in turn and prints one table. Checks the JSON:
# one run per target, in order, every op replayed, wall ratios present.
# Usage: compare_targets_e2e.sh FSREPLAY   (root: records with eBPF)
set -euo pipefail
fsreplay=$1
work=$(mktemp -d /var/tmp/fsreplay-cmp.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/rec" "$work/a" "$work/b" "$work/s"
(cd "$work/rec" && "$fsreplay" record -o "$work/t.trace" -- sh -c \
  'mkdir d; for i in 1 2 3 4 5 6 7 8; do echo x > d/f$i; done; ls -l d >/dev/null; cat d/* >/dev/null; rm -r d') \
  >"$work/record.log" 2>&1 || { cat "$work/record.log"; exit 1; }
"$fsreplay" compare "$work/t.trace" --target "$work/a" --target "$work/b" --scratch "$work/s" \
  --results-dir "$work" --format json >"$work/cmp.json"
python3 - "$work/cmp.json" "$work/a" "$work/b" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
runs = c["mounts"]
assert [r["target"] for r in runs] == sys.argv[2:4], [r["target"] for r in runs]
assert all(r["ops"] > 0 and r["complete"] for r in runs), runs
assert runs[0]["ops"] == runs[1]["ops"], "both replays cover the whole trace"
names = [r["row"] for r in c["rows"]]
assert "wall" in names and "write" in names, names
print("compare --target: %d runs, %d ops each, rows: %s" % (len(runs), runs[0]["ops"], ", ".join(map(str, names))))
PY

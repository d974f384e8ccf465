#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Replay fidelity of two fsreplay binaries, interleaved: does a change make
# the think-mode replay's error against the untraced run worse?
#
#   dev/bench/fidelity-ab.sh [-a ALTERNATIONS] [-n ROUNDS] [-w WORKLOADS] [-t TARGETS] OLD NEW
#     OLD, NEW        two fsreplay binaries (e.g. one built in a worktree at the old commit)
#     -a ALTERNATIONS how many times each binary runs the bench, alternating (default 3)
#     -n ROUNDS       rounds per bench run, after its warm-up round (default 4)
#     -w, -t          passed to replay-fidelity.sh (default: small,git,clone,npm on ext4)
#   Root; what replay-fidelity.sh needs. Prints every round as it ends, then
#   per workload and binary the medians over all rounds of the untraced run,
#   the recorded span, the replay, and of the per-round errors (replay
#   against the untraced run of the same round, and against its span).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
alts=3 rounds=4 workloads=small,git,clone,npm targets=ext4
while getopts "a:n:w:t:" o; do
  case $o in
    a) alts=$OPTARG ;; n) rounds=$OPTARG ;; w) workloads=$OPTARG ;; t) targets=$OPTARG ;;
    *) sed -n '2,15p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -ne 2 ]; then sed -n '2,15p' "$0" >&2; exit 2; fi
for b in "$1" "$2"; do
  [ -x "$b" ] || { echo "fidelity-ab: $b is not an executable fsreplay; build it first" >&2; exit 2; }
done
log=$(mktemp /tmp/fidelity-ab.XXXXXX)
trap 'rm -f "$log"' EXIT
for ((a = 0; a < alts; ++a)); do
  for which in old new; do
    bin=$1; [ $which = new ] && bin=$2
    echo "=== $which $(date +%T) load $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$log"
    # (replay-fidelity.sh exits 1 when an error is outside its bound: not a failure here)
    "$here/replay-fidelity.sh" -n "$rounds" -w "$workloads" -t "$targets" -b "$bin" --raw 2>&1 | tee -a "$log" || true
  done
done
python3 - "$log" "$1" "$2" <<'PY'
import re, sys, statistics as st
rows = {}
which = None
for line in open(sys.argv[1]):
    m = re.match(r'=== (old|new) ', line)
    if m:
        which = m.group(1)
        continue
    m = re.match(r'run (\w+)\s+(\w+)\s+round (\d+): untraced ([\d.]+) s, span ([\d.]+) s, replay ([\d.]+) s', line)
    if m and which and int(m.group(3)) > 0:  # round 0 is the warm-up
        w, t = m.group(1), m.group(2)
        rows.setdefault((w, t, which), []).append(tuple(float(x) for x in m.groups()[3:]))
print(f"\nold = {sys.argv[2]}\nnew = {sys.argv[3]}")
print(f"{'workload':8} {'target':7} {'bin':4} {'rounds':>6} {'untraced':>9} {'span':>8} {'replay':>8} {'error':>8} {'vs-span':>8}")
for (w, t, b), v in sorted(rows.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] != 'old')):
    med = lambda f: st.median(f(x) for x in v)
    print(f"{w:8} {t:7} {b:4} {len(v):6d} {med(lambda x: x[0]):8.3f}s {med(lambda x: x[1]):7.3f}s "
          f"{med(lambda x: x[2]):7.3f}s {100 * med(lambda x: x[2] / x[0] - 1):+7.1f}% {100 * med(lambda x: x[2] / x[1] - 1):+7.1f}%")
PY

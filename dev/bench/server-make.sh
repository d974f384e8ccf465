#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# server-make.sh — a parallel build on a mount that serializes (issue 45
# item 4): `make -jJ` of a generated C project on slowfs with --server-slots
# S (S requests served at once, the rest queue), for every S in SLOTS and J
# in JOBS. Each cell is one run of slow-mount-fidelity.sh -w cbuild: a probe
# of that mount (for predict), the untraced build on a fresh backing store
# (the truth), its recording on the mount and the replay of it, the replay of
# a recording made on the local disk, and predict of that recording; rounds
# interleaved, medians with min..max and each column's error against the real
# build. Prints every cell's full output, then one table.
#
# Usage (root): dev/bench/server-make.sh [-n ROUNDS] [-l LAT] [-s SLOTS] [-j JOBS]
#   -n ROUNDS  default 3
#   -l LAT     slowfs latency per request (default 200us)
#   -s SLOTS   comma list (default 1,4)
#   -j JOBS    comma list (default 1,2,4)
#   env: BUILD, NFILES (default 60), GAPS (sleep or spin: replay --gaps) as slow-mount-fidelity.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
rounds=3 lat=200us slots=1,4 jobs=1,2,4
while getopts n:l:s:j: o; do
  case $o in
    n) rounds=$OPTARG ;;
    l) lat=$OPTARG ;;
    s) slots=$OPTARG ;;
    j) jobs=$OPTARG ;;
    *) sed -n '2,20p' "$0"; exit 2 ;;
  esac
done
export NFILES=${NFILES:-60}
out=$(mktemp /tmp/server-make.XXXXXX)
trap 'rm -f "$out"' EXIT
IFS=, read -r -a ss <<<"$slots"
IFS=, read -r -a js <<<"$jobs"
for s in "${ss[@]}"; do
  for j in "${js[@]}"; do
    echo "### slots $s, make -j$j"
    "$ROOT/dev/bench/slow-mount-fidelity.sh" -n "$rounds" -l "$lat" -w cbuild -s "$s" -j "$j" | tee "$out.cell"
    grep '^cbuild ' "$out.cell" | tail -1 | sed -E "s/^cbuild +/$(printf '%-5s %-4s ' "$s" "-j$j")/" >>"$out"
  done
done
rm -f "$out.cell"
echo
echo "# $NFILES C files, slowfs --lat all=$lat, no caching, replay --gaps ${GAPS:-sleep}; medians of $rounds rounds (min..max), error against the real build"
printf '%-5s %-4s %-20s %-36s %-36s %-18s %s\n' slots make "real s" "replay(mount rec) s" "replay(local rec) s" "predict s" \
  "LOOKUP+GETATTR real / rp-mount / rp-local"
cat "$out"

#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Interleaved A/B of recorder builds on one workload: each round runs the
# workload untraced, then under each given fsreplay binary, so that all of
# them meet the same machine state. Prints medians and ratios to untraced.
#   sudo dev/bench/record-ab.sh [-n ROUNDS] [-m status|clone] [-f FLOOR_BENCH] FSREPLAY...
# -f adds the workload under the three levels of fsreplay_bench_record_floor
# (dev/bench/record_floor.cpp --run: tracepoint dispatch, + task storage,
# + two clock reads on every syscall the recorder records): the share of the
# recorder's cost that any recorder on these tracepoints pays on this kernel.
# Uses the repository and timing wrapper that record-overhead.sh leaves in
# $WORK (default /tmp/fsr-bench): run that once first. Never asserts.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
rounds=9 mode=status floor=
while getopts n:m:f: o; do
  case $o in n) rounds=$OPTARG ;; m) mode=$OPTARG ;; f) floor=$(realpath "$OPTARG") ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || [ -n "$floor" ] || { echo "record-ab: give one or more fsreplay binaries (or -f FLOOR_BENCH)" >&2; exit 2; }
bins=()
for b in "$@"; do bins+=("$(realpath "$b")"); done
[ -z "$floor" ] || [ -x "$floor" ] || { echo "record-ab: -f $floor: not an executable" >&2; exit 2; }
[ -n "$floor" ] && bins+=(floor:0 floor:1 floor:2)
set -- "${bins[@]}"
WORK=${WORK:-/tmp/fsr-bench}
[ -x "$WORK/timed.sh" ] && [ -d "$WORK/repo/.git" ] ||
  { echo "record-ab: $WORK/repo missing: run dev/bench/record-overhead.sh once first" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "record-ab: run as root (the recorder loads BPF programs)" >&2; exit 5; }
export LOOP=${LOOP:-10} CLONES=${CLONES:-2}
cd "$WORK"
cp "$HERE/timed.sh" timed.sh  # the current workloads
. "$HERE/fresh-fs.sh"  # clone mode: each clone into a fresh ext4 (see there)
declare -A times
for _ in $(seq "$rounds"); do
  fresh_fs "$mode"
  ./timed.sh "$WORK/t" "$mode"; times[plain]+="$(cat t) "
  for b in "$@"; do
    fresh_fs "$mode"
    case $b in
      floor:*) "$floor" --run "${b#floor:}" -- ./timed.sh "$WORK/t" "$mode" ;;
      *) "$b" record -o "$WORK/ab.trace" --root "$WORK/repo" -- ./timed.sh "$WORK/t" "$mode" 2> /dev/null ;;
    esac
    times[$b]+="$(cat t) "
  done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
p=$(echo "${times[plain]}" | median)
fresh_fs none
[ "$mode" = clone ] && echo "clone: $FRESH_FS_KIND"
printf '%s, %d rounds: untraced %.1f ms\n' "$mode" "$rounds" "$(echo "$p/1000000" | bc -l)"
for b in "$@"; do
  case $b in
    floor:0) name="floor 0: tracepoint dispatch" ;;
    floor:1) name="floor 1: + task storage" ;;
    floor:2) name="floor 2: + 2 clock reads per syscall" ;;
    *) name=$b ;;
  esac
  m=$(echo "${times[$b]}" | median)
  printf '  %-40s %8.1f ms  %.3fx\n' "$name" "$(echo "$m/1000000" | bc -l)" "$(echo "$m/$p" | bc -l)"
done
# RAW=1: every round's ms, untraced first, for the spread behind the medians.
if [ "${RAW:-0}" = 1 ]; then
  for b in plain "$@"; do
    printf '  raw %-12s' "${b##*/}"; for t in ${times[$b]}; do printf ' %6.0f' "$(echo "$t/1000000" | bc -l)"; done; echo
  done
fi

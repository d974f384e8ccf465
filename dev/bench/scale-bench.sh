#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# [SIZES="1 4 16 64"] [CAP_GIB=16] [MODES="afap think"] scale-bench.sh [BUILD_DIR]
#
# Replay and report at trace lengths of 1, 4, 16 and 64 M events: for each, a
# build-shaped synthetic trace (fsreplay_bench_synth_trace: traces/synthetic's
# generator, as the container bench uses, 3 processes of 2 threads, 10,000
# files), replayed afap and in think mode on tmpfs, then reported; each run's
# peak RSS (GNU time) and ops/s. Prints a table; asserts nothing.
#
# A length whose replay would not fit in memory is skipped, and said so: the
# replay's need is estimated from the bytes per event the shorter lengths
# measured (1.7 KB before any), against the cap (CAP_GIB, default 16) and 80%
# of MemAvailable. The estimate is checked again before each mode.
#
# The synthetic trace is replayed on an empty target, not on a tree made for
# it: about 36% of its ops diverge (stats of paths it never made succeed, and
# the like), the same share at every length and window; replays pass
# --max-divergence 100 so that the divergence gate does not stop them.
#
# Environment: SCALE_DIR (where traces and results go, default /var/tmp),
# SCALE_TMPFS (the target's tmpfs, default /dev/shm).
set -euo pipefail

sizes=${SIZES:-1 4 16 64}  # millions of events
cap_gib=${CAP_GIB:-16}
modes=${MODES:-afap think}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-$here/../../build}
fsreplay=$build/cli/fsreplay
synth=$build/dev/bench/fsreplay_bench_synth_trace
for b in "$fsreplay" "$synth"; do
  [ -x "$b" ] || { echo "scale-bench: $b not found (build first)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "scale-bench: GNU time (/usr/bin/time) not installed (apt-get install time)" >&2; exit 1; }

work=$(mktemp -d "${SCALE_DIR:-/var/tmp}/fsr-scale.XXXXXX")
tmpfs=$(mktemp -d "${SCALE_TMPFS:-/dev/shm}/fsr-scale.XXXXXX")
trap 'rm -rf "$work" "$tmpfs"' EXIT
[ "$(stat -f -c %T "$tmpfs")" = tmpfs ] || echo "scale-bench: warning: $tmpfs is not on tmpfs" >&2

cap_kb=$((cap_gib * 1024 * 1024))
per_event=1700  # bytes of replay RSS per event: 1.7 KB until measured, then the most measured (+20%)
measured=0
avail_kb() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; }
# fits EVENTS: 0 when the replay's estimated peak fits under the cap and free memory
fits() {
  local need_kb=$(( $1 * per_event / 1024 )) limit_kb
  limit_kb=$(( $(avail_kb) * 8 / 10 ))
  [ "$cap_kb" -lt "$limit_kb" ] && limit_kb=$cap_kb
  skip_why="needs ~$((need_kb / 1024 / 1024 + 1)) GiB ($per_event B/event), limit $((limit_kb / 1024 / 1024)) GiB (cap ${cap_gib} GiB, 80% of MemAvailable)"
  [ "$need_kb" -le "$limit_kb" ]
}
# timed OUT CMD...: runs CMD, its stdout to OUT; sets secs and rss_kb.
timed() {
  local out=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" > "$out"
  read -r secs rss_kb < <(tail -n 1 "$work/time")  # (GNU time says a non-zero exit on a line before)
}
jget() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {'j': j}))" "$@"; }

echo "scale bench: $(nproc) CPUs, $(( $(avail_kb) / 1024 )) MiB available, load $(cut -d' ' -f1-3 /proc/loadavg), cap ${cap_gib} GiB"
rows=()
for m in $sizes; do
  events=$((m * 1000000))
  trace=$work/scale-$m.trace
  "$synth" "$events" "$trace" > /dev/null
  for mode in $modes; do
    if ! fits "$events"; then
      rows+=("$(printf '%-6s %-6s skipped: %s' "${m}M" "$mode" "$skip_why")")
      continue
    fi
    rm -rf "$tmpfs/t" "$tmpfs/s"
    mkdir -p "$tmpfs/t" "$tmpfs/s"
    result=$work/scale-$m-$mode.result
    if ! timed "$work/summary.json" "$fsreplay" replay "$trace" --timing "$mode" --target "$tmpfs/t" \
        --scratch "$tmpfs/s" -o "$result" --json --quiet --max-divergence 100; then
      rows+=("$(printf '%-6s %-6s replay failed (see above)' "${m}M" "$mode")")
      continue
    fi
    replay_rss=$rss_kb
    this=$(( rss_kb * 1024 * 12 / 10 / events ))
    [ "$measured" = 1 ] && [ "$this" -lt "$per_event" ] || per_event=$this
    measured=1
    wall=$(jget "$work/summary.json" "j['wall_ns'] / 1e9")
    ops=$(jget "$work/summary.json" "j['ops'] + j['skipped']")
    div=$(jget "$work/summary.json" "j['divergences']")
    timed /dev/null "$fsreplay" report "$result" --quiet
    rows+=("$(printf '%-6s %-6s %10s %9.2f %11.0f %9d MiB %9.2f %9.0f %7d MiB' "${m}M" "$mode" "$ops" "$wall" \
      "$(python3 -c "print($ops / $wall)")" $((replay_rss / 1024)) "$secs" \
      "$(python3 -c "print($ops / max($secs, 0.01))")" $((rss_kb / 1024)))    divergent $div")
    rm -f "$result"
  done
  rm -f "$trace"
done
printf '%-6s %-6s %10s %9s %11s %13s %9s %9s %11s\n' events mode ops "replay s" "replay op/s" "replay RSS" \
  "report s" "report op/s" "report RSS"
printf '%s\n' "${rows[@]}"

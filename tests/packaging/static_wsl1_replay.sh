#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# fsreplay-static replays recorded workloads under wsl1-harness (WSL1's answers
# for the syscalls it lacks) with the same divergent ops as the dynamic build.
# Each workload is recorded once with the dynamic build; each build replays it
# under the harness (--timing afap) on its own fresh target and scratch; the
# divergent ops (event, syscall, recorded and replayed result, path) must be
# identical, and the op counts equal.
#   usage: static_wsl1_replay.sh FSREPLAY FSREPLAY_STATIC WSL1_HARNESS [WORKLOAD...]
# WORKLOAD: demo (tools/demo's workload, scaled down) or a name that
# dev/workloads/run-workload.sh records (git-clone, cargo, npm); default demo.
# A workload that run-workload.sh skips (exit 77: npm without registry or
# cache) is skipped with its reason; if all are skipped, exit 77. Root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck disable=SC2034 # static is read as ${!b} in the replay loop
dyn=$(realpath "$1") static=$(realpath "$2") harness=$(realpath "$3"); shift 3
workloads=("${@:-demo}")
work=$(mktemp -d "${WORKLOAD_TMPDIR:-/var/tmp}/fsr-pkg-wsl1.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0 ran=0
for w in "${workloads[@]}"; do
  trace=$work/$w.trace
  rc=0
  if [[ $w == demo ]]; then
    "$here/record-demo-trace.sh" "$dyn" "$trace" >"$work/$w.record.log" 2>&1 || rc=$?
  else
    FSREPLAY=$dyn "$repo/dev/workloads/run-workload.sh" "$w" "$work" >"$work/$w.record.log" 2>&1 || rc=$?
  fi
  if [[ $rc -eq 77 ]]; then echo "skip  $w: $(tail -1 "$work/$w.record.log")"; continue; fi
  if [[ $rc -ne 0 ]]; then cat "$work/$w.record.log"; echo "FAIL  $w: recording exited $rc"; fail=1; continue; fi
  ran=$((ran + 1))
  for b in dyn static; do
    bin=${!b}
    mkdir -p "$work/$w-$b/t" "$work/$w-$b/s"
    rc=0
    "$harness" -- "$bin" replay "$trace" --target "$work/$w-$b/t" --scratch "$work/$w-$b/s" \
      --timing afap -o "$work/$w-$b.result" >"$work/$w-$b.log" 2>&1 || rc=$?
    if [[ $rc -ne 0 ]]; then cat "$work/$w-$b.log"; echo "FAIL  $w: $b replay under wsl1-harness exited $rc"; fail=1; continue 2; fi
    "$here/divergences.py" "$dyn" "$work/$w-$b.result" >"$work/$w-$b.div"
    grep -E '^(ops|divergences|fallbacks) ' "$work/$w-$b.log" | sed "s/^/info  $w $b: /"
    rm -rf "$work/$w-$b"
  done
  ops_d=$(awk '$1 == "ops" {print $2}' "$work/$w-dyn.log")
  ops_s=$(awk '$1 == "ops" {print $2}' "$work/$w-static.log")
  n=$(wc -l <"$work/$w-dyn.div")
  fb_d=$(grep '^fallbacks' "$work/$w-dyn.log" || true)
  fb_s=$(grep '^fallbacks' "$work/$w-static.log" || true)
  if [[ -n $ops_d && $ops_d == "$ops_s" && $fb_d == "$fb_s" ]] && cmp -s "$work/$w-dyn.div" "$work/$w-static.div"; then
    echo "ok    $w: static and dynamic replays under wsl1-harness: $ops_d ops each, the same $n divergent ops"
  else
    echo "FAIL  $w: divergent ops, op counts or fallbacks differ (ops $ops_d vs $ops_s; '$fb_d' vs '$fb_s'):"
    diff "$work/$w-dyn.div" "$work/$w-static.div" | head -20
    fail=1
  fi
  rm -f "$trace"
done
[[ $fail -eq 0 && $ran -eq 0 ]] && { echo "skip: no workload could be recorded"; exit 77; }
exit $fail

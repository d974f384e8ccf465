#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Smoke test of fsreplay_bench_record_floor (dev/bench/record_floor.cpp):
# every level of bpf/record_floor.bpf.c passes the verifier and attaches, the
# storm child runs under each variant and under `fsreplay record`, and every
# row gets its figures; --run passes a command's exit status through.
# Asserts no timing. Needs root.
#   record_floor_smoke.sh BENCH FSREPLAY
set -euo pipefail
out=$("$1" --calls 20000 --rounds 1 --recorder "$2")
echo "$out"
for row in untraced "level 0" "level 1" "level 2" recorder; do
  grep -Eq "^$row +[0-9]+\.[0-9]" <<< "$out" || { echo "record_floor_smoke: no figures for '$row'" >&2; exit 1; }
done
# --run: a command (and its children) under each level, its exit status passed through.
for level in 0 1 2; do
  set +e; "$1" --run "$level" -- sh -c 'ls / > /dev/null; (exit 3)'; rc=$?; set -e
  [ "$rc" = 3 ] || { echo "record_floor_smoke: --run $level gave exit status $rc, not the command's 3" >&2; exit 1; }
done
set +e; "$1" --run 1 -- /nonexistent/cmd 2> /dev/null; rc=$?; set -e
[ "$rc" = 127 ] || { echo "record_floor_smoke: a missing command gave $rc, not 127" >&2; exit 1; }

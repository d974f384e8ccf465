#!/bin/bash
# Smoke test of fsreplay_bench_record_floor (tools/bench/record_floor.cpp):
# every level of bpf/record_floor.bpf.c passes the verifier and attaches, the
# storm child runs under each variant and under `fsreplay record`, and every
# row gets its figures. Asserts no timing. Needs root.
#   record_floor_smoke.sh BENCH FSREPLAY
set -euo pipefail
out=$("$1" --calls 20000 --rounds 1 --recorder "$2")
echo "$out"
for row in untraced "level 0" "level 1" "level 2" recorder; do
  grep -Eq "^$row +[0-9]+\.[0-9]" <<< "$out" || { echo "record_floor_smoke: no figures for '$row'" >&2; exit 1; }
done

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the reader fuzzer with clang and runs it for a bounded time on a seed
# corpus of valid and damaged files. Usage: run-fuzz.sh SEED_TOOL [SECONDS]
# Fails if the fuzzer finds a crash, leak, timeout or memory blow-up.
set -euo pipefail
seed_tool=$1
seconds=${2:-${FSREPLAY_FUZZ_SECONDS:-60}}
here=$(cd "$(dirname "$0")" && pwd)
work=${FSREPLAY_FUZZ_DIR:-$(dirname "$seed_tool")/fuzz-work}
mkdir -p "$work/corpus" "$work/artifacts"
if ! command -v clang++ >/dev/null; then
  echo "run-fuzz: clang++ not found (tools/install-deps installs it)" >&2
  exit 1
fi
cmake -S "$here" -B "$work/build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ >"$work/cmake.log" 2>&1 ||
  { cat "$work/cmake.log"; exit 1; }
ninja -C "$work/build" reader_fuzz >"$work/build.log" 2>&1 || { tail -50 "$work/build.log"; exit 1; }
"$seed_tool" "$work/seeds"
cp -n "$work/seeds"/* "$work/corpus/" 2>/dev/null || true
# Files in the older format versions the reader still reads.
cp -n "$here"/../traces/fixtures/*.trace "$here"/../traces/fixtures/*.result "$work/corpus/" 2>/dev/null || true
echo "run-fuzz: $(ls "$work/seeds" | wc -l) seeds, ${seconds}s"
"$work/build/reader_fuzz" "$work/corpus" -max_total_time="$seconds" -rss_limit_mb=1024 \
  -malloc_limit_mb=200 -timeout=10 -max_len=65536 -artifact_prefix="$work/artifacts/" \
  -print_final_stats=1 2>&1 | tail -15
status=${PIPESTATUS[0]}
# The reader fuzzer's temporary files (files only: the replay fuzzer, run by hand
# without FSR_FUZZ_WORK, keeps a directory of the same prefix).
find /tmp -maxdepth 1 -type f -name 'fsreplay-fuzz-*' -delete
exit "$status"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the valid-checksum fuzzer (replay_fuzz.cpp: decoded traces mutated,
# written again with valid CRCs, run through inspect, dump, prepare, replay and
# predict) with clang and runs it for a bounded time.
# Usage: run-replay-fuzz.sh [SECONDS [WORK_DIR]]
#   SECONDS: default $FSREPLAY_REPLAY_FUZZ_SECONDS, else 300 when CI=true, else 60.
#   WORK_DIR: build, corpus and artifacts (default: $FSREPLAY_REPLAY_FUZZ_DIR, else
#   build-fuzz-replay in the source tree).
# Fails if the fuzzer finds a crash, a sanitizer report, a leak, an input that
# runs past -timeout (a hang) or a memory blow-up; the crashing input is left
# in WORK_DIR/artifacts. Prints the executions and the corpus size at the end.
# FSREPLAY_REPLAY_FUZZ_ARGS: more libFuzzer flags (e.g. "-fork=1 -ignore_crashes=1
# -ignore_timeouts=1" to go on past findings while hunting; then it fails only on
# libFuzzer's own errors, and the findings are the artifacts).
# As root it runs in a private mount namespace, on a 64 MiB tmpfs, as user
# nobody: a replay that escaped its target could touch nothing of the machine's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
default_seconds=60
[[ ${CI:-} == true ]] && default_seconds=300
seconds=${1:-${FSREPLAY_REPLAY_FUZZ_SECONDS:-$default_seconds}}
work=${2:-${FSREPLAY_REPLAY_FUZZ_DIR:-$here/../../build-fuzz-replay}}
mkdir -p "$work" && work=$(cd "$work" && pwd)
timeout_s=${FSREPLAY_REPLAY_FUZZ_TIMEOUT:-30}
if ! command -v clang++ >/dev/null; then
  echo "run-replay-fuzz: clang++ not found (tools/install-deps installs it)" >&2
  exit 1
fi
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$here" -B "$work/build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ "${launcher[@]}" >"$work/cmake.log" 2>&1 ||
  { cat "$work/cmake.log"; exit 1; }
ninja -C "$work/build" ${FSREPLAY_FUZZ_JOBS:+-j"$FSREPLAY_FUZZ_JOBS"} replay_fuzz >"$work/build.log" 2>&1 ||
  { tail -50 "$work/build.log"; exit 1; }
mkdir -p "$work/corpus" "$work/artifacts" "$work/run"
# The checked-in seeds: hand-made edit programs and every input that once failed.
cp -n "$here"/replay-seeds/* "$work/corpus/" 2>/dev/null || true
# shellcheck disable=SC2206 # extra libFuzzer flags from the environment, split on purpose
fuzz=("$work/build/replay_fuzz" "$work/corpus" -max_total_time="$seconds" -timeout="$timeout_s"
  -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=1024 -artifact_prefix="$work/artifacts/"
  -print_final_stats=1 ${FSREPLAY_REPLAY_FUZZ_ARGS:-})
echo "run-replay-fuzz: $(ls "$work/corpus" | wc -l) inputs in the corpus, ${seconds}s, -timeout=${timeout_s}"
log=$work/fuzz.log
status=0
if [[ $(id -u) == 0 ]] && unshare -m true 2>/dev/null && command -v setpriv >/dev/null; then
  chown -R 65534:65534 "$work/corpus" "$work/artifacts" "$work/run"
  FSR_FUZZ_WORK=$work/run TMPDIR=$work/run unshare -m bash -c '
    set -e
    mount --make-rprivate /
    mount -t tmpfs -o size=64m,mode=1777 fsreplay-fuzz "$FSR_FUZZ_WORK"
    exec setpriv --reuid=65534 --regid=65534 --clear-groups "$@"' bash "${fuzz[@]}" >"$log" 2>&1 || status=$?
else
  echo "run-replay-fuzz: no private mount namespace (not root, or unshare refused): running in $work/run," \
    "unconfined (each file the fuzzer writes is still limited to 16 MiB)"
  FSR_FUZZ_WORK=$work/run TMPDIR=$work/run "${fuzz[@]}" >"$log" 2>&1 || status=$?
  rm -rf "$work/run"/run-*
fi
tail -25 "$log"
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
# Fork mode prints no final stats: its last "#N: cov: ..." line counts them.
[[ -z $execs ]] && execs=$(sed -n 's/^#\([0-9]*\): cov:.*/\1/p' "$log" | tail -1)
echo "run-replay-fuzz: ${execs:-?} executions (bound ${seconds}s); corpus: $(ls "$work/corpus" | wc -l) inputs," \
  "$(du -sb "$work/corpus" | cut -f1) bytes; status $status (log: $log)"
if [[ $status != 0 ]]; then
  echo "run-replay-fuzz: FAILED; reproduce with: $work/build/replay_fuzz $(ls -t "$work"/artifacts/* 2>/dev/null | head -1)" >&2
fi
exit "$status"

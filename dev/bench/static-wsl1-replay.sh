#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole workload suite through fsreplay-static under wsl1-harness: npm ci,
# cargo build, git clone (dev/workloads/run-workload.sh) and the demo's
# workload, each recorded with the dynamic build, then replayed by both builds
# under the WSL1 gap harness; prints ops, divergences and fallbacks per build
# and fails if the divergent ops differ. CI runs all but git-clone
# (ctest -R packaging_static_replays_under_wsl1_harness); this takes ~4-5 min.
#   usage: dev/bench/static-wsl1-replay.sh [BUILD_DIR] [WORKLOAD...]   (root)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}; shift || true
[[ $# -gt 0 ]] || set -- demo git-clone cargo npm
exec tests/packaging/static_wsl1_replay.sh "$build/cli/fsreplay" "$build/cli/fsreplay-static" \
  "$build/emulators/wsl1/wsl1-harness" "$@"

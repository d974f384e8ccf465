#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# request-fidelity.sh — how many FUSE requests, per opcode, a real workload
# sends to an uncached slowfs mount, against its recording and its replays
# (issue 41, "the replay sends more metadata requests than the workload did").
#
# Each run gets a fresh backing store and a fresh mount with no entry,
# attribute or negative caching and no injected latency (--lat all=0: counts,
# not times):
#   real      the workload, untraced, in the mount
#   recorded  the same workload under `fsreplay record --root MNT` (the trace)
#   afap      `fsreplay replay TRACE --timing afap` onto a fresh mount
#   think     the same with --timing think
#   old       afap with --walks from-root: every walk from the target's root,
#             parent directories kept per worker (the replay before walks as
#             passed; issue 41)
# The replays are one `fsreplay replay --keep-tree` each, so they include the
# replay's own prepare of the initial tree but not the reset after it (which
# the real run has no counterpart of). `prep` is a standalone
# `fsreplay prepare` on another fresh mount: the share of the replay columns
# that the prepare accounts for. Prints one table: opcode, counts, ratios
# replay/real, and (afap - prep)/recorded and (old - prep)/recorded: the
# replay's own requests against the recorded run's (git's own OPEN/READ
# counts vary from run to run; the replay reproduces the recorded run's).
# tests/e2e/request_fidelity_e2e.sh checks the same with counts read around
# the replay alone.
#
# Usage (root): dev/bench/request-fidelity.sh
#   env: BUILD (default ./build), SRC (a git repository to clone, default
#        /work/main), NSMALL (small files created and removed, default 200),
#        KEEP=1 keeps the work directory (traces, results, per-run counts),
#        MOUNT_OPTS (extra slowfs arguments, e.g. "-o default_permissions":
#        then the kernel checks each directory a walk passes, which with
#        attr-timeout 0 is one GETATTR per directory).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
FSREPLAY=${FSREPLAY:-$BUILD/cli/fsreplay}
SLOWFS=${SLOWFS:-$BUILD/emulators/slowfs/slowfs}
SRC=${SRC:-/work/main}
NSMALL=${NSMALL:-200}
[[ $(id -u) == 0 ]] || { echo "request-fidelity: needs root (eBPF recording, FUSE mounts)" >&2; exit 5; }
for b in "$FSREPLAY" "$SLOWFS"; do
  [[ -x $b ]] || { echo "request-fidelity: $b is missing: ninja -C $BUILD fsreplay slowfs" >&2; exit 1; }
done
WORK=$(mktemp -d /tmp/request-fidelity.XXXXXX)
MOUNTED=()
cleanup() {
  for m in "${MOUNTED[@]}"; do umount "$m" 2>/dev/null || true; done
  [[ ${KEEP:-0} == 1 ]] && echo "kept $WORK" >&2 || rm -rf "$WORK"
}
trap cleanup EXIT

# The workload: a local clone, two statuses, a find, a du, small files.
printf '#!/bin/sh\nexec %q "$1" %q %q\n' "$ROOT/dev/bench/workloads/seeds-small.sh" "$SRC" "$NSMALL" >"$WORK/workload.sh"
chmod +x "$WORK/workload.sh"

# mount_fresh RUN: a fresh backing store and an uncached slowfs on RUN/mnt.
mount_fresh() {
  local d=$WORK/$1
  mkdir -p "$d/backing" "$d/mnt"
  "$SLOWFS" "$d/backing" "$d/mnt" --lat all=0 --attr-timeout 0 --entry-timeout 0 --negative-timeout 0 \
    --op-stats "$d/ops.txt" --pid-file "$d/pid" ${MOUNT_OPTS:-} >/dev/null
  MOUNTED+=("$d/mnt")
}
# unmount RUN: the daemon writes its final counts to RUN/ops.txt as it exits.
unmount() {
  local d=$WORK/$1 pid
  pid=$(cat "$d/pid")
  umount "$d/mnt"
  for _ in $(seq 1000); do kill -0 "$pid" 2>/dev/null || break; sleep 0.01; done
  [[ -s $d/ops.txt ]] || { echo "request-fidelity: no op stats from $1" >&2; exit 1; }
}
now() { date +%s.%N; }

declare -A WALL
mount_fresh real
t0=$(now); "$WORK/workload.sh" "$WORK/real/mnt"; WALL[real]=$(echo "$(now) - $t0" | bc)
unmount real

mount_fresh recorded
t0=$(now)
"$FSREPLAY" record -o "$WORK/workload.trace" --root "$WORK/recorded/mnt" -- "$WORK/workload.sh" "$WORK/recorded/mnt" \
  >"$WORK/record.log" 2>&1 || { cat "$WORK/record.log" >&2; exit 1; }
WALL[recorded]=$(echo "$(now) - $t0" | bc)
unmount recorded

for timing in afap think old; do
  mount_fresh "$timing"
  t0=$(now)
  # exit 6 = diverged; the counts still stand, the divergences are in the log.
  rc=0
  args=(--timing "$timing")
  [[ $timing == old ]] && args=(--timing afap --walks from-root)
  "$FSREPLAY" replay "$WORK/workload.trace" --target "$WORK/$timing/mnt" "${args[@]}" --keep-tree -q \
    -o "$WORK/$timing.result" >"$WORK/$timing.replay.log" 2>&1 || rc=$?
  WALL[$timing]=$(echo "$(now) - $t0" | bc)
  [[ $rc == 0 || $rc == 6 ]] || { cat "$WORK/$timing.replay.log" >&2; exit 1; }
  grep -i "diverge" "$WORK/$timing.replay.log" | head -3 | sed "s/^/# $timing: /" || true
  unmount "$timing"
done
# What the replays' built-in prepare costs on its own.
mount_fresh prep
"$FSREPLAY" prepare "$WORK/workload.trace" --target "$WORK/prep/mnt" >"$WORK/prepare.log" 2>&1 ||
  { cat "$WORK/prepare.log" >&2; exit 1; }
unmount prep

echo "# workload: git clone --no-hardlinks $SRC ($(git -C "$SRC" ls-files | wc -l) files), git status x2, find | wc -l, du -sh, $NSMALL small files created and removed"
echo "# mount: slowfs --lat all=0 --attr-timeout 0 --entry-timeout 0 --negative-timeout 0 ${MOUNT_OPTS:-}, fresh backing store per run"
printf '# wall s: real %.2f, recorded %.2f, afap %.2f, think %.2f, old %.2f\n' \
  "${WALL[real]}" "${WALL[recorded]}" "${WALL[afap]}" "${WALL[think]}" "${WALL[old]}"
awk '
  FNR == 1 { f++; next }
  { n[$1, f] = $2; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
  function ratio(a, b) { return b ? sprintf("%.3f", a / b) : (a ? "inf" : "-") }
  function row(name, r, c, a, t, o, p) {
    printf "%-14s %8d %8d %8d %8d %8d %6d %9s %10s %8s %8s\n", name, r, c, a, t, o, p, ratio(a, r), ratio(t, r), ratio(a - p, c), ratio(o - p, c)
  }
  END {
    printf "%-14s %8s %8s %8s %8s %8s %6s %9s %10s %8s %8s\n", "opcode", "real", "recorded", "afap", "think", "old", "prep", "afap/real", "think/real", "afap-p/rec", "old-p/rec"
    for (i = 1; i <= k; i++) {
      o = order[i]
      if (n[o,1] + n[o,2] + n[o,3] + n[o,4] + n[o,5] == 0) continue
      row(o, n[o,1], n[o,2], n[o,3], n[o,4], n[o,5], n[o,6])
      for (j = 1; j <= 6; j++) tot[j] += n[o,j]
      if (o == "LOOKUP" || o == "GETATTR") for (j = 1; j <= 6; j++) la[j] += n[o,j]
    }
    row("LOOKUP+GETATTR", la[1], la[2], la[3], la[4], la[5], la[6])
    row("total", tot[1], tot[2], tot[3], tot[4], tot[5], tot[6])
  }' "$WORK/real/ops.txt" "$WORK/recorded/ops.txt" "$WORK/afap/ops.txt" "$WORK/think/ops.txt" "$WORK/old/ops.txt" \
  "$WORK/prep/ops.txt"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# slow-mount-fidelity.sh — the regime fsreplay exists for (issue 41 item 4):
# an uncached mount where every request costs a round trip, as WSL2's 9p
# (cache=mmap) and virtiofs (cache=none) are. Per workload, each timed run on
# a fresh slowfs (fresh backing store holding the initial tree; no entry,
# attribute or negative caching; LAT injected into every request), rounds
# interleaved:
#   real       the workload, untraced, on the mount (the truth)
#   rec-mount  the workload recorded on the mount (its span)
#   rp-mount   think-mode replay of that round's mount recording
#   rp-ext4    think-mode replay of a recording made on the local disk
#              (a new one each round, on a fresh copy of the tree)
#   predict    `predict` of that round's local recording from a `probe` of
#              the mount (one probe per run of this bench)
# and the mount's request counts (LOOKUP+GETATTR) of real and the replays.
# Replays are `prepare` then `replay --no-prepare --no-verify`, so the counts
# and times are the replay's own. Prints every run, then medians over the
# rounds with their min..max, and each column's error against the real run.
#
# Usage (root): dev/bench/slow-mount-fidelity.sh [-n ROUNDS] [-l LAT] [-w WORKLOADS]
#   -n ROUNDS     default 3
#   -l LAT        slowfs latency per request (default 200us)
#   -w WORKLOADS  comma list of seeds (a local clone of SRC, git status x2,
#                 find, du, NSMALL small files made and removed), cbuild
#                 (make -j2 of NFILES generated C files), npm (npm ci --offline
#                 of tests/workloads/npm) and cargo (cargo build --offline of
#                 tests/workloads/cargo); default seeds,cbuild
#   -s SLOTS      slowfs --server-slots SLOTS (issue 45: the mount serves
#                 SLOTS requests at once, the rest queue); default: unlimited
#   -j JOBS       make -jJOBS for cbuild (default 2)
#   env: BUILD (./build), SRC (default /work/main), NSMALL (100), NFILES (100),
#        KEEP=1 keeps the work directory, GAPS=spin replays with --gaps spin
#        (default sleep)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=dev/bench/lib.sh
. "$ROOT/dev/bench/lib.sh"
BUILD=${BUILD:-$ROOT/build}
FSREPLAY=${FSREPLAY:-$BUILD/cli/fsreplay}
SLOWFS=${SLOWFS:-$BUILD/emulators/slowfs/slowfs}
SRC=${SRC:-/work/main}
NSMALL=${NSMALL:-100}
NFILES=${NFILES:-100}
rounds=3 lat=200us workloads=seeds,cbuild jobs=2 slots=()
while getopts n:l:w:s:j: o; do
  case $o in
    n) rounds=$OPTARG ;;
    l) lat=$OPTARG ;;
    w) workloads=$OPTARG ;;
    s) slots=(--server-slots "$OPTARG") ;;
    j) jobs=$OPTARG ;;
    *) sed -n '2,31p' "$0"; exit 2 ;;
  esac
done
[[ $(id -u) == 0 ]] || { echo "slow-mount-fidelity: needs root (eBPF recording, FUSE mounts)" >&2; exit 5; }
for b in "$FSREPLAY" "$SLOWFS"; do
  [[ -x $b ]] || { echo "slow-mount-fidelity: $b is missing: ninja -C $BUILD fsreplay slowfs" >&2; exit 1; }
done
WORK=$(mktemp -d /var/tmp/slow-mount-fidelity.XXXXXX)
MNT=
cleanup() {
  [[ -n $MNT ]] && { umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null || true; }
  [[ ${KEEP:-0} == 1 ]] && echo "kept $WORK" >&2 || rm -rf "$WORK"
}
trap cleanup EXIT
now() { date +%s.%N; }

# The workloads: an initial tree (copied into each fresh backing store) and a
# script run with the tree's path as $1.
make_workload() {
  local w=$1 d=$WORK/$1
  mkdir -p "$d/tree"
  case $w in
    seeds)
      printf '#!/bin/sh\nexec %q "$1" %q %q 1\n' "$ROOT/dev/bench/workloads/seeds-small.sh" "$SRC" "$NSMALL" >"$d/run.sh"
      ;;
    cbuild)
      mkdir -p "$d/tree/src" "$d/tree/include"
      for i in $(seq "$NFILES"); do
        echo "int v$i(void);" > "$d/tree/include/h$i.h"
        printf '#include "h%d.h"\n#include <stdio.h>\nint v%d(void) { return %d; }\n' "$i" "$i" "$i" > "$d/tree/src/f$i.c"
      done
      printf 'SRC := $(wildcard src/*.c)\nOBJ := $(SRC:.c=.o)\nall: libx.a\nlibx.a: $(OBJ)\n\tar rcs $@ $^\n%%.o: %%.c\n\t$(CC) -O0 -Iinclude -c $< -o $@\n' \
        > "$d/tree/Makefile"
      printf '#!/bin/sh\nset -e\ncd "$1"\nmake -s -j%d\n' "$jobs" >"$d/run.sh"
      ;;
    npm)
      # tests/workloads/npm (a 300-package lockfile) from npm's cache, which
      # stays on the local disk as a user's ~/.npm does (warmed once here).
      cp "$ROOT"/tests/workloads/npm/package*.json "$d/tree/"
      warm_npm_cache slow-mount-fidelity "$WORK/npm-warm" "$ROOT"
      printf '#!/bin/sh\ncd "$1" && exec npm ci --offline --no-audit --no-fund --loglevel=error\n' >"$d/run.sh"
      ;;
    cargo)
      # tests/workloads/cargo: a crate of six dependencies from Debian's
      # librust-*-dev (a directory source), built from clean.
      [[ -x /usr/bin/cargo && -d /usr/share/cargo/registry ]] ||
        { echo "slow-mount-fidelity: Debian's cargo or librust-*-dev missing (tools/install-deps)" >&2; exit 1; }
      cp -r "$ROOT/tests/workloads/cargo/." "$d/tree/"
      mkdir -p "$WORK/cargo-home"
      printf '#!/bin/sh\ncd "$1" && exec env CARGO_HOME=%q RUSTC=/usr/bin/rustc /usr/bin/cargo build --offline --locked -q\n' \
        "$WORK/cargo-home" >"$d/run.sh"
      ;;
    probe) printf '#!/bin/sh\n' > "$d/run.sh" ;;  # (an empty tree: the mount probed)
    *) echo "slow-mount-fidelity: unknown workload $w" >&2; exit 2 ;;
  esac
  chmod +x "$d/run.sh"
}

# mount_fresh W [empty]: a fresh backing store holding W's tree in w/ (or an
# empty w/, for a replay to prepare), and slowfs on it at $MNT. The workload
# runs, is recorded and is replayed in $MNT/w: the same depth on the mount.
mount_fresh() {
  local d=$WORK/$1
  rm -rf "${d:?}/backing" "${d:?}/mnt"
  mkdir -p "$d/backing/w" "$d/mnt"
  [[ ${2:-} == empty ]] || cp -a "$d/tree/." "$d/backing/w/"
  "$SLOWFS" "$d/backing" "$d/mnt" --lat "all=$lat" --attr-timeout 0 --entry-timeout 0 --negative-timeout 0 \
    ${slots[@]+"${slots[@]}"} --op-stats "$d/ops.txt" --pid-file "$d/pid" >/dev/null
  MNT=$d/mnt
  sync
}
# unmount W: the request counts (LOOKUP+GETATTR) of what ran since the last snapshot.
snap() {
  local d=$WORK/$1
  rm -f "$d/ops.txt"
  kill -USR1 "$(cat "$d/pid")"
  for _ in $(seq 1000); do [[ -s $d/ops.txt ]] && break; sleep 0.01; done
  awk '$1 == "LOOKUP" || $1 == "GETATTR" { n += $2 } END { print n + 0 }' "$d/ops.txt"
}
unmount() {
  local d=$WORK/$1 pid
  pid=$(cat "$d/pid")
  umount "$MNT"
  MNT=
  for _ in $(seq 1000); do kill -0 "$pid" 2>/dev/null || break; sleep 0.01; done
}

# replay W TRACE: prepare on a fresh mount, then the replay alone; sets T and REQ.
replay_on_fresh() {
  local w=$1 trace=$2 before rc=0
  mount_fresh "$w" empty
  "$FSREPLAY" prepare "$trace" --target "$MNT/w" -q >/dev/null 2>"$WORK/$w/prepare.err" ||
    { cat "$WORK/$w/prepare.err" >&2; exit 1; }
  sync
  before=$(snap "$w")
  "$FSREPLAY" replay "$trace" --target "$MNT/w" --no-prepare --no-verify --keep-tree -q --json --gaps "${GAPS:-sleep}" \
    -o "$WORK/$w/r.result" >"$WORK/$w/r.json" 2>"$WORK/$w/r.err" || rc=$?
  [[ $rc == 0 || $rc == 6 ]] || { cat "$WORK/$w/r.err" >&2; exit 1; }
  T=$(jq -r '.wall_ns / 1e9' "$WORK/$w/r.json")
  REQ=$(( $(snap "$w") - before ))
  unmount "$w"
}

IFS=, read -r -a wls <<<"$workloads"
printf '# %s UTC, %s, kernel %s, %s rounds, slowfs --lat all=%s %s, no caching, cbuild make -j%s, replay --gaps %s; fsreplay %s\n' \
  "$(date -u '+%Y-%m-%d %H:%M')" "$(hostname)" "$(uname -r)" "$rounds" "$lat" "${slots[*]:-(no slot limit)}" "$jobs" "${GAPS:-sleep}" \
  "$(git -C "$ROOT" rev-parse --short HEAD)"
# One probe of the mount, for predict.
make_workload probe
mount_fresh probe
"$FSREPLAY" probe "$MNT/w" -o "$WORK/slow.profile" --duration 20 --name "slowfs-$lat" >/dev/null 2>"$WORK/probe.err" ||
  { cat "$WORK/probe.err" >&2; exit 1; }
unmount probe
for w in "${wls[@]}"; do
  make_workload "$w"
  for r in $(seq "$rounds"); do
    # This round's local-disk recording, on a fresh copy of the tree: its
    # schedule varies from run to run, so each round replays and predicts
    # its own, and predict's column has a spread too.
    rm -rf "$WORK/$w/local"
    mkdir -p "$WORK/$w/local"
    cp -a "$WORK/$w/tree/." "$WORK/$w/local/"
    sync
    "$FSREPLAY" record -q -o "$WORK/$w/ext4.trace" --root "$WORK/$w/local" -- "$WORK/$w/run.sh" "$WORK/$w/local" \
      >"$WORK/$w/record.log" 2>&1 || { cat "$WORK/$w/record.log" >&2; exit 1; }
    "$FSREPLAY" predict "$WORK/$w/ext4.trace" --profile "$WORK/slow.profile" --format json \
      >"$WORK/$w/predict.json" 2>"$WORK/$w/predict.err" || { cat "$WORK/$w/predict.err" >&2; exit 1; }
    pred=$(jq -r '.columns[-1].wall_ns / 1e9' "$WORK/$w/predict.json")
    # real
    mount_fresh "$w"
    before=$(snap "$w")
    t0=$(now); "$WORK/$w/run.sh" "$MNT/w" >/dev/null 2>&1; real=$(echo "$(now) - $t0" | bc)
    real_req=$(( $(snap "$w") - before ))
    unmount "$w"
    # recorded on the mount
    mount_fresh "$w"
    "$FSREPLAY" record -q -o "$WORK/$w/mnt.trace" --root "$MNT/w" -- "$WORK/$w/run.sh" "$MNT/w" \
      >"$WORK/$w/record-mnt.log" 2>&1 || { cat "$WORK/$w/record-mnt.log" >&2; exit 1; }
    span=$(grep -o '[0-9.]* m\?s ->' "$WORK/$w/record-mnt.log" | head -1 | sed 's/ ->//')
    unmount "$w"
    replay_on_fresh "$w" "$WORK/$w/mnt.trace"; rpm=$T; rpm_req=$REQ
    replay_on_fresh "$w" "$WORK/$w/ext4.trace"; rpe=$T; rpe_req=$REQ
    printf 'run %-7s round %d: real %.2f s (%d req), recorded on the mount %s, replay of it %.2f s (%d req), replay of the local recording %.2f s (%d req), predict %.2f s\n' \
      "$w" "$r" "$real" "$real_req" "${span:-?}" "$rpm" "$rpm_req" "$rpe" "$rpe_req" "$pred"
    echo "$w $real $rpm $rpe $pred $real_req $rpm_req $rpe_req" >>"$WORK/rows"
  done
  # What the workload did differently on the mount: the behaviour diff of
  # the local recording and the last mount recording, and the warnings.
  echo "# $w: behaviour diff, local recording [1] against the mount's [2] (fsreplay compare):"
  "$FSREPLAY" compare "$WORK/$w/ext4.trace" "$WORK/$w/mnt.trace" 2>/dev/null | sed -n '/^Behaviour diff/,$p' | sed 's/^/#   /'
  grep -h "warning: " "$WORK/$w/predict.err" | sed 's/^/# /' || true
done
echo
printf '%-8s %-20s %-36s %-36s %-36s %s\n' workload "real s" "replay(mount rec) s" "replay(local rec) s" "predict s" "LOOKUP+GETATTR real / rp-mount / rp-local"
for w in "${wls[@]}"; do
  awk -v w="$w" '$1 == w' "$WORK/rows" | PYTHONPATH=$ROOT/dev/bench python3 -c '
import statistics, sys
from benchstats import spread, ratio
rows = [l.split() for l in sys.stdin]
col = lambda i: [float(r[i]) for r in rows]
real = statistics.median(col(1))
def cell(i, err=True):
    v = col(i); s = spread(v)
    c = "%.2f (%.2f..%.2f)" % (s["median"], s["min"], s["max"])
    if not err:
        return c
    r = ratio(v, col(1))
    e = " %+.1f%%" % (100 * (r["ratio"] - 1))
    return c + e + (" [%+.0f,%+.0f]" % (100 * (r["lo"] - 1), 100 * (r["hi"] - 1)) if r["lo"] is not None else "")
req = lambda i: "%d" % statistics.median(col(i))
print("%-8s %-20s %-36s %-36s %-36s %s / %s / %s" % (rows[0][0], cell(1, False), cell(2), cell(3), cell(4),
      req(5), req(6), req(7)))
'
done
echo "# errors: each column's median against the real run's median, [its 95% interval] (dev/bench/benchstats.py:"
echo "# bootstrap of the ratio of medians, 3 rounds or more); (min..max) over the rounds"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# place-validate.sh — the split placement against the real thing (issue 43
# item 4): a directory of the tree on a fast mount, the rest on a slow one.
# The slow mount is slowfs with the wsl2-9p profile (one request at a time,
# no entry, attribute or negative caching); the fast one a tmpfs. Workloads:
#   git     clone/.git placed: a generated local repository cloned as `git
#           clone --separate-git-dir` would place it: `git init` into clone/
#           whose .git exists beforehand (the mount point), `git fetch`,
#           `git checkout`
#   cbuild  obj placed: `make -j2` of NFILES generated C files, objects and
#           the library into obj/ (made beforehand, as a build directory)
#   npm     node_modules placed: `npm ci --offline` of tests/workloads/npm (a
#           300-package lockfile) from npm's cache on the local disk (warmed
#           once here), node_modules/ made beforehand (the mount point, as a
#           user keeps it on the Linux disk)
# Per workload and round, each timed run on a fresh backing store and a
# fresh tmpfs, rounds interleaved:
#   real-slow   the workload, untraced, all on the slow mount (context)
#   real-split  the workload, untraced, with the tmpfs bind-mounted on the
#               placed directory (in a private mount namespace: unshare -m)
#   rp-local    `prepare` then `replay --no-prepare --no-verify --place
#               SUBDIR=TMPFS` of a recording made on the local disk
#   rp-mount    the same, of a recording made on the split mounts (once,
#               before the rounds: what the workload does there)
#   predict     `predict --place SUBDIR=fast` of that recording from a
#               probe of each mount (one probe each per run of this bench);
#               predict-slow: all on the slow profile
# Prints every run, then one table: medians (min..max) and the errors of
# the replays and predict against the real split run (predict-slow against
# real-slow).
#
# Usage (root): dev/bench/place-validate.sh [-n ROUNDS] [-f NFILES] [-w WORKLOADS]
#   -n ROUNDS     default 3
#   -f NFILES     files in the generated repository or project (default 300)
#   -w WORKLOADS  comma list: git, cbuild, npm (default git,cbuild,npm)
#   env: BUILD (./build), KEEP=1 keeps the work directory, PROBE_S (probe seconds, default 15)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=dev/bench/lib.sh
. "$ROOT/dev/bench/lib.sh"
BUILD=${BUILD:-$ROOT/build}
FSREPLAY=${FSREPLAY:-$BUILD/cli/fsreplay}
SLOWFS=${SLOWFS:-$BUILD/emulators/slowfs/slowfs}
PROBE_S=${PROBE_S:-15}
rounds=3 nfiles=300 workloads=git,cbuild,npm
while getopts n:f:w: o; do
  case $o in
    n) rounds=$OPTARG ;;
    f) nfiles=$OPTARG ;;
    w) workloads=$OPTARG ;;
    *) sed -n '2,37p' "$0"; exit 2 ;;
  esac
done
[[ $(id -u) == 0 ]] || { echo "place-validate: needs root (eBPF recording, FUSE and bind mounts)" >&2; exit 5; }
for b in "$FSREPLAY" "$SLOWFS"; do
  [[ -x $b ]] || { echo "place-validate: $b is missing: ninja -C $BUILD fsreplay slowfs" >&2; exit 1; }
done
WORK=$(mktemp -d /var/tmp/place-validate.XXXXXX)
MNT=$WORK/mnt FAST=$WORK/fast
mkdir -p "$MNT" "$FAST"
cleanup() {
  mountpoint -q "$MNT" && { umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null || true; }
  mountpoint -q "$FAST" && { umount "$FAST" 2>/dev/null || umount -l "$FAST" 2>/dev/null || true; }
  [[ ${KEEP:-0} == 1 ]] && echo "kept $WORK" >&2 || rm -rf "$WORK"
}
trap cleanup EXIT
now() { date +%s.%N; }

# make_workload W: its tree ($WORK/tree), its script ($WORK/run.sh, the
# tree's path as $1) and the placed directory ($SUB).
make_workload() {
  rm -rf "$WORK/tree" "$WORK/src"
  case $1 in
    git)
      SUB=clone/.git
      git init -q "$WORK/src"
      for i in $(seq "$nfiles"); do
        mkdir -p "$WORK/src/d$((i % 15))"
        head -c $((i * 37 % 6000 + 100)) /dev/urandom | base64 >"$WORK/src/d$((i % 15))/f$i.txt"
      done
      git -C "$WORK/src" add -A && git -C "$WORK/src" -c user.email=b@x -c user.name=b commit -qm init
      mkdir -p "$WORK/tree/clone/.git"
      printf '#!/bin/sh\nset -e\ncd "$1/clone"\ngit init -q\ngit fetch -q --no-tags %q HEAD\ngit -c advice.detachedHead=false checkout -q FETCH_HEAD\n' \
        "$WORK/src" >"$WORK/run.sh"
      ;;
    cbuild)
      SUB=obj
      mkdir -p "$WORK/tree/src" "$WORK/tree/include" "$WORK/tree/obj"
      for i in $(seq "$nfiles"); do
        echo "int v$i(void);" >"$WORK/tree/include/h$i.h"
        printf '#include "h%d.h"\n#include <stdio.h>\nint v%d(void) { return %d; }\n' "$i" "$i" "$i" >"$WORK/tree/src/f$i.c"
      done
      printf 'SRC := $(wildcard src/*.c)\nOBJ := $(SRC:src/%%.c=obj/%%.o)\nall: obj/libx.a\nobj/libx.a: $(OBJ)\n\tar rcs $@ $^\nobj/%%.o: src/%%.c\n\t$(CC) -O0 -Iinclude -c $< -o $@\n' \
        >"$WORK/tree/Makefile"
      printf '#!/bin/sh\nset -e\ncd "$1"\nmake -s -j2\n' >"$WORK/run.sh"
      ;;
    npm)
      SUB=node_modules
      mkdir -p "$WORK/tree/node_modules"
      cp "$ROOT"/tests/workloads/npm/package*.json "$WORK/tree/"
      warm_npm_cache place-validate "$WORK/npm-warm" "$ROOT"
      printf '#!/bin/sh\ncd "$1" && exec npm ci --offline --no-audit --no-fund --loglevel=error\n' >"$WORK/run.sh"
      ;;
    *) echo "place-validate: unknown workload $1 (git, cbuild, npm)" >&2; exit 2 ;;
  esac
  chmod +x "$WORK/run.sh"
}

# Fresh mounts: slowfs on a new backing store (holding the tree, or empty for
# a replay to prepare) at $MNT, a new tmpfs at $FAST with an empty placed/.
slow_up() {
  umount_all
  rm -rf "$WORK/backing"
  mkdir -p "$WORK/backing/w"
  [[ ${1:-} == empty ]] || cp -a "$WORK/tree/." "$WORK/backing/w/"
  "$SLOWFS" "$WORK/backing" "$MNT" --profile wsl2-9p --attr-timeout 0 --entry-timeout 0 --negative-timeout 0 \
    --pid-file "$WORK/slowfs.pid" >/dev/null
  mount -t tmpfs -o size=1g place-validate "$FAST"
  mkdir -p "$FAST/placed"
  sync
}
umount_all() {
  if mountpoint -q "$MNT"; then
    local pid
    pid=$(cat "$WORK/slowfs.pid")
    # (a git process that outlives the workload by a moment may still hold it)
    for _ in $(seq 50); do umount "$MNT" 2>/dev/null && break; sleep 0.1; done
    mountpoint -q "$MNT" && umount -l "$MNT"
    for _ in $(seq 1000); do kill -0 "$pid" 2>/dev/null || break; sleep 0.01; done
  fi
  mountpoint -q "$FAST" && umount "$FAST"
  return 0
}
# The workload on the mounts, timed inside the namespace (the bind mount's own cost left out).
real_run() {  # real_run slow|split|record: prints seconds (record: records it to mnt.trace)
  slow_up
  if [[ $1 == split || $1 == record ]]; then
    local rec=()
    [[ $1 == record ]] && rec=("$FSREPLAY" record -q -o "$WORK/mnt.trace" --root "$MNT/w" --)
    unshare -m --propagation private bash -c '
      w=$0 fast=$1 mnt=$2 sub=$3
      shift 3
      mount --bind "$fast" "$mnt/w/$sub" || exit 1
      t0=$(date +%s.%N); "$@" "$w/run.sh" "$mnt/w" >/dev/null 2>"$w/real.err"; t1=$(date +%s.%N)
      echo "$t1 - $t0" | bc' "$WORK" "$FAST/placed" "$MNT" "$SUB" ${rec[@]+"${rec[@]}"}
  else
    local t0
    t0=$(now); "$WORK/run.sh" "$MNT/w" >/dev/null 2>&1; echo "$(now) - $t0" | bc
  fi
  [[ $1 == slow || -z $(ls -A "$MNT/w/$SUB") ]] || { echo "place-validate: $SUB landed on the slow mount" >&2; exit 1; }
  umount_all
}
replay_run() {  # replay_run TRACE: prints the split replay's wall seconds and divergences
  local rc=0
  slow_up empty
  "$FSREPLAY" prepare "$1" --target "$MNT/w" -q --place "$SUB=$FAST/placed" >/dev/null \
    2>"$WORK/prepare.err" || { cat "$WORK/prepare.err" >&2; exit 1; }
  sync
  "$FSREPLAY" replay "$1" --target "$MNT/w" --no-prepare --no-verify --keep-tree -q --json \
    --place "$SUB=$FAST/placed" -o "$WORK/r.result" >"$WORK/r.json" 2>"$WORK/r.err" || rc=$?
  [[ $rc == 0 || $rc == 6 ]] || { cat "$WORK/r.err" >&2; exit 1; }
  jq -r '"\(.wall_ns / 1e9) \(.divergences)"' "$WORK/r.json"
  umount_all
}

printf '# %s UTC, %s, kernel %s, %s rounds, %s files; slow: slowfs --profile wsl2-9p, no caching; fast: tmpfs; fsreplay %s\n' \
  "$(date -u '+%Y-%m-%d %H:%M')" "$(hostname)" "$(uname -r)" "$rounds" "$nfiles" "$(git -C "$ROOT" rev-parse --short HEAD)"
# Probes of both mounts, for predict.
# (The slow one where the tree lives, $MNT/w: an absolute path's walk looks up
# the components above the target on the mount, and predict takes their
# number from the probed directory's depth on its mount.)
slow_up empty
"$FSREPLAY" probe "$MNT/w" -o "$WORK/slow.profile" --duration "$PROBE_S" --name slowfs-9p >/dev/null \
  2>"$WORK/probe.err" || { cat "$WORK/probe.err" >&2; exit 1; }
"$FSREPLAY" probe "$FAST/placed" -o "$WORK/fast.profile" --duration "$PROBE_S" --name tmpfs >/dev/null \
  2>"$WORK/probe.err" || { cat "$WORK/probe.err" >&2; exit 1; }
umount_all
IFS=, read -r -a wls <<<"$workloads"
for w in "${wls[@]}"; do
  make_workload "$w"
  # The local-disk recording, once, on a fresh copy of the tree (after a
  # warm-up run: git's, the compiler's and the page cache's first run).
  rm -rf "$WORK/local" && mkdir -p "$WORK/local" && cp -a "$WORK/tree/." "$WORK/local/"
  "$WORK/run.sh" "$WORK/local" >/dev/null 2>&1
  rm -rf "$WORK/local" && mkdir -p "$WORK/local" && cp -a "$WORK/tree/." "$WORK/local/"
  sync
  "$FSREPLAY" record -q -o "$WORK/local.trace" --root "$WORK/local" -- "$WORK/run.sh" "$WORK/local" \
    >"$WORK/record.log" 2>&1 || { cat "$WORK/record.log" >&2; exit 1; }
  "$FSREPLAY" predict "$WORK/local.trace" --profile "$WORK/fast.profile" --profile "$WORK/slow.profile" \
    --place "$SUB=$WORK/fast.profile" --format json >"$WORK/predict.json" 2>"$WORK/predict.err" ||
    { cat "$WORK/predict.err" >&2; exit 1; }
  pred_split=$(jq -r '[.columns[] | select(.placement != null)][0].wall_ns / 1e9' "$WORK/predict.json")
  pred_slow=$(jq -r '[.columns[] | select(.placement == null)][-1].wall_ns / 1e9' "$WORK/predict.json")
  real_run record >/dev/null  # the recording on the split mounts, once
  for r in $(seq "$rounds"); do
    slow=$(real_run slow)
    split=$(real_run split)
    read -r rpl divl <<<"$(replay_run "$WORK/local.trace")"  # (waits for its unmounts)
    read -r rpm divm <<<"$(replay_run "$WORK/mnt.trace")"
    printf 'run %-6s round %d: real all-slow %.2f s, real split %.2f s, split replay of the local recording %.2f s (%d divergences), of the mount recording %.2f s (%d), predict split %.2f s, all-slow %.2f s\n' \
      "$w" "$r" "$slow" "$split" "$rpl" "$divl" "$rpm" "$divm" "$pred_split" "$pred_slow"
    echo "$w $SUB $slow $split $rpl $rpm $pred_split $pred_slow" >>"$WORK/rows"
  done
done
echo
printf '%-6s %-20s %-22s %-22s %-34s %-34s %-16s %s\n' work placement "real all-slow s" "real split s" "rp-local split s" \
  "rp-mount split s" "predict split s" "predict all-slow s"
PYTHONPATH=$ROOT/dev/bench python3 - "$WORK/rows" <<'PY'
import statistics, sys
from benchstats import spread, ratio
allrows = [l.split() for l in open(sys.argv[1])]
for w in dict.fromkeys(r[0] for r in allrows):
    rows = [r[2:] for r in allrows if r[0] == w]
    sub = [r[1] for r in allrows if r[0] == w][0]
    col = lambda i: [float(r[i]) for r in rows]
    def cell(i, ref=None):
        v = col(i); s = spread(v)
        c = "%.2f (%.2f..%.2f)" % (s["median"], s["min"], s["max"])
        if ref is None:
            return c
        r = ratio(v, col(ref))
        c += " %+.1f%%" % (100 * (r["ratio"] - 1))
        return c + (" [%+.0f,%+.0f]" % (100 * (r["lo"] - 1), 100 * (r["hi"] - 1)) if r["lo"] is not None else "")
    pred = lambda i, ref: "%.2f %+.1f%%" % (col(i)[0], 100 * (col(i)[0] / statistics.median(col(ref)) - 1))
    print("%-6s %-20s %-22s %-22s %-34s %-34s %-16s %s" % (w, sub + " on tmpfs", cell(0), cell(1), cell(2, 1),
          cell(3, 1), pred(4, 1), pred(5, 0)))
PY
echo "# errors: the split replays' and predict's against the real split run (predict all-slow: against the real"
echo "# all-slow run); [95% interval] of the ratio of medians (dev/bench/benchstats.py); (min..max) over the rounds"

#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Recorder overhead benchmark. Prints medians and
# ratios against the same command untraced in the same run; never asserts.
#   sudo dev/bench/record-overhead.sh [FSREPLAY_BINARY]
# Needs /usr/bin/time (package `time`) for the CPU figures.
# Env: RUNS (default 3) repetitions per variant, LOOP (default 10) git status
# per run, CLONES (default 2) clones per run, STORM (default 2000000) calls,
# REPO: a real repository to measure on instead of the generated 4,000-file
# one (a working tree or a bare mirror, e.g. REPO=/work/.mirror/git+git/repo:
# its HEAD is checked out, history cut to depth 1, so that a clone copies the
# tree and not years of packs); WORK must then differ per REPO, or the cached
# ./repo is remade when REPO changes.
# Workload time is measured inside the workload (so BPF load and the prestate
# walk are not counted): each variant runs the same timing wrapper.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
FSREPLAY=${1:-$HERE/../../build/cli/fsreplay}
FSREPLAY=$(realpath "$FSREPLAY")
# The floor (dev/bench/record_floor.cpp --run 2): the same workload under
# programs that only dispatch, look up task storage and read the clock twice
# per syscall the recorder records, and record nothing: what any recorder on
# these tracepoints pays on this kernel. Built next to fsreplay.
FLOOR=$(dirname "$FSREPLAY")/fsreplay_bench_record_floor
RUNS=${RUNS:-3}
LOOP=${LOOP:-10}
CLONES=${CLONES:-2}
STORM=${STORM:-2000000}
WORK=${WORK:-/tmp/fsr-bench}
[ "$(id -u)" = 0 ] || { echo "record-overhead: run as root (the recorder loads BPF programs)" >&2; exit 5; }
unset SUDO_USER SUDO_UID SUDO_GID  # the workload must be able to write in $WORK
mkdir -p "$WORK"
cd "$WORK"

# A git repository: a real one (REPO) or 4,000 generated files (kept between runs).
if [ -n "${REPO:-}" ]; then
  if [ ! -d repo/.git ] || [ "$(cat repo.source 2>/dev/null)" != "$REPO" ]; then
    rm -rf repo && git clone -q --depth 1 "file://$(realpath "$REPO")" repo && echo "$REPO" > repo.source
  fi
  # The index fresh, as a user's, and not racy: a status a second after the
  # checkout rewrites it, or each status re-reads the files checked out in
  # the second the index was written.
  git -C repo status > /dev/null && sleep 1.1 && git -C repo status > /dev/null
elif [ ! -d repo/.git ] || [ -e repo.source ]; then
  rm -f repo.source
  rm -rf repo && mkdir -p repo && (
    cd repo && git init -q && for d in $(seq 40); do mkdir -p "dir$d"; for f in $(seq 100); do
      echo "file $d $f" > "dir$d/f$f.txt"; done; done &&
      git add -A && git -c user.email=b@e -c user.name=bench commit -qm init)
fi
echo "repo: $(git -C repo ls-files | wc -l) files${REPO:+ (a depth-1 clone of $REPO)}"

cp "$HERE/timed.sh" timed.sh  # the workloads (dev/bench/timed.sh)
export LOOP CLONES

# A clone's time depends on the target file system's history: ext4's inode
# allocator skips recently freed inodes, and on this project's VM one clone
# into a directory tree that had seen deletions took 1.2-1.7 s while the same
# clone into a just-made ext4 took 0.50-0.53 s. So each clone goes into a
# fresh ext4 on a loop device, made before the workload starts (not timed,
# not recorded); without loop devices it falls back to `rm -rf` and says so.
. "$HERE/fresh-fs.sh"

median() { sort -n | awk '{a[NR]=$1} END {printf "%.0f\n", (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

bench() {  # bench MODE
  local mode=$1
  : > "plain.$mode"; : > "rec.$mode"; : > "rec2.$mode"; : > "strace.$mode"; : > "plain.$mode.cpu"; : > "rec.$mode.cpu"
  : > "floor.$mode"
  for _ in $(seq "$RUNS"); do
    fresh_fs "$mode"
    /usr/bin/time -f "%U %S" -o cpu ./timed.sh "$WORK/t" "$mode"; cat t >> "plain.$mode"; awk '{print ($1+$2)*1000}' cpu >> "plain.$mode.cpu"
    fresh_fs "$mode"
    /usr/bin/time -f "%U %S" -o cpu "$FSREPLAY" record -o "$WORK/$mode.trace" --root "$WORK/repo" -- ./timed.sh "$WORK/t" "$mode" 2> "rec.$mode.log"; cat t >> "rec.$mode"
    awk '{print ($1+$2)*1000}' cpu >> "rec.$mode.cpu"
    fresh_fs "$mode"
    "$FSREPLAY" record --buffer-mib 2 -o "$WORK/$mode.trace" --root "$WORK/repo" -- ./timed.sh "$WORK/t" "$mode" 2> /dev/null; cat t >> "rec2.$mode"
    fresh_fs "$mode"
    strace -f -qq -o /dev/null ./timed.sh "$WORK/t" "$mode"; cat t >> "strace.$mode"
    if [ -x "$FLOOR" ]; then
      fresh_fs "$mode"
      "$FLOOR" --run 2 -- ./timed.sh "$WORK/t" "$mode"; cat t >> "floor.$mode"
    fi
  done
  fresh_fs none
  local p rr s r2
  p=$(median < "plain.$mode"); rr=$(median < "rec.$mode"); s=$(median < "strace.$mode"); r2=$(median < "rec2.$mode")
  printf '%-28s untraced %8.1f ms   record %8.1f ms (%.3fx)   strace -f %8.1f ms (%.2fx)\n' \
    "$2" "$(echo "$p/1000000" | bc -l)" "$(echo "$rr/1000000" | bc -l)" "$(echo "$rr/$p" | bc -l)" \
    "$(echo "$s/1000000" | bc -l)" "$(echo "$s/$p" | bc -l)"
  printf '  with --buffer-mib 2 (smaller lanes): %8.1f ms (%.3fx)\n' "$(echo "$r2/1000000" | bc -l)" "$(echo "$r2/$p" | bc -l)"
  if [ -s "floor.$mode" ]; then
    local f
    f=$(median < "floor.$mode")
    printf '  floor, recording nothing (dispatch, task storage, 2 clock reads per syscall): %8.1f ms (%.3fx)\n' \
      "$(echo "$f/1000000" | bc -l)" "$(echo "$f/$p" | bc -l)"
  else
    echo "  floor: not measured ($FLOOR missing: build fsreplay_bench_record_floor)"
  fi
  # CPU (user+sys of everything, median): less noisy than wall on a shared
  # machine. The recorder's includes its fixed cost (BPF load, prestate walk).
  printf '  CPU: untraced %.0f ms, record %.0f ms (incl. setup %.0f ms: record -- true)\n' \
    "$(median < "plain.$mode.cpu")" "$(median < "rec.$mode.cpu")" "$SETUP_CPU"
  echo "  last record: $(tail -1 "rec.$mode.log")"
}

SETUP_CPU=$( { /usr/bin/time -f "%U %S" "$FSREPLAY" record -o "$WORK/setup.trace" --root "$WORK/repo" -- true 2>&1 >/dev/null; } | tail -1 | awk '{print ($1+$2)*1000}')
bench status "git status x$LOOP ($(git -C repo ls-files | wc -l) files)"
bench clone "git clone --no-hardlinks x$CLONES ($FRESH_FS_KIND)"

# Syscall storm: events/s sustained, drops.
cc -O2 -pthread -o storm "$HERE/record-storm.c"
mkdir -p empty
for threads in 1 2; do
  line=$("$FSREPLAY" record --allow-drops --no-page-faults -o "$WORK/storm.trace" --root "$WORK/empty" -- ./storm "$STORM" "$threads" 2> storm.log)
  calls=${line% *}; ns=${line#* }
  printf 'storm %d thread(s): %d fstat in %.1f ms = %.2f M events/s recorded; %s\n' "$threads" "$calls" \
    "$(echo "$ns/1000000" | bc -l)" "$(echo "$calls/($ns/1000000000)/1000000" | bc -l)" "$(tail -1 storm.log)"
  grep -q "dropped" storm.log && grep dropped storm.log || true
  plain=$(./storm "$STORM" "$threads"); pns=${plain#* }
  printf '  untraced: %.2f M calls/s (%.2fx slower recorded)\n' "$(echo "$calls/($pns/1000000000)/1000000" | bc -l)" "$(echo "$ns/$pns" | bc -l)"
done

# Bytes per event without the prestate: record git status with an empty root.
"$FSREPLAY" record -o "$WORK/bpe.trace" --root "$WORK/empty" -- git -C repo status > /dev/null 2> bpe.log
echo "bytes/event, git status (empty --root, no prestate): $(tail -1 bpe.log)"
"$FSREPLAY" record -o "$WORK/bpe2.trace" --root "$WORK/empty" -- git clone -q --no-hardlinks repo clone-bpe 2> bpe2.log
rm -rf clone-bpe
echo "bytes/event, git clone (empty --root, no prestate): $(tail -1 bpe2.log)"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What a stat costs on this machine, by what ran just before it: the floor
# under the same-mount fidelity of stat-dense workloads (issue 14).
#
#   dev/bench/stat-state.sh [-n ROUNDS] [-b FSREPLAY]
#
# On a fresh loop-mounted ext4 holding a clone of git/git (or, without the
# /work/.mirror/git+git mirror, dev/workloads/make-git-repo.py's 4,800
# files), `du -sh g` is timed per fstatat call by an LD_PRELOAD shim
# (dev/bench/fstatat-shim.c: two clock reads around the raw call, nothing
# else), in four states of the machine, then replayed:
#   back-to-back  the 8th of 8 du runs in a row
#   after-spin    du right after 100 ms of a CPU-bound shell loop
#   after-idle    du right after a 1 s sleep
#   after-replay  du right after an afap replay of its own trace
#   replay        that afap replay's newfstatat calls (fsreplay dump --json)
# and, in a tight loop of du's own stat paths (dev/bench/stat-loop.c), the
# cost of the same calls with 0, 5 and 20 us of pause-spinning before each:
# time alone, with no memory touched, takes the kernel's data out of cache.
# The replay issues the same fstatat calls on the same tree (from the root's
# fd with the relative path). Prints medians over ROUNDS
# (default 3) of each state's per-call median and p90, and the summed call
# time. Root (loop mount, recorder). Asserts nothing.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin=$repo/build/cli/fsreplay
rounds=3
while [[ $# -gt 0 ]]; do
  case $1 in
    -n) rounds=$2; shift 2 ;;
    -b) bin=$2; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "stat-state: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $(id -u) == 0 ]] || { echo "stat-state: run as root (loop mount, recorder)" >&2; exit 1; }
[[ -x $bin ]] || { echo "stat-state: $bin not found (build first, or -b)" >&2; exit 1; }
for t in jq cc git python3; do command -v $t > /dev/null || { echo "stat-state: $t missing (tools/install-deps)" >&2; exit 1; }; done

WORK=$(mktemp -d /var/tmp/fsr-stat-state.XXXXXX)
# shellcheck disable=SC2034 # read by fresh-fs.sh, sourced next
CLONES=1 FRESH_FS_MIB=1024
# shellcheck source=fresh-fs.sh
source "$here/fresh-fs.sh"
trap 'cd /; fresh_fs_umount; rm -rf "$WORK"' EXIT
cc -O2 -shared -fPIC -o "$WORK/shim.so" "$here/fstatat-shim.c"
cc -O2 -o "$WORK/stat-loop" "$here/stat-loop.c"
fresh_fs clone
tree=$WORK/fresh1
[[ $FRESH_FS_KIND == "fresh ext4 per clone" ]] || { mkdir -p "$WORK/fresh1"; echo "stat-state: $FRESH_FS_KIND" >&2; }
mirror=/work/.mirror/git+git/repo
if [[ -d $mirror ]]; then
  git clone -q --depth 1 "file://$mirror" "$WORK/src" 2> /dev/null
  git clone -q --no-hardlinks "$WORK/src" "$tree/g"
  what="git/git"
else
  python3 "$repo/dev/workloads/make-git-repo.py" "$tree/g" > /dev/null
  what="make-git-repo.py's tree"
fi
sync
cd "$tree"
out=$WORK/shim.out
du_shim() { : > "$out"; FSR_SHIM_OUT=$out LD_PRELOAD=$WORK/shim.so du -sh g > /dev/null; cat "$out"; }
spin() { local end=$((${EPOCHREALTIME/./} + 100000)); while ((${EPOCHREALTIME/./} < end)); do :; done; }
"$bin" record -q -o "$WORK/du.trace" -- du -sh g > /dev/null 2>&1
for _ in 1 2 3; do du_shim > /dev/null; done  # warm-up
declare -A rows
add() { rows[$1]+="$2"$'\n'; }
for _ in $(seq "$rounds"); do
  for _ in 1 2 3 4 5 6 7; do du_shim > /dev/null; done
  add back-to-back "$(du_shim)"
  spin; add after-spin "$(du_shim)"
  sleep 1; add after-idle "$(du_shim)"
  "$bin" replay "$WORK/du.trace" --target "$tree" -q --timing afap -o "$WORK/r.result" > /dev/null
  add after-replay "$(du_shim)"
  add replay "$("$bin" dump --json "$WORK/r.result" | jq -r 'select(.name == "newfstatat") | .latency' |
    sort -n | awk '{ v[NR] = $1; s += $1 } END { printf "fstatat %d %d %d %d\n", NR, v[int(NR / 2) + 1], v[int(NR * 9 / 10) + 1], s }')"
done
"$bin" dump --json "$WORK/du.trace" | jq -r 'select(.name == "newfstatat" and .path != null) | .path' |
  sed -n "s|^$tree/||p" > "$WORK/du.paths"
"$WORK/stat-loop" "$tree" "$WORK/du.paths" 0 5000 20000 > "$WORK/loop.out"
echo "stat-state: du -sh over $what on a fresh ext4, $rounds rounds, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ)"
printf '%-14s %8s %10s %10s %12s\n' state calls median_ns p90_ns sum_ms
for s in back-to-back after-spin after-idle after-replay replay; do
  printf '%s' "${rows[$s]}" | python3 -c '
import statistics, sys
rows = [l.split() for l in sys.stdin if l.startswith("fstatat")]
med = lambda k: statistics.median(int(r[k]) for r in rows)
print("%-14s %8d %10d %10d %12.2f" % (sys.argv[1], med(1), med(2), med(3), med(4) / 1e6))' "$s"
done
while read -r _ spin m p; do
  printf '%-14s %8d %10d %10d %12s\n' "loop+${spin}ns" "$(wc -l < "$WORK/du.paths")" "$m" "$p" -
done < "$WORK/loop.out"

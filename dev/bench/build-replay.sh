#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# build-replay.sh [-n RUNS] [-w c-build|git-build] [BUILD_DIR]
#
# A real build, the product's first use: run untraced and recorded, in
# interleaved rounds, each on a fresh loop-mounted ext4 (after a warm-up run
# and a sync); each round also replays the trace it recorded, in think mode,
# on a fresh ext4. Prints every run, the medians, the replay's ratio to the
# untraced build, its divergences, the peak of the replayer's mappings
# against vm.max_map_count, and the peak RSS of the replay and of `report`.
# Asserts nothing. Root (loop mounts, the recorder).
#
#   c-build    dev/workloads/make-c-project.py's project (C_BUILD_FILES, default
#              1500, C_BUILD_CFLAGS default -O1), make -j2
#   git-build  git itself, make -j2, from GIT_BUILD_SRC (default: the lead's mirror
#              /work/.mirror/git+git/repo; read-only, nothing of it is committed)
#
# Environment: as dev/workloads/run-workload.sh; BENCH_DIR (default /var/tmp).
set -euo pipefail

runs=3
name='c-build'
while getopts "n:w:" o; do
  case $o in
    n) runs=$OPTARG ;;
    w) name=$OPTARG ;;
    *) echo "usage: build-replay.sh [-n RUNS] [-w c-build|git-build] [BUILD_DIR]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
fsreplay=$build/cli/fsreplay
runner=$here/../workloads/run-workload.sh
[ -x "$fsreplay" ] || { echo "build-replay: $fsreplay not found (build first)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "build-replay: run as root (loop mounts, the recorder)" >&2; exit 1; }
[ "$name" != git-build ] || export GIT_BUILD_SRC=${GIT_BUILD_SRC:-/work/.mirror/git+git/repo}
export FSREPLAY=$fsreplay

work=$(mktemp -d "${BENCH_DIR:-/var/tmp}/fsr-build-replay.XXXXXX")
mnt=$work/fs
cleanup() {
  mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
  rm -rf "$work"
}
trap cleanup EXIT
# A just-made ext4 at $mnt (the previous one unmounted), synced.
fresh() {
  mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
  mkdir -p "$mnt"
  rm -f "$work/fs.img"
  truncate -s "${BENCH_FS_MIB:-4096}M" "$work/fs.img"
  mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$work/fs.img"
  mount -o loop "$work/fs.img" "$mnt"
  sync
}
wall_of() { sed -n 's/^wall_s=//p' "$1"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "build-replay: $name, $runs rounds, load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
fresh
WORKLOAD_TMPDIR=$mnt "$runner" --no-record "$name" "$work/warm" > /dev/null 2>&1 || true  # warm-up: caches, toolchain pages
plain=() recorded=() replays=() ratios=()
replay_once() {  # replay_once ROUND: this round's trace, think mode, on a fresh ext4
  fresh
  mkdir -p "$mnt/t" "$mnt/s"
  /usr/bin/time -f "%M" -o "$work/rss" "$fsreplay" replay "$work/$name.trace" --timing think --target "$mnt/t" \
    --scratch "$mnt/s" -o "$work/replay.result" --json --quiet > "$work/replay.json"
  replays+=("$(python3 -c "import json; print(json.load(open('$work/replay.json'))['wall_ns'] / 1e9)")")
  python3 - "$work/replay.json" "$(cat "$work/rss")" "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); a = j["address_space"]
print(f"  replay {sys.argv[3]}: {j['wall_ns'] / 1e9:.2f} s, {j['ops']} ops, {j['divergences']} divergent "
      f"({100 * j['divergences'] / max(j['ops'], 1):.3f}%), peak {a['peak_mappings']} mappings "
      f"({100 * a['peak_mappings'] / a['max_map_count']:.1f}% of {a['max_map_count']}), {a['peak_spaces']} "
      f"address spaces at once, peak RSS {int(sys.argv[2]) // 1024} MiB")
for w in j["warnings"]:
    print(f"    warning: {w}")
PY
}
# Each round runs the three in turn, each on its own fresh ext4: the untraced
# build, the recorded one, and the replay of the trace just recorded. The
# round's ratio is taken within it, so a machine that drifts over the bench
# (this one's builds swing 19-24 s from one quarter hour to the next) moves
# all three together.
for r in $(seq "$runs"); do
  fresh
  WORKLOAD_TMPDIR=$mnt "$runner" --no-record "$name" "$work/plain" > /dev/null 2> "$work/plain.err"
  plain+=("$(wall_of "$work/plain/$name.facts")")
  fresh
  WORKLOAD_TMPDIR=$mnt "$runner" "$name" "$work/rec" > "$work/inspect.txt" 2> "$work/rec.err"
  recorded+=("$(wall_of "$work/rec/$name.facts")")
  cp "$work/rec/$name.trace" "$work/$name.trace"
  echo "  round $r: untraced ${plain[-1]} s, recorded ${recorded[-1]} s (load $(cut -d' ' -f1 /proc/loadavg))"
  replay_once "$r"
  ratios+=("$(python3 -c "print(${replays[-1]} / ${plain[-1]})")")
  echo "  round $r: replay/untraced $(python3 -c "print(f'{100 * (${ratios[-1]} - 1):+.1f}%')")"
done
grep -E "^(events|processes|size|drops)" "$work/inspect.txt" | sed 's/^/  trace: /'

/usr/bin/time -f "%e %M" -o "$work/rss" "$fsreplay" report "$work/replay.result" --quiet > /dev/null
read -r rs rk < "$work/rss"
p=$(printf '%s\n' "${plain[@]}" | median)
c=$(printf '%s\n' "${recorded[@]}" | median)
y=$(printf '%s\n' "${replays[@]}" | median)
echo "medians: untraced $p s, recorded $c s ($(python3 -c "print(f'{$c / $p:.3f}')")x), think replay $y s" \
     "($(python3 -c "print(f'{100 * ($y / $p - 1):+.1f}')")% against untraced)"
echo "median of the rounds' replay/untraced: $(python3 -c "print(f'{100 * ($(printf '%s\n' "${ratios[@]}" | median) - 1):+.1f}')")%"
echo "report of the last result: $rs s, peak RSS $((rk / 1024)) MiB"

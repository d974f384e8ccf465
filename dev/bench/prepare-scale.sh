#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# [SIZES="100000 1000000 4000000"] [EVENTS=20000] [FS=ext4|tmpfs] prepare-scale.sh [BUILD_DIR]
#
# fsreplay prepare at prestate sizes of 100 k, 1 M and 4 M entries: for each,
# a checkout-shaped synthetic trace (fsreplay_bench_tree_trace:
# traces/synthetic/synthetic_tree.h; directories of 10-200 entries, 3-8 deep, mostly
# small files, some symlinks and hard links, ~1% outside the recorded root,
# EVENTS events on it), then, each under GNU time (wall, peak RSS):
#   prepare    fsreplay prepare on a fresh file system (FS=ext4: a just-made
#              loop ext4 sized for the tree, the default; FS=tmpfs: a tmpfs)
#   again      fsreplay prepare on the prepared tree (every entry kept: a stat each)
#   verify     fsreplay replay --no-prepare --timing afap (the tree verified, then replayed)
#   replay     fsreplay replay --timing afap --keep-tree (prepared again, kept, replayed)
# bytes/entry is (peak RSS - the same run's peak RSS on a 1,000-entry tree
# with the same events) / entries: what the prestate adds per entry.
# Prints a table; asserts nothing. Needs root for the loop mount (FS=ext4).
#
# Environment: PREPARE_DIR (traces and file-system images, default /var/tmp),
# LABEL (printed with the binary's path: which build it is).
set -euo pipefail

sizes=${SIZES:-100000 1000000 4000000}
events=${EVENTS:-20000}
fs=${FS:-ext4}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-$here/../../build}
fsreplay=$build/cli/fsreplay
gen=$build/dev/bench/fsreplay_bench_tree_trace
for b in "$fsreplay" "$gen"; do
  [ -x "$b" ] || { echo "prepare-scale: $b not found (build first)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "prepare-scale: GNU time (/usr/bin/time) not installed (apt-get install time)" >&2; exit 1; }
case $fs in ext4|tmpfs) ;; *) echo "prepare-scale: FS is ext4 or tmpfs, not $fs" >&2; exit 2 ;; esac

work=$(mktemp -d "${PREPARE_DIR:-/var/tmp}/fsr-prepare.XXXXXX")
mnt=$work/mnt
mkdir -p "$mnt"
cleanup() {
  mountpoint -q "$mnt" 2> /dev/null && umount "$mnt"
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM  # (the EXIT trap unmounts)

# fresh_fs ENTRIES: unmounts the last one, mounts a new empty one at $mnt.
fresh_fs() {
  mountpoint -q "$mnt" && umount "$mnt"
  rm -f "$work/fs.img"
  if [ "$fs" = tmpfs ]; then
    mount -t tmpfs -o size=90%,nr_inodes=0 fsr-prepare "$mnt"
  else
    # An inode per entry and a 4 KiB block per file, and room for the larger ones.
    local inodes=$(( $1 + $1 / 5 + 20000 )) mib=$(( $1 * 8 / 1024 + 1024 ))
    truncate -s "${mib}M" "$work/fs.img"
    mkfs.ext4 -q -F -N "$inodes" -E lazy_itable_init=0,lazy_journal_init=0 "$work/fs.img"
    mount -o loop "$work/fs.img" "$mnt"
  fi
  mkdir -p "$mnt/t" "$mnt/s"
  sync
}
# timed CMD...: runs CMD (output to $work/out); sets secs and rss_kb.
timed() {
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" > "$work/out" 2> "$work/err" || {
    echo "prepare-scale: failed: $*" >&2
    cat "$work/err" >&2
    exit 1
  }
  read -r secs rss_kb < <(tail -n 1 "$work/time")
}
# run ENTRIES: the four runs on a fresh file system; sets the r_* arrays.
run() {
  local trace=$work/tree-$1.trace
  "$gen" "$1" "$trace" "$events" > "$work/gen"
  fresh_fs "$1"
  local common=(--target "$mnt/t" --scratch "$mnt/s" --quiet)
  timed "$fsreplay" prepare "$trace" "${common[@]}"; p_s=$secs p_kb=$rss_kb
  timed "$fsreplay" prepare "$trace" "${common[@]}"; a_s=$secs a_kb=$rss_kb
  timed "$fsreplay" replay "$trace" "${common[@]}" --no-prepare --timing afap --keep-tree \
    --max-divergence 100 -o "$work/r.result"; v_s=$secs v_kb=$rss_kb
  timed "$fsreplay" replay "$trace" "${common[@]}" --timing afap --keep-tree \
    --max-divergence 100 -o "$work/r.result"; r_s=$secs r_kb=$rss_kb
  trace_mib=$(( $(stat -c %s "$trace") >> 20 ))
  rm -f "$trace"
}

echo "prepare scale bench: $fsreplay${LABEL:+ ($LABEL)}; $(nproc) CPUs, $(( $(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo) / 1024 )) MiB available, load $(cut -d' ' -f1-3 /proc/loadavg), fs $fs, $events events"
run 1000
base_p=$p_kb base_v=$v_kb base_r=$r_kb
echo "baseline (1,000 entries): prepare ${p_kb} KiB, again ${a_kb} KiB, verify ${v_kb} KiB, replay ${r_kb} KiB"
printf '%-9s %-7s %-8s %-9s %-9s %-8s | %-7s %-8s | %-7s %-8s %-8s | %-7s %-8s %-8s\n' \
  entries trace prepare entries/s peak-RSS B/entry again RSS verify RSS B/entry replay RSS B/entry
per() { echo $(( ($1 - $2) * 1024 / $3 )); }
for n in $sizes; do
  run "$n"
  head -c 400 "$work/gen" | sed 's/^[^:]*: /  tree: /' >&2
  echo >&2
  printf '%-9s %-7s %-8s %-9s %-9s %-8s | %-7s %-8s | %-7s %-8s %-8s | %-7s %-8s %-8s\n' \
    "$n" "${trace_mib}M" "${p_s}s" "$(awk -v n="$n" -v s="$p_s" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')" \
    "$((p_kb / 1024))M" "$(per "$p_kb" "$base_p" "$n")" \
    "${a_s}s" "$((a_kb / 1024))M" \
    "${v_s}s" "$((v_kb / 1024))M" "$(per "$v_kb" "$base_v" "$n")" \
    "${r_s}s" "$((r_kb / 1024))M" "$(per "$r_kb" "$base_r" "$n")"
done

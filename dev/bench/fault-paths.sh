#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# [ROUNDS=N] fault-paths.sh [BUILD_DIR]
#
# What each page-fault path costs a recorded build: the c-build workload
# (C_BUILD_FILES, default 500) untraced, then recorded through the page
# cache's fault tracepoints (the default where the kernel has them), through
# fentry on filemap_fault/filemap_map_pages (FSREPLAY_RECORD_WITHOUT=
# tp_btf/mm_filemap_fault: 6.1 and 6.6's path), and through the VMA lookup
# (both forced off), in interleaved rounds, each run on a fresh loop-mounted
# ext4 after a warm-up. A path the kernel refuses falls back as `record`
# does and is printed as what it became. Prints every run's wall time and
# the ratio of each path's median to the untraced one. Asserts nothing. Root.
set -euo pipefail
runs=${ROUNDS:-2}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
export FSREPLAY=$build/cli/fsreplay C_BUILD_FILES=${C_BUILD_FILES:-500}
runner=$here/../workloads/run-workload.sh
[ -x "$FSREPLAY" ] || { echo "fault-paths: $FSREPLAY not found (build first)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "fault-paths: run as root (loop mounts, the recorder)" >&2; exit 1; }
work=$(mktemp -d "${BENCH_DIR:-/var/tmp}/fsr-fault-paths.XXXXXX")
mnt=$work/fs
trap 'mountpoint -q "$mnt" && umount "$mnt"; rm -rf "$work"' EXIT
fresh() {
  mountpoint -q "$mnt" 2>/dev/null && umount "$mnt"
  mkdir -p "$mnt"; rm -f "$work/fs.img"; truncate -s 4G "$work/fs.img"
  mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$work/fs.img"; mount -o loop "$work/fs.img" "$mnt"; sync
}
declare -A forced=([tracepoints]="" [fentry]="tp_btf/mm_filemap_fault" [vma]="fentry/filemap_fault,tp_btf/mm_filemap_fault")
paths=(tracepoints fentry vma)
declare -A walls
echo "fault-paths: c-build of $C_BUILD_FILES files, $runs rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
fresh; WORKLOAD_TMPDIR=$mnt "$runner" --no-record c-build "$work/o" > /dev/null 2>&1 || true  # warm-up
for r in $(seq "$runs"); do
  fresh; WORKLOAD_TMPDIR=$mnt "$runner" --no-record c-build "$work/o" > /dev/null 2>&1
  w=$(sed -n 's/^wall_s=//p' "$work/o/c-build.facts"); walls[untraced]+="$w "; echo "  round $r untraced $w s"
  for p in "${paths[@]}"; do
    fresh
    FSREPLAY_RECORD_WITHOUT=${forced[$p]} WORKLOAD_TMPDIR=$mnt "$runner" c-build "$work/o" > "$work/inspect" 2>&1
    w=$(sed -n 's/^wall_s=//p' "$work/o/c-build.facts"); walls[$p]+="$w "
    got=$(sed -n 's/^recorder *page_faults=\([a-z_]*\).*/\1/p' "$work/inspect")
    share=$(sed -n 's/^recorder faults.*(\([0-9.]*%\)).*/\1/p' "$work/inspect")
    echo "  round $r $p $w s (page_faults=$got; fault programs ${share:-?} of the gaps)"
  done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
u=$(echo "${walls[untraced]}" | median)
echo "medians: untraced $u s"
for p in "${paths[@]}"; do
  m=$(echo "${walls[$p]}" | median)
  echo "  $p: $m s ($(python3 -c "print(f'{$m / $u:.2f}')")x untraced)"
done

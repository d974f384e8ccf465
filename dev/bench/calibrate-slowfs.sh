#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# calibrate-slowfs: runs the measurements.md operation list (git clone of a
# local repository, git status x2, find | wc -l, du -sh, N x `echo x > f$i`,
# ls -l, rm of the small files, rm -rf of the repository) on a plain directory
# (ext4 here) and on slowfs with each WSL profile, and prints the ratios beside
# the published ones (WSL 3.0.1, microsoft/vscode clone, median of 3).
#
# The workload is scaled down so that all four targets finish in a few minutes
# on 2 cores: a generated repository of --files files (default 2000, ~4 MiB)
# instead of vscode (~10k files), --small small files instead of 5,000. Ratios,
# not absolute times, are what the profiles are tuned to.
#
#   calibrate-slowfs.sh [--files N] [--small N] [--repeat R] [--out FILE]
#                       [--profiles "wsl2-9p wsl2-virtiofs wsl1-drvfs"] [--work DIR]
# Needs root (slowfs mounts) and git. SLOWFS=path overrides the slowfs binary.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ML=$here/../mountlab/mountlab.sh
files=2000 small=2000 repeat=1 out="" profiles="wsl2-9p wsl2-virtiofs wsl1-drvfs" work_parent=/var/tmp
while [[ $# -gt 0 ]]; do
  case $1 in
    --files) files=$2; shift 2 ;;
    --small) small=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --profiles) profiles=$2; shift 2 ;;
    --work) work_parent=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "calibrate-slowfs: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $(id -u) -eq 0 ]] || { echo "calibrate-slowfs: needs root to mount slowfs" >&2; exit 1; }
command -v git >/dev/null || { echo "calibrate-slowfs: git not installed" >&2; exit 1; }

WORK=$(mktemp -d "$work_parent/calibrate-slowfs.XXXXXX")
export MOUNTLAB_STATE=$WORK/state TMPDIR=$WORK/tmp
mkdir -p "$TMPDIR"
cleanup() {
  local m
  for m in "$WORK"/mnt-*; do
    [[ -d $m ]] && awk -v m="$m" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo &&
      bash "$ML" down "$m" >/dev/null 2>&1
  done
  rm -rf -- "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the repository: nested directories, text files of 0.5-4 KiB -------------
src=$WORK/src.git
gen=$WORK/gen
mkdir -p "$gen"
(
  cd "$gen"
  git init -q -b main .
  python3 - "$files" <<'PY'
import os, random, sys
n = int(sys.argv[1]); rnd = random.Random(6)
words = "read write open close stat rename mkdir sync lookup inode dentry page cache".split()
# About 10 files per directory, 4 levels deep, like a source tree.
for i in range(n):
    k = i // 10
    d = f"src/a{k // 25}/b{(k // 5) % 5}/c{k % 5}"
    os.makedirs(d, exist_ok=True)
    with open(f"{d}/f{i}.txt", "w") as f:
        f.write(" ".join(rnd.choice(words) for _ in range(rnd.randint(80, 600))) + "\n")
PY
  git add -A
  git -c user.name=cal -c user.email=cal@example.invalid commit -q -m "generated workload"
)
git clone -q --bare "$gen" "$src"
rm -rf "$gen"
repo_mib=$(du -sm "$src" | cut -f1)

ops=(clone status1 status2 find du create ls rmsmall rmrepo)
declare -A T  # T[target,op] = seconds (median over repeats)

now() { echo "$EPOCHREALTIME"; }
run_ops() {  # DIR TARGET
  local dir=$1 tgt=$2 t0 t1 i
  cd "$dir"
  t0=$(now); git clone -q --no-hardlinks "$src" repo; t1=$(now); echo "clone $t0 $t1"
  t0=$(now); git -C repo status >/dev/null; t1=$(now); echo "status1 $t0 $t1"
  t0=$(now); git -C repo status >/dev/null; t1=$(now); echo "status2 $t0 $t1"
  t0=$(now); find repo -type f | wc -l >/dev/null; t1=$(now); echo "find $t0 $t1"
  t0=$(now); du -sh repo >/dev/null; t1=$(now); echo "du $t0 $t1"
  mkdir small
  t0=$(now); for ((i = 1; i <= small; i++)); do echo x >"small/f$i"; done; t1=$(now); echo "create $t0 $t1"
  t0=$(now); ls -l small >/dev/null; t1=$(now); echo "ls $t0 $t1"
  t0=$(now); rm -rf small; t1=$(now); echo "rmsmall $t0 $t1"
  t0=$(now); rm -rf repo; t1=$(now); echo "rmrepo $t0 $t1"
  cd /
}

measure() {  # TARGET (ext4 or a profile)
  local tgt=$1 r dir op t0 t1
  declare -A acc=()
  for ((r = 0; r < repeat; r++)); do
    if [[ $tgt == ext4 ]]; then
      dir=$WORK/plain; mkdir -p "$dir"
    else
      mkdir -p "$WORK/backing-$tgt"
      # --realtime: the emulated server answers on time even when the machine is busy.
      bash "$ML" slowfs-up "$WORK/backing-$tgt" "$WORK/mnt-$tgt" "$tgt" --realtime >&2
      dir=$WORK/mnt-$tgt
    fi
    while read -r op t0 t1; do
      acc[$op]+="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') "
    done < <(run_ops "$dir" "$tgt")
    if [[ $tgt != ext4 ]]; then bash "$ML" down "$WORK/mnt-$tgt" >&2; fi
  done
  for op in "${ops[@]}"; do
    T[$tgt,$op]=$(tr ' ' '\n' <<<"${acc[$op]}" | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  done
  echo "calibrate-slowfs: $tgt done" >&2
}

started=$(now)
measure ext4
for p in $profiles; do measure "$p"; done
elapsed=$(awk -v a="$started" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')

# Published (measurements.md): 9p, virtiofs, ext4 seconds.
declare -A P9=([clone]=305.1 [status1]=17.9 [status2]=17.7 [find]=7.92 [du]=16.6 [create]=7.64 [ls]=4.97 [rmsmall]=2.56 [rmrepo]=20.2)
declare -A PV=([clone]=112.8 [status1]=8.4 [status2]=8.2 [find]=2.96 [du]=4.17 [create]=3.03 [ls]=2.29 [rmsmall]=1.65 [rmrepo]=10.7)
declare -A PE=([clone]=3.84 [status1]=0.23 [status2]=0.08 [find]=0.05 [du]=0.05 [create]=0.10 [ls]=0.02 [rmsmall]=0.04 [rmrepo]=0.49)
declare -A NAME=([clone]="git clone" [status1]="git status (1st)" [status2]="git status (2nd)" [find]="find | wc -l"
  [du]="du -sh" [create]="create $small small files" [ls]="ls -l of those" [rmsmall]="remove the small files"
  [rmrepo]="remove the repository")

has() { [[ " $profiles " == *" $1 "* ]]; }
col() { has "$1" && echo "${T[$1,$2]}" || echo "-"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.1f", a / b }'; }
ratio2() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'; }

report() {
  echo "slowfs calibration: $(date -u +%Y-%m-%dT%H:%MZ), $(uname -r), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "workload: generated repo $files files (${repo_mib} MiB packed), $small small files; median of $repeat; ext4 = $work_parent; total ${elapsed}s"
  echo "command: dev/bench/calibrate-slowfs.sh --files $files --small $small --repeat $repeat"
  echo
  echo "| operation | ext4 s | 9p s | virtiofs s | drvfs s | 9p/ext4 | 9p/virtiofs | published 9p/virtiofs | published 9p/ext4 | virtiofs/ext4 | published virtiofs/ext4 |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  local op e n v d
  for op in "${ops[@]}"; do
    e=${T[ext4,$op]}; n=$(col wsl2-9p "$op"); v=$(col wsl2-virtiofs "$op"); d=$(col wsl1-drvfs "$op")
    echo "| ${NAME[$op]} | $e | $n | $v | $d | $(ratio "$n" "$e") | $(ratio2 "$n" "$v") | ${P9[$op]}/${PV[$op]} = $(ratio2 "${P9[$op]}" "${PV[$op]}") | $(ratio "${P9[$op]}" "${PE[$op]}") | $(ratio "$v" "$e") | $(ratio "${PV[$op]}" "${PE[$op]}") |"
  done
  echo
  echo "drvfs has no published per-operation figures; its profile is an estimate."
}

if [[ -n $out ]]; then report | tee "$out"; else report; fi

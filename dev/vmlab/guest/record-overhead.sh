#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How much longer a recorded run is than the untraced one on the lab's 9p,
# and whether a busy second CPU explains it: the seeds-like workload (clone
# of a 60-file repository, git status x2, find, du, 50 small files, ls -l,
# removed) on /mnt/c, per round: untraced; untraced beside a CPU hog (a
# nice 19 busy loop); recorded; recorded beside the hog. Prints each run's
# seconds and each recording's own span line; the recording's span, not the
# command's time (which holds the recorder's set-up), is what a replay aims at.
#   sudo [VMLAB_KERNEL_SUITE=trixie] dev/vmlab/vmlab run --accel tcg -- dev/vmlab/guest/record-overhead.sh build/cli/fsreplay [ROUNDS]
set -euo pipefail
fsr=$(readlink -f "${1:-build/cli/fsreplay}") rounds=${2:-3}
uname -r
export HOME=/root
git config --global safe.directory '*'
git config --global user.email lab@example.org
git config --global user.name lab
src=/mnt/rootlike/record-overhead-src
rm -rf "$src" && mkdir -p "$src" && cd "$src" && git init -q
for i in $(seq 60); do mkdir -p d$((i % 6)) && head -c $((i * 97)) /dev/urandom | base64 > d$((i % 6))/f$i; done
git add -A && git commit -qm x
w() {
  git clone -q --no-hardlinks "$src" clone
  (cd clone && git status > /dev/null && git status > /dev/null)
  find . | wc -l > /dev/null
  du -sh . > /dev/null
  mkdir small
  for ((i = 0; i < 50; i++)); do echo "file $i" > small/f$i; done
  ls -l small > /dev/null
  rm -r small
  rm -rf clone
}
export -f w
export src
timed() {  # timed CMD...: seconds of CMD in a fresh directory on /mnt/c
  local d=/mnt/c/record-overhead-$RANDOM t0
  mkdir -p "$d" && sync
  t0=$EPOCHREALTIME
  (cd "$d" && "$@")
  python3 -c "print(f'{$EPOCHREALTIME - $t0:.3f}')"
  rm -rf "$d"
}
hog_start() { nice -n 19 bash -c 'while :; do :; done' & hog=$!; }
hog_stop() { kill "$hog" && wait "$hog" 2> /dev/null || true; }
timed bash -c w > /dev/null  # warm-up
for ((r = 1; r <= rounds; r++)); do
  echo "round $r untraced $(timed bash -c w)"
  hog_start
  echo "round $r untraced+hog $(timed bash -c w)"
  hog_stop
  echo "round $r recorded $(timed "$fsr" record -q -o /tmp/record-overhead.trace -- bash -c w) s with set-up; span $("$fsr" inspect /tmp/record-overhead.trace | awk '/^span/ {print $2, $3}')"
  hog_start
  echo "round $r recorded+hog $(timed "$fsr" record -q -o /tmp/record-overhead.trace -- bash -c w) s with set-up; span $("$fsr" inspect /tmp/record-overhead.trace | awk '/^span/ {print $2, $3}')"
  hog_stop
done

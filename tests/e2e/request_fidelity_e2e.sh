#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Request fidelity on an uncached FUSE mount (issue 41): a workload recorded
# on the mount and replayed there sends the mount the requests the workload
# sent. The mount (slowfs, no entry, attribute or negative caching, no
# injected latency) counts its requests per opcode; the counts are read
# (SIGUSR1) before and after each step, so each step's own requests are:
#   original  the workload, recorded (eBPF adds no request)
#   replay    `replay --no-prepare --no-verify --timing afap --keep-tree` on a
#             tree `prepare` made beforehand (counted apart)
#   old       the same with --walks from-root (every walk from the target's
#             root, parent directories kept per worker: the replay before)
# Checks: LOOKUP+GETATTR, OPEN, READ, WRITE and CREATE of the replay within
# ±3% of the original's; and the old walk measurably off (LOOKUP+GETATTR
# more than 3% over), which shows the check can fail. Counts, never times.
# Usage: request_fidelity_e2e.sh FSREPLAY SLOWFS   (root; exit 77 to skip)
set -euo pipefail
fsreplay=$(realpath "$1") slowfs=$(realpath "$2")
skip() { echo "SKIP: $*"; exit 77; }
[[ $(id -u) == 0 ]] || skip "needs root (eBPF recording, a FUSE mount)"
[[ -e /dev/fuse ]] || skip "no /dev/fuse"
command -v git >/dev/null || skip "git is not installed"
work=$(mktemp -d /var/tmp/fsreplay-reqfid.XXXXXX)
pid=
cleanup() {
  if [[ -n $pid ]]; then
    umount "$work/mnt" 2>/dev/null || umount -l "$work/mnt" 2>/dev/null || true
    for _ in $(seq 500); do kill -0 "$pid" 2>/dev/null || break; sleep 0.01; done
  fi
  [[ -n ${KEEP:-} ]] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT

# A source repository outside the mount: 300 files in nested directories.
src=$work/src
mkdir -p "$src"
for d in $(seq 12); do
  mkdir -p "$src/lib/m$d/sub"
  for f in $(seq 20); do echo "module $d file $f" > "$src/lib/m$d/f$f.c"; done
  for f in $(seq 5); do echo "header $d $f" > "$src/lib/m$d/sub/h$f.h"; done
done
git -C "$src" init -q
git -C "$src" -c user.email=t@t -c user.name=t add -A
git -C "$src" -c user.email=t@t -c user.name=t commit -qm init

mkdir -p "$work/backing" "$work/mnt"
"$slowfs" "$work/backing" "$work/mnt" --lat all=0 --attr-timeout 0 --entry-timeout 0 --negative-timeout 0 \
  --op-stats "$work/ops.txt" --pid-file "$work/pid" >"$work/slowfs.log" 2>&1 ||
  { cat "$work/slowfs.log"; skip "slowfs did not mount (FUSE refused?)"; }
pid=$(cat "$work/pid")
mkdir "$work/mnt/rec" "$work/mnt/tgt" "$work/mnt/old"

# snap NAME: the mount's counts so far, in $work/NAME.txt.
snap() {
  rm -f "$work/ops.txt"
  kill -USR1 "$pid"
  for _ in $(seq 1000); do [[ -s $work/ops.txt ]] && break; sleep 0.01; done
  [[ -s $work/ops.txt ]] || { echo "FAIL: slowfs wrote no counts on SIGUSR1"; exit 1; }
  cp "$work/ops.txt" "$work/$1.txt"
}

# The workload: relative walks from the cwd (git, find, du, ls), absolute
# ones, creates, writes and removals.
cat > "$work/workload.sh" <<WL
#!/bin/sh
set -e
cd "$work/mnt/rec"
git -c safe.directory='*' clone -q --no-hardlinks "$src" repo
cd repo
git status >/dev/null
git status >/dev/null
cat lib/m3/f7.c lib/m5/sub/h2.h >/dev/null
cd ..
find . | wc -l >/dev/null
du -s . >/dev/null
mkdir small
i=0
while [ \$i -lt 100 ]; do echo "file \$i" > small/f\$i; i=\$((i+1)); done
ls -l small >/dev/null
stat "$work/mnt/rec/repo/lib/m1/f1.c" >/dev/null
rm -r small
WL
chmod +x "$work/workload.sh"

snap before-record
"$fsreplay" record -q -o "$work/w.trace" --root "$work/mnt/rec" -- "$work/workload.sh" >"$work/record.log" 2>&1 ||
  { cat "$work/record.log"; echo "FAIL: record"; exit 1; }
snap after-record

# replay NAME TARGET [options]: prepare (counted apart), then the replay alone.
replay() {
  local name=$1 target=$2
  shift 2
  "$fsreplay" prepare "$work/w.trace" --target "$target" -q >"$work/$name.prepare.log" 2>&1 ||
    { cat "$work/$name.prepare.log"; echo "FAIL: prepare $name"; exit 1; }
  snap "before-$name"
  local rc=0
  "$fsreplay" replay "$work/w.trace" --target "$target" --no-prepare --no-verify --timing afap --keep-tree -q \
    -o "$work/$name.result" "$@" >"$work/$name.log" 2>&1 || rc=$?
  snap "after-$name"
  # 6: diverged (said in the log, checked below); anything else is a failure.
  [[ $rc == 0 || $rc == 6 ]] || { cat "$work/$name.log"; echo "FAIL: replay $name exited $rc"; exit 1; }
}
replay replay "$work/mnt/tgt"
replay old "$work/mnt/old" --walks from-root

# count OP FROM TO: the requests OP (or LOOKUP+GETATTR for "WALK") between two snapshots.
count() {
  awk -v op="$1" 'FNR == 1 { f++; next }
    (op == "WALK" && ($1 == "LOOKUP" || $1 == "GETATTR")) || $1 == op { n[f] += $2 }
    END { print n[2] - n[1] }' "$work/$2.txt" "$work/$3.txt"
}
fail=0
printf '%-8s %9s %9s %7s %9s %7s\n' opcode original replay ratio old ratio
for op in WALK OPEN READ WRITE CREATE; do
  o=$(count $op before-record after-record)
  r=$(count $op before-replay after-replay)
  x=$(count $op before-old after-old)
  ratio=$(awk -v a="$r" -v b="$o" 'BEGIN { printf "%.3f", b ? a / b : (a ? 99 : 1) }')
  ratio_old=$(awk -v a="$x" -v b="$o" 'BEGIN { printf "%.3f", b ? a / b : (a ? 99 : 1) }')
  printf '%-8s %9d %9d %7s %9d %7s\n' "$op" "$o" "$r" "$ratio" "$x" "$ratio_old"
  if [[ $o -lt 50 ]]; then
    echo "FAIL: the workload sent only $o $op requests: the check would mean nothing"
    fail=1
  fi
  if ! awk -v q="$ratio" 'BEGIN { exit !(q >= 0.97 && q <= 1.03) }'; then
    echo "FAIL: the replay sent $r $op requests against the original's $o (ratio $ratio, outside ±3%)"
    fail=1
  fi
  if [[ $op == WALK ]] && ! awk -v q="$ratio_old" 'BEGIN { exit !(q > 1.03) }'; then
    echo "FAIL: --walks from-root sent $x lookups and getattrs against $o: expected more than 3% over"
    fail=1
  fi
done
grep -h "divergences" "$work/replay.log" || true
if grep -q "divergences *[1-9]" "$work/replay.log"; then
  echo "FAIL: the replay diverged"
  fail=1
fi
# The recording itself is an input of report and compare (issue 41 item 2):
# set beside the replay of it, on the mount it was made on.
if ! "$fsreplay" report "$work/w.trace" >"$work/report.txt" 2>"$work/report.err" ||
   ! grep -q "(recording, fuse" "$work/report.txt"; then
  echo "FAIL: report of the recording: $(head -3 "$work/report.err" "$work/report.txt")"
  fail=1
fi
if ! "$fsreplay" compare "$work/w.trace" "$work/replay.result" >"$work/compare.txt" 2>"$work/compare.err"; then
  echo "FAIL: compare of the recording and its replay: $(cat "$work/compare.err")"
  fail=1
fi
[[ $fail == 0 ]] && echo "PASS: the replay sent the mount the original's requests (±3%)"
exit $fail

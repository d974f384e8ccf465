#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The racy-git warning (issue 41 item 3) on a real recording: `git clone`
# of a 120-file repository and `git status`, recorded on the local disk.
# git writes every file and then its index within one wall-clock second, so
# each file is racily clean and the status reads it whole again; replay and
# predict say so, with the count, because a run on a slower mount makes
# fewer of those reads. The workload starts just after a second boundary, so
# that the clone does not straddle one (then fewer files would be racy).
# Usage: racy_git_e2e.sh FSREPLAY PROFILE   (root; exit 77 to skip)
set -euo pipefail
fsreplay=$(realpath "$1") profile=$(realpath "$2")
skip() { echo "SKIP: $*"; exit 77; }
[[ $(id -u) == 0 ]] || skip "needs root (eBPF recording)"
command -v git >/dev/null || skip "git is not installed"
work=$(mktemp -d /var/tmp/fsreplay-racy.XXXXXX)
trap '[[ -n ${KEEP:-} ]] && echo "kept $work" || rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/rec" "$work/tgt"
for d in $(seq 6); do
  mkdir -p "$work/src/d$d"
  for f in $(seq 20); do echo "dir $d file $f" > "$work/src/d$d/f$f.c"; done
done
git -C "$work/src" init -q
git -C "$work/src" -c user.email=t@t -c user.name=t add -A
git -C "$work/src" -c user.email=t@t -c user.name=t commit -qm init
cat > "$work/workload.sh" <<WL
#!/bin/sh
set -e
ns=\$(date +%N)
sleep "\$(awk -v n="\$ns" 'BEGIN { printf "%.3f", (1e9 - n) / 1e9 + 0.02 }')"
cd "$work/rec"
git -c safe.directory='*' clone -q "$work/src" repo
cd repo
git status >/dev/null
WL
chmod +x "$work/workload.sh"
"$fsreplay" record -q -o "$work/c.trace" --root "$work/rec" -- "$work/workload.sh" >"$work/record.log" 2>&1 ||
  { cat "$work/record.log"; echo "FAIL: record"; exit 1; }
fail=0
rc=0
"$fsreplay" replay "$work/c.trace" --target "$work/tgt" -q -o "$work/c.result" >"$work/replay.out" 2>"$work/replay.err" || rc=$?
[[ $rc == 0 || $rc == 6 ]] || { cat "$work/replay.err"; echo "FAIL: replay exited $rc"; exit 1; }
"$fsreplay" predict "$work/c.trace" --profile "$profile" >"$work/predict.out" 2>"$work/predict.err" ||
  { cat "$work/predict.err"; echo "FAIL: predict"; exit 1; }
for verb in replay predict; do
  line=$(grep -m1 "warning: git: .* reads of .* files written in the same second" "$work/$verb.err" || true)
  if [[ -z $line ]]; then
    echo "FAIL: $verb gave no racy-git warning: $(cat "$work/$verb.err")"
    fail=1
    continue
  fi
  reads=$(sed -n 's/.*warning: git: \([0-9]*\) reads of \([0-9]*\) files.*/\1/p' <<<"$line")
  files=$(sed -n 's/.*warning: git: \([0-9]*\) reads of \([0-9]*\) files.*/\2/p' <<<"$line")
  echo "$verb: $reads re-reads of $files racily clean files"
  # The status re-reads each racily clean file once; all 120 are, unless a
  # loaded machine stretched the clone past its second (then fewer, not 0).
  if [[ $reads != "$files" || $files -lt 100 || $files -gt 120 ]]; then
    echo "FAIL: $verb counted $reads re-reads of $files files; want each of (nearly) the 120 files read once"
    fail=1
  fi
done
[[ $fail == 0 ]] && echo "PASS: replay and predict warn of git's racily clean re-reads, counted"
exit $fail

#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# timed.sh OUTFILE MODE: runs one workload of the recorder benchmarks (record-overhead.sh,
# record-ab.sh, record-bpf-stats.sh) from the directory of OUTFILE and writes
# its elapsed ns there. MODE status: `git status` $LOOP times in ./repo;
# clone: $CLONES clones of ./repo, each timed alone, into the fresh file
# systems of fresh-fs.sh when they are mounted.
out=$1; mode=$2; shift 2
cd "$(dirname "$out")" || exit 1
case $mode in
  status) start=$(date +%s%N); for i in $(seq "$LOOP"); do git -C repo status > /dev/null; done; end=$(date +%s%N) ;;
  clone) total=0; for i in $(seq "$CLONES"); do
      # Into a fresh file system per clone when fresh-fs.sh made them (see there).
      dst=clone; [ -d "fresh$i/lost+found" ] && dst=fresh$i/clone
      rm -rf "$dst"; s=$(date +%s%N); git clone -q --no-hardlinks repo "$dst"; e=$(date +%s%N); total=$((total + e - s))
    done; rm -rf clone; start=0; end=$total ;;
esac
echo $((end - start)) > "$out"

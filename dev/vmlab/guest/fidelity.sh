#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Guest side of dev/vmlab/bench-fidelity.sh. Each workload is recorded on
# the guest's ext4 (fresh mkfs, after an unrecorded warm-up), then, per
# target (ext4, 9p /mnt/c, virtiofs /mnt/cv), run for real and replayed in
# think mode RUNS times, interleaved. Prints "workload target real|replay run
# wall_ns ops divergent mount_behaviour" lines; replay summaries and results
# stay in /mnt/results/fidelity/.
#   fidelity.sh FSREPLAY MAKE_GIT_REPO_PY RUNS WORKLOAD...   (small, git, make)
set -euo pipefail
fsr=$1 mkrepo=$2 runs=$3; shift 3
res=/mnt/results/fidelity; mkdir -p $res
export HOME=/root; git config --global safe.directory '*'
small_files=${SMALL_FILES:-300} repo_files=${REPO_FILES:-150} c_files=${C_FILES:-8}

# The workloads, each run in the directory it is given (its recorded root).
w_small() {  # create, ls -l (stat + two xattr calls per file), stat, read, remove
  mkdir small
  for ((i = 1; i <= small_files; i++)); do echo "$i" > small/f$i; done
  ls -l small > /dev/null
  for ((i = 1; i <= small_files; i += 3)); do stat -c %s small/f$i > /dev/null; done
  cat small/* > /dev/null
  rm -rf small
}
w_git() {  # clone --no-hardlinks, status x2, find, du, rm -rf
  git clone -q --no-hardlinks /tmp/fid-src clone
  git -C clone status > /dev/null; git -C clone status > /dev/null
  find clone -type f | wc -l > /dev/null; du -sh clone > /dev/null
  rm -rf clone
}
w_make() {  # make -j2 of a small C library, then clean
  rm -rf cproj; mkdir cproj
  for ((i = 1; i <= c_files; i++)); do printf '#include <stdio.h>\nint f%d(void){return %d;}\n' $i $i > cproj/f$i.c; done
  printf 'SRCS=$(wildcard *.c)\nall: $(SRCS:.c=.o)\n\t$(CC) -shared -o libp.so $^\n%%.o: %%.c\n\t$(CC) -O2 -fPIC -c $< -o $@\n' > cproj/Makefile
  make -s -C cproj -j2
  rm -rf cproj
}
export -f w_small w_git w_make; export small_files c_files

fresh_ext4() {
  umount /mnt/ext4
  mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$VMLAB_EXT4_DEV"
  mount "$VMLAB_EXT4_DEV" /mnt/ext4
}
dir_of() { case $1 in ext4) echo /mnt/ext4 ;; 9p) echo /mnt/c ;; virtiofs) echo /mnt/cv ;; esac; }

python3 "$mkrepo" /tmp/fid-src --files "$repo_files" > /dev/null
for w in "$@"; do
  fresh_ext4; mkdir -p /mnt/ext4/root && (cd /mnt/ext4/root && bash -c "w_$w") > /dev/null  # warm-up
  fresh_ext4; mkdir -p /mnt/ext4/root; sync
  (cd /mnt/ext4/root && "$fsr" record -o $res/$w.trace --root /mnt/ext4/root -- bash -c "w_$w") > /dev/null 2> $res/$w.record.txt
  cp $res/$w.trace /tmp/$w.trace
  for t in ext4 9p virtiofs; do
    d=$(dir_of $t)
    for ((r = 1; r <= runs; r++)); do
      [[ $t = ext4 ]] && fresh_ext4
      mkdir -p $d/real-$w $d/replay-$w /mnt/ext4/scratch-$w-$t; sync
      s=$(date +%s%N); (cd $d/real-$w && bash -c "w_$w") > /dev/null; e=$(date +%s%N)
      echo "$w $t real $r $((e - s)) 0 0 0"
      rm -rf $d/real-$w; [[ $t = ext4 ]] && fresh_ext4 && mkdir -p $d/replay-$w /mnt/ext4/scratch-$w-$t
      sync
      "$fsr" replay /tmp/$w.trace --target $d/replay-$w --scratch /mnt/ext4/scratch-$w-$t --timing think --json \
        -o $res/$w.$t.$r.result > $res/$w.$t.$r.json 2> $res/$w.$t.$r.err || true
      "$fsr" report --format json $res/$w.$t.$r.result > $res/$w.$t.$r.report.json 2> /dev/null || true
      python3 - $res/$w.$t.$r.json $res/$w.$t.$r.report.json "$w $t replay $r" << 'PY'
import json, sys
j = json.load(open(sys.argv[1]))
try:
    m = json.load(open(sys.argv[2]))["target"].get("divergent_mount_behaviour", 0)
except Exception:
    m = -1
print(sys.argv[3], j["wall_ns"], j["ops"], j["divergences"], m)
PY
    done
  done
done

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Guest side of dev/vmlab/bench-seeds.sh: the seeds' operation list
# (the seeds' published WSL 3.0.1 figures) on the guest's ext4, its 9p /mnt/c
# and its virtiofs /mnt/cv, RUNS rounds, the targets interleaved in each
# round. Prints "round target operation ns" lines.
#   seeds.sh SRC_REPO RUNS SMALL_FILES
set -euo pipefail
src=$1 runs=$2 small=$3
export GIT_CONFIG_NOSYSTEM=1 HOME=/root
git config --global safe.directory '*'
t_op() {  # t_op ROUND TARGET OP CMD...: sync, then time CMD
  local r=$1 t=$2 op=$3 s e; shift 3
  sync
  s=$(date +%s%N); "$@" > /dev/null; e=$(date +%s%N)
  echo "$r $t $op $((e - s))"
}
create_small() { local i; for ((i = 1; i <= small; i++)); do echo x > "$1/f$i"; done; }
fresh_ext4() {
  umount /mnt/ext4
  mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$VMLAB_EXT4_DEV"
  mount "$VMLAB_EXT4_DEV" /mnt/ext4
}
ops() {  # ops ROUND TARGET DIR
  local r=$1 t=$2 d=$3
  mkdir -p "$d"
  t_op "$r" "$t" clone git clone -q --no-hardlinks "$src" "$d/repo"
  t_op "$r" "$t" status1 git -C "$d/repo" status
  t_op "$r" "$t" status2 git -C "$d/repo" status
  t_op "$r" "$t" find sh -c "find '$d/repo' -type f | wc -l"
  t_op "$r" "$t" du du -sh "$d/repo"
  mkdir -p "$d/small"
  t_op "$r" "$t" create create_small "$d/small"
  t_op "$r" "$t" ls ls -l "$d/small"
  t_op "$r" "$t" rmsmall rm -rf "$d/small"
  t_op "$r" "$t" rmrepo rm -rf "$d/repo"
}
# The source in guest memory (as a local mirror would be in WSL's own disk
# cache), not read through the host-root share; then a warm-up clone.
cp -a "$src" /tmp/seeds-src.git && src=/tmp/seeds-src.git
git clone -q --no-hardlinks "$src" /tmp/warm && rm -rf /tmp/warm
for ((r = 1; r <= runs; r++)); do
  fresh_ext4
  ops "$r" ext4 /mnt/ext4/seeds
  ops "$r" 9p "$VMLAB_C/seeds-9p-$r"
  ops "$r" virtiofs "$VMLAB_CV/seeds-vfs-$r"
  rm -rf "$VMLAB_C/seeds-9p-$r" "$VMLAB_CV/seeds-vfs-$r"
done

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The distros tests' workload in an empty chroot, run by a statically linked
# busybox (Debian's busybox-static) that is the chroot's only program beside
# fsreplay: under /work/rec, a tree of FILES small files in 12 directories,
# tarred, untarred elsewhere, checksummed, listed, found, copied and partly
# removed: a process per applet, as a shell script makes.
#   usage: /work/busybox sh workload-busybox.sh FILES
set -eu
bb=/work/busybox
files=$1
i=0
while [ "$i" -lt "$files" ]; do
  d=tree/d$((i % 12))
  [ -d "$d" ] || $bb mkdir -p "$d"
  echo "file $i of the busybox workload" >"$d/f$i.txt"
  i=$((i + 1))
done
$bb tar -cf tree.tar tree
$bb mkdir copy
$bb tar -xf tree.tar -C copy
$bb find copy -type f | $bb sort | $bb xargs $bb sha1sum >sums.txt
$bb ls -lR tree >listing.txt
$bb cp -r tree tree2
$bb rm -rf tree2/d1 tree2/d2 tree.tar
$bb du -s copy tree tree2 >du.txt
$bb wc -l sums.txt

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs in the vm lab's guest (Debian's stock 6.1 kernel, BTF; the host's root
# read-only): the static fsreplay records, on the guest's ext4, a git clone of
# a local 150-file repository and a gcc build of two files with the host's git
# and gcc, replays the trace on a fresh ext4 directory and reports it; JSON
# for the host's checks goes to /mnt/results.
#   usage (in the guest): guest_static.sh FSREPLAY_STATIC
set -euo pipefail
fs=$1
echo "guest kernel $(uname -r), BTF $(stat -c %s /sys/kernel/btf/vmlinux) bytes"
cd /mnt/ext4 && mkdir -p src rec target scratch
cd src
for i in $(seq 1 150); do echo "file $i" >"f$i.txt"; done
printf 'int u1(void);\nint main(void) { return u1() - 1; }\n' >main.c
printf 'int u1(void) { return 1; }\n' >u1.c
git init -q && git add -A && git -c user.email=distros@fsreplay -c user.name=distros commit -qm workload
cd /mnt/ext4/rec
"$fs" record -o /mnt/results/vm.trace --root /mnt/ext4/rec -- sh -c 'git clone -q --no-hardlinks /mnt/ext4/src clone &&
  cd clone && gcc -O1 -c main.c && gcc -O1 -c u1.c && gcc -o hello main.o u1.o && ./hello && git status --short'
"$fs" inspect /mnt/results/vm.trace --json >/mnt/results/inspect.json
"$fs" replay /mnt/results/vm.trace --target /mnt/ext4/target --scratch /mnt/ext4/scratch -o /mnt/results/vm.result \
  --json >/mnt/results/replay.json
"$fs" report /mnt/results/vm.result >/mnt/results/report.txt
head -8 /mnt/results/report.txt

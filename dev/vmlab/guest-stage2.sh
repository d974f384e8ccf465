#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# vmlab's stage 2, PID 1 in the guest after switch_root (the host's /bin/sh
# on the host's read-only root). Copied into the control share by vmlab: runs
# the command with its output in the control share, writes its status there,
# syncs and powers the guest off. PID 1 must never exit (the kernel would
# panic): it powers off instead.
ctl=/mnt/vmlabctl
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
export VMLAB_GUEST=1 VMLAB_C=/mnt/c VMLAB_CV=/mnt/cv VMLAB_EXT4=/mnt/ext4 VMLAB_EXT4_DEV=/dev/vda VMLAB_RESULTS=/mnt/results
. $ctl/env
hostname vmlab 2> /dev/null
# Kernel warnings and stacks to the console from here on (booted quiet): a
# soft lockup's stacks are printed before its panic ends the guest.
echo 7 > /proc/sys/kernel/printk 2> /dev/null
/bin/bash $ctl/cmd > $ctl/stdout 2> $ctl/stderr < /dev/null
echo $? > $ctl/status.tmp
cat /proc/uptime > $ctl/uptime
sync
mv $ctl/status.tmp $ctl/status
sync
echo o > /proc/sysrq-trigger
while :; do sleep 60; done

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# vmlab's command line: the command's stdout and stderr come back apart, its
# exit status is vmlab's, a timeout gives 124, usage errors 2, and nothing is
# left behind (no QEMU, virtiofsd or temp dir of this test's runs).
# Usage: vm_lab_cli_test.sh VMLAB CACHE_DIR   (root; exit 77 = skipped, with the reason)
set -uo pipefail
vmlab=$1
export VMLAB_CACHE=$2
[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root"; exit 77; }
command -v qemu-system-x86_64 > /dev/null || { echo "SKIP: qemu-system-x86_64 missing (tools/install-deps)"; exit 77; }
VMLAB_TMPDIR=$(mktemp -d /var/tmp/fsr-vm-cli.XXXXXX)
export VMLAB_TMPDIR
trap 'rm -rf "$VMLAB_TMPDIR"' EXIT
fails=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi; }

"$vmlab" run --bogus -- true 2> /dev/null; check "unknown option exits 2" "[[ $? -eq 2 ]]"
"$vmlab" --help | grep -q 'vmlab run'; check "--help documents run" "[[ $? -eq 0 ]]"
"$vmlab" run --disk-mib 64 -- sh -c 'echo "out $(uname -r)"; echo err >&2; test -e /sys/kernel/btf/vmlinux && mountpoint -q /mnt/c && mountpoint -q /mnt/cv && mountpoint -q /mnt/ext4 || exit 9; exit 3' \
  > "$VMLAB_TMPDIR/out" 2> "$VMLAB_TMPDIR/err"
rc=$?
if [[ $rc -eq 77 ]]; then cat "$VMLAB_TMPDIR/err"; echo "SKIP: the lab cannot run here"; exit 77; fi
check "exit status comes back (3, got $rc)" "[[ $rc -eq 3 ]]"
check "stdout comes back: $(head -1 "$VMLAB_TMPDIR/out")" "grep -q '^out 6\.' '$VMLAB_TMPDIR/out'"
check "stderr comes back apart" "grep -qx err '$VMLAB_TMPDIR/err' && ! grep -q err '$VMLAB_TMPDIR/out'"
"$vmlab" run --timeout 3 --disk-mib 0 -- sleep 600 2> /dev/null
check "a timeout exits 124" "[[ $? -eq 124 ]]"
check "no temp dir left" "[[ -z \$(ls -A '$VMLAB_TMPDIR' | grep -v -e '^out$' -e '^err$') ]]"
check "no QEMU or virtiofsd of ours left" "! pgrep -f '$VMLAB_TMPDIR' > /dev/null"
[[ $fails -eq 0 ]]

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Mounts and unmounts each mountlab target and checks nothing is left behind:
# no mount in /proc/self/mountinfo, no loop device on the image, no temporary
# directory, no state file. Also checks the rollback after a failure and after
# Ctrl-C. Usage: mount_mountlab_test.sh MOUNTLAB_SH SLOWFS_BINARY
set -uo pipefail
ML=$1
export SLOWFS=$2
[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root (loop and allow_other mounts)"; exit 77; }
[[ -w /dev/fuse ]] || { echo "SKIP: no /dev/fuse"; exit 77; }

WORK=$(mktemp -d /tmp/mountlab-test.XXXXXX)
export MOUNTLAB_STATE=$WORK/state
export TMPDIR=$WORK/tmp
mkdir -p "$TMPDIR" "$WORK/src"
echo hello >"$WORK/src/file"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
finish() {  # never leave a mount behind, even when a check failed
  local m
  for m in $(awk -v w="$WORK" 'index($5, w) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do
    umount -l "$m" 2>/dev/null
  done
  rm -rf -- "$WORK"
}
trap finish EXIT

mounted() { awk -v m="$1" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; }
fstype_of() { awk -v m="$1" '$5 == m { for (i = 7; i <= NF; i++) if ($i == "-") { print $(i + 1); exit } }' /proc/self/mountinfo; }

check_clean() {  # NAME MNT
  if mounted "$2"; then fail "$1: $2 still mounted"; else ok "$1: $2 unmounted"; fi
  [[ -e $2 ]] && fail "$1: mount point $2 left behind"
  [[ -n $(find "$MOUNTLAB_STATE" -mindepth 1 -maxdepth 1 ! -name '*.pid' 2>/dev/null) ]] && fail "$1: state left: $(ls "$MOUNTLAB_STATE")"
  [[ -n $(ls -A "$TMPDIR") ]] && fail "$1: temporary files left: $(ls "$TMPDIR")"
  losetup -a | grep -q "$WORK" && fail "$1: loop device left: $(losetup -a | grep "$WORK")"
  return 0
}

round_trip() {  # NAME EXPECTED_FSTYPE MNT UP_ARGS...
  local name=$1 want=$2 mnt=$3
  shift 3
  local out
  if ! out=$(bash "$ML" "$@" 2>&1); then fail "$name: up failed: $out"; return; fi
  echo "$out"
  if ! mounted "$mnt"; then fail "$name: $mnt not in mountinfo after up"; return; fi
  local got
  got=$(fstype_of "$mnt")
  [[ $got == "$want" ]] && ok "$name: type $got" || fail "$name: type $got, expected $want"
  echo data >"$mnt/written" && [[ $(cat "$mnt/written") == data ]] && ok "$name: write/read" || fail "$name: write/read"
  out=$(bash "$ML" down "$mnt" 2>&1) || fail "$name: down failed: $out"
  echo "$out"
  check_clean "$name" "$mnt"
}

round_trip slowfs fuse.slowfs "$WORK/m-slowfs" slowfs-up "$WORK/src" "$WORK/m-slowfs" wsl2-virtiofs
[[ -f $WORK/src/written ]] && ok "slowfs: write reached the backing dir" || fail "slowfs: backing dir lacks the file"
round_trip bindfs fuse "$WORK/m-bindfs" bindfs-up "$WORK/src" "$WORK/m-bindfs"
round_trip ext4 ext4 "$WORK/m-ext4" loop-up ext4 32 "$WORK/m-ext4"
round_trip xfs xfs "$WORK/m-xfs" loop-up xfs 300 "$WORK/m-xfs"
if command -v mkfs.btrfs >/dev/null; then
  round_trip btrfs btrfs "$WORK/m-btrfs" loop-up btrfs 128 "$WORK/m-btrfs"
else
  echo "skip: btrfs (mkfs.btrfs not installed: btrfs-progs)"
fi

# A failure half-way (mkfs rejects a tiny image... use a bad profile for slowfs) rolls back.
if bash "$ML" slowfs-up "$WORK/src" "$WORK/m-bad" no-such-profile >/dev/null 2>&1; then
  fail "slowfs-up with a bad profile succeeded"
else
  ok "slowfs-up with a bad profile failed"
fi
check_clean "failed slowfs-up" "$WORK/m-bad"
# Mounting on an occupied mount point is refused and leaves the first mount alone.
bash "$ML" loop-up ext4 32 "$WORK/m-busy" >/dev/null
if bash "$ML" loop-up ext4 32 "$WORK/m-busy" >/dev/null 2>&1; then fail "second mount on a busy point succeeded"; fi
mounted "$WORK/m-busy" && ok "busy mount point refused, first mount intact" || fail "first mount lost"
bash "$ML" down "$WORK/m-busy" >/dev/null
check_clean "busy" "$WORK/m-busy"

# Ctrl-C after the mount but before the command finished: everything is undone.
# Job control on, so the background job does not start with SIGINT ignored, and
# the signal goes to its whole process group, as a terminal's Ctrl-C does.
set -m
MOUNTLAB_TEST_PAUSE=5 bash "$ML" loop-up ext4 32 "$WORK/m-int" >/dev/null 2>&1 &
upid=$!
for _ in $(seq 1 100); do mounted "$WORK/m-int" && break; sleep 0.1; done
mounted "$WORK/m-int" && ok "interrupt test: mounted" || fail "interrupt test: never mounted"
kill -INT -- "-$upid"
wait "$upid"
rc=$?
[[ $rc -ne 0 ]] && ok "interrupted up exits $rc" || fail "interrupted up exited 0"
check_clean "Ctrl-C" "$WORK/m-int"

MOUNTLAB_TEST_PAUSE=5 bash "$ML" slowfs-up "$WORK/src" "$WORK/m-int2" wsl2-9p >/dev/null 2>&1 &
upid=$!
for _ in $(seq 1 100); do mounted "$WORK/m-int2" && break; sleep 0.1; done
kill -INT -- "-$upid"
wait "$upid"
sleep 0.5
check_clean "Ctrl-C slowfs" "$WORK/m-int2"

echo "mount_mountlab_test: $failures failure(s)"
[[ $failures -eq 0 ]]

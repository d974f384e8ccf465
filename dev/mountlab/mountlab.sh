#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# mountlab: mount and unmount the project's test targets — slowfs, bindfs and
# ext4/xfs/btrfs loop images — cleaning up after failures and Ctrl-C.
#
#   mountlab.sh slowfs-up BACKING MNT PROFILE [slowfs options...]
#   mountlab.sh bindfs-up SRC MNT
#   mountlab.sh loop-up ext4|xfs|btrfs SIZE_MIB MNT
#   mountlab.sh down MNT
#   mountlab.sh list
#
# MNT is created if missing (and removed again by `down`). Loop images live in
# a fresh temporary directory that `down` removes. What each mount needs to be
# undone is kept in $MOUNTLAB_STATE (default /run/mountlab, or $TMPDIR when
# not root). Needs root for loop mounts and for slowfs with allow_other.
# Environment: SLOWFS=path to the slowfs binary (else build*/ or PATH).
#
# Usable as a library too: `source mountlab.sh` defines the mountlab_* functions
# without running anything.
set -euo pipefail

mountlab_state_dir() {
  local d=${MOUNTLAB_STATE:-}
  if [[ -z $d ]]; then
    if [[ $(id -u) -eq 0 ]]; then d=/run/mountlab; else d=${TMPDIR:-/tmp}/mountlab-$(id -u); fi
  fi
  mkdir -p "$d"
  printf '%s\n' "$d"
}

mountlab_die() { printf 'mountlab: %s\n' "$*" >&2; exit 1; }
mountlab_say() { printf 'mountlab: %s\n' "$*"; }

# True if $1 (absolute, canonical) is a mount point; mountinfo escapes spaces as \040.
mountlab_is_mounted() {
  local want=${1// /\\040}
  awk -v m="$want" '$5 == m { found = 1 } END { exit !found }' /proc/self/mountinfo
}

mountlab_state_file() {  # MNT -> state file path
  local key=${1//\//_}
  printf '%s/%s.state\n' "$(mountlab_state_dir)" "$key"
}

mountlab_find_slowfs() {
  if [[ -n ${SLOWFS:-} ]]; then printf '%s\n' "$SLOWFS"; return; fi
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  local c
  for c in "$root"/build/emulators/slowfs/slowfs "$root"/build*/emulators/slowfs/slowfs "$root"/build*/*/slowfs/slowfs; do
    [[ -x $c ]] && { printf '%s\n' "$c"; return; }
  done
  command -v slowfs || mountlab_die "slowfs binary not found: build it (ninja -C build slowfs) or set SLOWFS=/path/to/slowfs"
}

# --- cleanup on failure / Ctrl-C during an *-up ------------------------------
# The pending_* variables describe what the current *-up has done so far.
pending_mnt="" pending_created_mnt=0 pending_imgdir="" pending_pid=""

mountlab_rollback() {
  local rc=$?
  trap - INT TERM ERR EXIT
  if [[ -n $pending_mnt ]] && mountlab_is_mounted "$pending_mnt"; then
    umount "$pending_mnt" 2>/dev/null || fusermount3 -u "$pending_mnt" 2>/dev/null || umount -l "$pending_mnt" 2>/dev/null || true
  fi
  if [[ -n $pending_pid ]]; then
    kill "$pending_pid" 2>/dev/null || true
  fi
  [[ -n $pending_imgdir ]] && rm -rf -- "$pending_imgdir"
  [[ $pending_created_mnt -eq 1 && -n $pending_mnt ]] && rmdir -- "$pending_mnt" 2>/dev/null
  [[ -n $pending_mnt ]] && rm -f -- "$(mountlab_state_file "$pending_mnt")"
  printf 'mountlab: failed or interrupted; cleaned up %s\n' "${pending_mnt:-nothing}" >&2
  exit $(( rc == 0 ? 130 : rc ))
}

mountlab_begin() {  # MNT: prepare the mount point, arm the rollback
  local mnt=$1
  if [[ ! -d $mnt ]]; then
    mkdir -p -- "$mnt" || mountlab_die "cannot create mount point $mnt"
    pending_created_mnt=1
  fi
  pending_mnt=$(cd "$mnt" && pwd -P)
  if mountlab_is_mounted "$pending_mnt"; then
    pending_mnt=""  # not ours: do not roll it back
    mountlab_die "$mnt is already a mount point: run 'mountlab.sh down $mnt' first"
  fi
  trap mountlab_rollback INT TERM ERR
}

mountlab_commit() {  # KIND [key=value...]: record how to undo, disarm the rollback
  local state
  state=$(mountlab_state_file "$pending_mnt")
  {
    printf 'kind=%q\n' "$1"
    printf 'mnt=%q\n' "$pending_mnt"
    printf 'created_mnt=%q\n' "$pending_created_mnt"
    printf 'imgdir=%q\n' "$pending_imgdir"
    printf 'pid=%q\n' "$pending_pid"
  } >"$state"
  # Test hook: a window in which a test can send Ctrl-C after the mount.
  if [[ -n ${MOUNTLAB_TEST_PAUSE:-} ]]; then sleep "$MOUNTLAB_TEST_PAUSE"; fi
  trap - INT TERM ERR
  pending_mnt="" pending_created_mnt=0 pending_imgdir="" pending_pid=""
}

# --- subcommands ---------------------------------------------------------------
mountlab_slowfs_up() {
  [[ $# -ge 3 ]] || mountlab_die "usage: mountlab.sh slowfs-up BACKING MNT PROFILE [slowfs options...]"
  local backing=$1 mnt=$2 profile=$3
  shift 3
  [[ -d $backing ]] || mountlab_die "backing directory $backing does not exist: create it first"
  local slowfs
  slowfs=$(mountlab_find_slowfs)
  mountlab_begin "$mnt"
  local pidfile
  pidfile=$(mountlab_state_dir)/slowfs.$$.pid
  "$slowfs" "$backing" "$pending_mnt" --profile "$profile" --pid-file "$pidfile" \
    -o default_permissions,allow_other "$@" >/dev/null
  pending_pid=$(cat "$pidfile")
  mountlab_is_mounted "$pending_mnt" || false
  local m=$pending_mnt pid=$pending_pid
  mountlab_commit slowfs
  mountlab_say "slowfs profile $profile: $backing on $m (pid $pid)"
}

mountlab_bindfs_up() {
  [[ $# -ge 2 ]] || mountlab_die "usage: mountlab.sh bindfs-up SRC MNT [bindfs options...]"
  local src=$1 mnt=$2
  shift 2
  [[ -d $src ]] || mountlab_die "source directory $src does not exist: create it first"
  command -v bindfs >/dev/null || mountlab_die "bindfs not installed: apt-get install bindfs"
  mountlab_begin "$mnt"
  bindfs "$@" "$src" "$pending_mnt"
  mountlab_is_mounted "$pending_mnt" || false
  local m=$pending_mnt
  mountlab_commit bindfs
  mountlab_say "bindfs: $src on $m"
}

mountlab_loop_up() {
  [[ $# -eq 3 ]] || mountlab_die "usage: mountlab.sh loop-up ext4|xfs|btrfs SIZE_MIB MNT"
  local fstype=$1 size=$2 mnt=$3
  case $fstype in ext4|xfs|btrfs) ;; *) mountlab_die "unsupported file system '$fstype': use ext4, xfs or btrfs" ;; esac
  [[ $size =~ ^[0-9]+$ ]] || mountlab_die "SIZE_MIB '$size' is not a number of MiB"
  local min=16; [[ $fstype == xfs ]] && min=300; [[ $fstype == btrfs ]] && min=114
  (( size >= min )) || mountlab_die "$fstype needs at least $min MiB, got $size"
  command -v "mkfs.$fstype" >/dev/null || mountlab_die "mkfs.$fstype not found: apt-get install $(
    case $fstype in ext4) echo e2fsprogs ;; xfs) echo xfsprogs ;; btrfs) echo btrfs-progs ;; esac)"
  [[ $(id -u) -eq 0 ]] || mountlab_die "loop mounts need root"
  mountlab_begin "$mnt"
  pending_imgdir=$(mktemp -d "${TMPDIR:-/tmp}/mountlab-img.XXXXXX")
  local img=$pending_imgdir/$fstype.img
  truncate -s "${size}M" "$img"
  case $fstype in
    ext4) mkfs.ext4 -q -F "$img" ;;
    xfs) mkfs.xfs -q -f "$img" ;;
    btrfs) mkfs.btrfs -q -f "$img" >/dev/null ;;
  esac
  mount -t "$fstype" -o loop "$img" "$pending_mnt"
  local dev m=$pending_mnt
  dev=$(findmnt -n -o SOURCE --mountpoint "$m" || true)
  mountlab_commit loop
  mountlab_say "$fstype loop image $img (${dev:-loop}) ${size} MiB on $m"
}

mountlab_down() {
  [[ $# -eq 1 ]] || mountlab_die "usage: mountlab.sh down MNT"
  [[ -d $1 ]] || mountlab_die "$1 does not exist"
  local mnt state kind="" created_mnt=0 imgdir="" pid=""
  mnt=$(cd "$1" && pwd -P)
  state=$(mountlab_state_file "$mnt")
  if [[ -f $state ]]; then
    # shellcheck disable=SC1090
    source "$state"
  fi
  if mountlab_is_mounted "$mnt"; then
    case $kind in
      slowfs|bindfs) fusermount3 -u "$mnt" 2>/dev/null || umount "$mnt" ;;
      *) umount "$mnt" ;;
    esac
  elif [[ -z $kind ]]; then
    mountlab_die "$mnt is not mounted and not known to mountlab"
  fi
  if [[ -n $pid ]]; then  # wait for the slowfs daemon to finish
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  fi
  [[ -n $imgdir ]] && rm -rf -- "$imgdir"
  [[ $created_mnt -eq 1 ]] && rmdir -- "$mnt" 2>/dev/null
  rm -f -- "$state"
  mountlab_say "unmounted ${kind:-mount} $mnt"
}

mountlab_list() {
  local f
  for f in "$(mountlab_state_dir)"/*.state; do
    [[ -f $f ]] || continue
    # shellcheck disable=SC1090 # a state file written by mountlab_up, one per mount
    ( source "$f"; printf '%s\t%s\n' "$kind" "$mnt" )
  done
}

mountlab_main() {
  local cmd=${1:-help}
  shift || true
  case $cmd in
    slowfs-up) mountlab_slowfs_up "$@" ;;
    bindfs-up) mountlab_bindfs_up "$@" ;;
    loop-up) mountlab_loop_up "$@" ;;
    down) mountlab_down "$@" ;;
    list) mountlab_list ;;
    help|-h|--help) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' ;;
    *) mountlab_die "unknown command '$cmd': use slowfs-up, bindfs-up, loop-up, down or list" ;;
  esac
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  mountlab_main "$@"
fi

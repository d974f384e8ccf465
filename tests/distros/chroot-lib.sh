#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sourced by the distros tests: a throw-away chroot over a cached tree and the
# mounts a recording needs, all undone on exit, failure or Ctrl-C.
#   distros_work                   make $work (under /var/tmp) and set the trap
#   distros_overlay TREE           $work/root: an overlay whose lower layer is
#                                  TREE (the cache is never written)
#   distros_tmpfs_root             $work/root: an empty tmpfs instead
#   distros_mount_api [--dev] [--work]  proc and sysfs (the recorder reads
#                                  /proc and /sys/kernel/btf/vmlinux; it uses no
#                                  tracefs or bpffs), /dev bound and a tmpfs on
#                                  /work if asked
#   inroot CMD...                  run CMD in the chroot with a clean environment
# Every mount is recorded in distros_mounts and unmounted in reverse order by
# the trap; $work is removed only when nothing is left mounted under it.
distros_mounts=()
work=
root=
distros_cleanup() {
  local i
  for ((i = ${#distros_mounts[@]} - 1; i >= 0; i--)); do
    umount "${distros_mounts[i]}" 2>/dev/null || umount -l "${distros_mounts[i]}" 2>/dev/null || true
  done
  distros_mounts=()
  [[ -n $work && -d $work ]] || return 0
  if grep -q " $work/" /proc/self/mountinfo; then
    echo "distros: mounts remain under $work: not removing it" >&2
  else
    rm -rf --one-file-system "$work"
  fi
}
distros_work() {
  work=$(mktemp -d /var/tmp/fsr-distros.XXXXXX)
  root=$work/root
  mkdir -p "$root"
  trap distros_cleanup EXIT
  trap 'echo "distros: interrupted, cleaning up" >&2; exit 130' INT TERM
}
distros_mount() {   # distros_mount TARGET MOUNT-ARGS...
  local target=$1; shift
  mkdir -p "$target"
  mount "$@" "$target"
  distros_mounts+=("$target")
}
distros_overlay() {
  mkdir -p "$work/upper" "$work/ovl"
  distros_mount "$root" -t overlay overlay -o "lowerdir=$1,upperdir=$work/upper,workdir=$work/ovl"
}
distros_tmpfs_root() { distros_mount "$root" -t tmpfs -o mode=755,size=512m tmpfs; }
distros_mount_api() {
  distros_mount "$root/proc" -t proc proc
  distros_mount "$root/sys" -t sysfs sysfs
  local a
  for a in "$@"; do
    case $a in
      --dev) # /dev/pts is its own mount: bound too, for openpty (the progress tests)
        distros_mount "$root/dev" --bind /dev
        distros_mount "$root/dev/pts" --bind /dev/pts ;;
      --work) distros_mount "$root/work" -t tmpfs -o mode=755,size=2g tmpfs ;;
    esac
  done
}
inroot() { env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C chroot "$root" "$@"; }

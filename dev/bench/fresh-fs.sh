# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced by record-overhead.sh and record-ab.sh: fresh file systems for the
# clone workload of timed.sh, one per clone ($CLONES), mounted at
# $WORK/fresh1..N.
#   fresh_fs clone   unmount the previous ones, make and mount new ones
#   fresh_fs none    unmount them (also done on exit)
# Each is a just-made ext4 on a loop device (inode tables and journal
# initialised by mkfs, so no ext4lazyinit thread writes during the clone).
# Without loop devices or mkfs.ext4, FRESH_FS_KIND says so and timed.sh
# clones into $WORK/clone after `rm -rf` as before.
FRESH_FS_KIND="fresh ext4 per clone"
FRESH_FS_MIB=${FRESH_FS_MIB:-512}

fresh_fs_umount() {
  local i
  for i in $(seq "${CLONES:-2}"); do
    mountpoint -q "$WORK/fresh$i" 2> /dev/null && umount "$WORK/fresh$i"
    rm -f "$WORK/fresh$i.img"
  done
  return 0
}

fresh_fs() {
  local i
  fresh_fs_umount
  [ "$1" = clone ] && [ "$FRESH_FS_KIND" != "no fresh file system: rm -rf between clones" ] || return 0
  for i in $(seq "${CLONES:-2}"); do
    mkdir -p "$WORK/fresh$i"
    truncate -s "${FRESH_FS_MIB}M" "$WORK/fresh$i.img"
    if ! mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$WORK/fresh$i.img" 2> /dev/null ||
       ! mount -o loop "$WORK/fresh$i.img" "$WORK/fresh$i" 2> /dev/null; then
      echo "fresh-fs: no loop-mounted ext4 here (mkfs.ext4 or loop devices missing): clones go to $WORK/clone after rm -rf, and their times swing with ext4's history" >&2
      FRESH_FS_KIND="no fresh file system: rm -rf between clones"
      fresh_fs_umount
      return 0
    fi
  done
  sync
}

trap fresh_fs_umount EXIT

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs a test command with FSR_TEST_TMPDIR on a fresh overlayfs mount (a
# container's root file system is one): lower and upper directories on the
# local disk, merged at a unique mount point, unmounted and removed after.
#   on_overlayfs.sh CMD ARGS...
set -eu
[ "$(id -u)" = 0 ] || { echo "on_overlayfs: needs root (mount)" >&2; exit 77; }
base=$(mktemp -d /tmp/fsr-rec-ovl.XXXXXX)
mkdir "$base/lower" "$base/upper" "$base/work" "$base/merged"
cleanup() { umount "$base/merged" 2>/dev/null || true; rm -rf "$base"; }
trap cleanup EXIT
if ! mount -t overlay overlay -o "lowerdir=$base/lower,upperdir=$base/upper,workdir=$base/work" "$base/merged"; then
  echo "on_overlayfs: SKIP: this kernel cannot mount overlayfs" >&2
  exit 77
fi
st=0
FSR_TEST_TMPDIR="$base/merged" "$@" || st=$?
exit $st

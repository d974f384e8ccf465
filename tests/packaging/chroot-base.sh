#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes (once) and prints the path of a cached clean Debian 12 chroot tarball:
# `debootstrap --variant=minbase bookworm` from Debian's mirror, apt lists
# fetched, packed as one .tar.zst under the cache directory. Later runs reuse
# it; it is rebuilt when older than FSREPLAY_CHROOT_MAX_DAYS (default 30) and
# the mirror is reachable.
#   usage: chroot-base.sh [CACHE_DIR]   (default /var/cache/fsreplay-packaging)
# Exit 0 with the tarball's path on stdout; 77 (skip) with the reason on
# stderr when there is no cached tarball and the mirror cannot be reached;
# 1 on any other failure. Run as root.
set -euo pipefail
cache=${1:-/var/cache/fsreplay-packaging}
mirror=${FSREPLAY_DEBIAN_MIRROR:-http://deb.debian.org/debian}
max_days=${FSREPLAY_CHROOT_MAX_DAYS:-30}
tarball=$cache/bookworm-minbase.tar.zst

mirror_reachable() {
  python3 - "$mirror/dists/bookworm/Release" <<'PY'
import sys, urllib.request
try:
    urllib.request.urlopen(urllib.request.Request(sys.argv[1], method="HEAD"), timeout=15)
except Exception as e:
    print(f"{sys.argv[1]}: {e}", file=sys.stderr)
    sys.exit(1)
PY
}

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9   # one builder at a time; others wait and reuse its tarball

if [[ -f $tarball ]] && [[ -z $(find "$tarball" -mtime +"$max_days") ]]; then
  echo "$tarball"; exit 0
fi
if ! mirror_reachable; then
  if [[ -f $tarball ]]; then echo "$tarball"; exit 0; fi   # stale but usable
  echo "chroot-base: Debian's mirror $mirror is unreachable and no cached chroot is in $cache" >&2
  exit 77
fi
command -v debootstrap >/dev/null || { echo "chroot-base: debootstrap missing: run tools/install-deps" >&2; exit 1; }
work=$(mktemp -d "$cache/build.XXXXXX")
trap 'umount -R "$work/root/proc" 2>/dev/null || true; rm -rf "$work"' EXIT
echo "chroot-base: debootstrap --variant=minbase bookworm from $mirror (once; cached in $cache)" >&2
debootstrap --variant=minbase bookworm "$work/root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -20 "$work/debootstrap.log" >&2; echo "chroot-base: debootstrap failed (log above)" >&2; exit 1; }
cp /etc/resolv.conf "$work/root/etc/resolv.conf"
chroot "$work/root" apt-get update -q >"$work/apt.log" 2>&1 ||
  { tail -20 "$work/apt.log" >&2; echo "chroot-base: apt-get update in the chroot failed" >&2; exit 1; }
chroot "$work/root" apt-get clean
tar -C "$work/root" --numeric-owner -I 'zstd -T0 -3' -cf "$work/base.tar.zst" .
mv "$work/base.tar.zst" "$tarball"
echo "$tarball"

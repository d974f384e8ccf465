#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes (once) and prints the path of a cached Debian chroot tree:
# `debootstrap --variant=minbase SUITE` from Debian's mirror, then
# `apt-get install --no-install-recommends PACKAGE...` in it, apt lists kept,
# under /var/cache/fsreplay-distros/SUITE-KEY/root, where KEY hashes the sorted
# package list. A cached tree is reused as it is (the tests mount an overlay
# on it and never write into it); a tree is built in a temporary directory and
# renamed into place only once complete, so a half-made one (Ctrl-C, a failed
# download) is never used.
#   usage: tree.sh SUITE [PACKAGE...]
# Exit 0 with the tree's path on stdout; 77 (skip) with the reason on stderr
# when the mirror is unreachable and nothing is cached; 1 on any other failure.
# Environment: FSREPLAY_DISTROS_CACHE (default /var/cache/fsreplay-distros),
# FSREPLAY_DEBIAN_MIRROR (default http://deb.debian.org/debian). Run as root.
set -euo pipefail
[[ $# -ge 1 ]] || { sed -n '3,15p' "$0" >&2; exit 2; }
suite=$1; shift
cache=${FSREPLAY_DISTROS_CACHE:-/var/cache/fsreplay-distros}
mirror=${FSREPLAY_DEBIAN_MIRROR:-http://deb.debian.org/debian}
packages=$(printf '%s\n' "$@" | sort -u | paste -sd' ' -)
key=$(printf '%s' "$packages" | tr ' ' , | sha256sum | cut -c1-12)
dir=$cache/$suite-$key

mkdir -p "$cache"
exec 9>"$cache/.lock-$suite-$key"
flock 9   # one builder per tree; others wait and reuse its result
if [[ -f $dir/complete ]]; then echo "$dir/root"; exit 0; fi

if ! curl -fsSI -m 20 "$mirror/dists/$suite/Release" >/dev/null 2>&1; then
  echo "tree.sh: Debian's mirror $mirror (dists/$suite) is unreachable and no $suite tree is cached in $cache" >&2
  exit 77
fi
command -v debootstrap >/dev/null || { echo "tree.sh: debootstrap missing: run tools/install-deps" >&2; exit 1; }
work=$(mktemp -d "$cache/.build-$suite.XXXXXX")
cleanup() {   # debootstrap mounts proc and sys in the tree while it works; so do we
  local m
  for m in $(awk -v w="$work/" 'index($5, w) == 1 {print $5}' /proc/self/mountinfo | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
echo "tree.sh: debootstrap --variant=minbase $suite, then ${packages:-no extra packages} (once; cached in $dir)" >&2
start=$SECONDS
debootstrap --variant=minbase "$suite" "$work/root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -20 "$work/debootstrap.log" >&2; echo "tree.sh: debootstrap of $suite failed (log above)" >&2; exit 1; }
cp /etc/resolv.conf "$work/root/etc/resolv.conf"
printf '#!/bin/sh\nexit 101\n' >"$work/root/usr/sbin/policy-rc.d"   # no service starts in a chroot
chmod +x "$work/root/usr/sbin/policy-rc.d"
mount -t proc proc "$work/root/proc"
inroot() { chroot "$work/root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C \
  DEBIAN_FRONTEND=noninteractive "$@"; }
if [[ -n $packages ]]; then
  # shellcheck disable=SC2086 # one word per package
  inroot apt-get install -y -q --no-install-recommends $packages >"$work/apt.log" 2>&1 ||
    { tail -20 "$work/apt.log" >&2; echo "tree.sh: apt-get install in the $suite tree failed (log above)" >&2; exit 1; }
fi
inroot apt-get clean
umount "$work/root/proc"
printf '%s\n' "$suite" "$packages" "$(date -u +%FT%TZ)" "$((SECONDS - start)) s" >"$work/complete"
rm -rf --one-file-system "$dir"   # a leftover without its marker is never used
mv "$work" "$dir"                 # one rename: the tree appears complete or not at all
echo "tree.sh: $suite tree made in $((SECONDS - start)) s" >&2
echo "$dir/root"

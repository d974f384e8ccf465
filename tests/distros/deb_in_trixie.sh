#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The .deb this build makes (`cmake --build build --target package`) in a
# Debian 13 (trixie) chroot: `apt-get install ./fsreplay.deb` there (its
# Depends from trixie's archive: downloaded packages are kept in
# /var/cache/fsreplay-distros/apt-archives-trixie for the next run), then the
# installed fsreplay's --version and `inspect` of a trace fixture, and the
# package's static binary's. The tree is the one static_in_chroot.sh uses
# (dev/distros/tree.sh, cached), under an overlay.
#   usage: deb_in_trixie.sh DEB TRACE_FIXTURE
# Exit 77 with the reason when no tree is cached and the mirror is unreachable.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
deb=$1 fixture=$2
# shellcheck source=tests/distros/chroot-lib.sh
. "$here/chroot-lib.sh"
rc=0; tree=$("$repo/dev/distros/tree.sh" trixie git gcc make libc6-dev) || rc=$?
[[ $rc -eq 77 ]] && { echo "skip: no trixie tree (see above)"; exit 77; }
[[ $rc -ne 0 ]] && exit "$rc"
archives=${FSREPLAY_DISTROS_CACHE:-/var/cache/fsreplay-distros}/apt-archives-trixie
mkdir -p "$archives/partial"
distros_work
distros_overlay "$tree"
distros_mount_api --dev --work
distros_mount "$root/var/cache/apt/archives" --bind "$archives"
cp /etc/resolv.conf "$root/etc/resolv.conf"
cp "$deb" "$root/work/fsreplay.deb"
cp "$fixture" "$root/work/t.trace"
echo "info  Depends: $(dpkg-deb -f "$deb" Depends)"
fail=0
check() { if eval "$2"; then echo "ok    $1"; else echo "FAIL  $1"; fail=1; fi; }

echo "== apt-get install ./fsreplay.deb in a Debian 13 chroot"
install_deb() {
  inroot sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends /work/fsreplay.deb' \
    >"$work/apt.log" 2>&1
}
# The cached lists may name packages a point release has since replaced:
# on a failure, refresh them once and retry.
if ! install_deb && ! { inroot apt-get update -q >"$work/update.log" 2>&1 && install_deb; }; then
  tail -25 "$work/apt.log"
  if grep -qE "Could not resolve|Temporary failure|Unable to connect" "$work/apt.log"; then
    echo "skip: the package's dependencies could not be downloaded (mirror unreachable) and are not in $archives"
    exit 77
  fi
  echo "FAIL  apt-get install of the .deb in the trixie chroot (log above)"; exit 1
fi
tail -2 "$work/apt.log"
v=$(inroot fsreplay --version 2>&1) || true
echo "info  fsreplay --version: $v"
check "the installed fsreplay runs on trixie (--version)" '[[ $v == *fsreplay* ]]'
inroot fsreplay inspect /work/t.trace >"$work/inspect.txt" 2>&1 || true
head -4 "$work/inspect.txt"
check "fsreplay inspect reads a trace there" '[[ -s $work/inspect.txt ]] && grep -q events "$work/inspect.txt"'
check "the package's fsreplay-static runs there" 'inroot /usr/lib/fsreplay/fsreplay-static inspect /work/t.trace | grep -q events'
exit $fail

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds libfmt.a from Debian's own fmt source package, at the version of the
# installed libfmt-dev (whose headers the static fsreplay compiles against):
# Debian 12 ships libfmt only as a shared library. Cap'n Proto, zstd, glibc and
# libstdc++ come with static archives in their -dev packages; fmt is the one
# dependency built here.
#   usage: build-fmt.sh [PREFIX]   (default /var/cache/fsreplay-static-deps)
# Idempotent: exits at once when PREFIX/fmt-VERSION/lib/libfmt.a exists.
# Downloads the source with `apt-get source` through a private deb-src list
# (the system's apt sources are not touched). Run as root (tools/install-deps).
set -euo pipefail
prefix=${1:-/var/cache/fsreplay-static-deps}
mirror=${FSREPLAY_DEBIAN_MIRROR:-http://deb.debian.org/debian}
read -r srcpkg ver < <(dpkg-query -W -f '${source:Package} ${source:Version}\n' libfmt-dev 2>/dev/null) ||
  { echo "build-fmt: libfmt-dev is not installed: run tools/install-deps" >&2; exit 1; }
dest=$prefix/fmt-$ver
if [[ -f $dest/lib/libfmt.a ]]; then
  echo "build-fmt: $dest/lib/libfmt.a present"; exit 0
fi
mkdir -p "$prefix"
exec 9>"$prefix/.lock"
flock 9
[[ -f $dest/lib/libfmt.a ]] && exit 0
work=$(mktemp -d "$prefix/build.XXXXXX")
trap '[[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
apt=$work/apt
mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/etc"
# The running release's source (bookworm on Debian 12, trixie on 13): the
# version wanted is the installed libfmt-dev's.
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
for suite in "$codename" "$codename-updates"; do
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main"
done >"$apt/etc/sources.list"
aptopts=(-o "Dir::Etc::SourceList=$apt/etc/sources.list" -o "Dir::Etc::SourceParts=$apt/etc/none"
         -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache::Archives=$apt/archives"
         -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=" -o "APT::Sandbox::User=root")
echo "build-fmt: fetching Debian's $srcpkg $ver source (apt-get source) to build libfmt.a into $dest"
apt-get -q "${aptopts[@]}" update >"$work/apt.log" 2>&1 ||
  { cat "$work/apt.log" >&2; echo "build-fmt: apt-get update of the deb-src list failed (is $mirror reachable?)" >&2; exit 1; }
(cd "$work" && apt-get -q "${aptopts[@]}" source "$srcpkg=$ver" >"$work/source.log" 2>&1) ||
  { cat "$work/source.log" >&2; echo "build-fmt: apt-get source $srcpkg=$ver failed" >&2; exit 1; }
src=$(find "$work" -maxdepth 1 -type d -name "$srcpkg-*" | head -1)
[[ -n $src ]] || { echo "build-fmt: no unpacked source in $work" >&2; exit 1; }
cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DFMT_DOC=OFF -DFMT_TEST=OFF -DFMT_INSTALL=ON \
  -DCMAKE_INSTALL_PREFIX="$dest" -DCMAKE_INSTALL_LIBDIR=lib >"$work/cmake.log" 2>&1 ||
  { cat "$work/cmake.log" >&2; exit 1; }
ninja -C "$work/build" install >"$work/ninja.log" 2>&1 || { cat "$work/ninja.log" >&2; exit 1; }
cp "$src/debian/copyright" "$dest/copyright"
echo "build-fmt: built $dest/lib/libfmt.a"

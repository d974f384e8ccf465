#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The release tarball (`cmake --build build --target dist`): TARBALL holds
# fsreplay-VERSION/ laid out as a prefix, so that installing is one line,
#   tar -C /usr/local --strip-components=1 -xzf fsreplay-VERSION-x86_64-linux.tar.gz
#     bin/fsreplay, bin/slowfs               the static binaries, stripped
#     share/man/man1/                        fsreplay*.1.gz, slowfs.1.gz
#     share/bash-completion/completions/     fsreplay, slowfs
#     share/doc/fsreplay/                    README.md, LICENSE, copyright, docs/
# Files are owned by root and dated by the commit (SOURCE_DATE_EPOCH if set),
# so the same tree gives the same tarball.
#   usage: make-dist.sh TARBALL VERSION FSREPLAY_STATIC SLOWFS_STATIC MAN_DIR SOURCE_DIR COPYRIGHT
set -euo pipefail
out=$1 version=$2 fsreplay=$3 slowfs=$4 man=$5 src=$6 copyright=$7
name=fsreplay-$version
stage=$(mktemp -d "$(dirname "$out")/dist.XXXXXX")
trap 'rm -rf "$stage"' EXIT
root=$stage/$name
mkdir -p "$root/bin" "$root/share/man/man1" "$root/share/bash-completion/completions" \
  "$root/share/doc/fsreplay/docs"
for b in "$fsreplay:fsreplay" "$slowfs:slowfs"; do
  f=${b%%:*} to=$root/bin/${b##*:}
  file -b "$f" | grep -q "statically linked" ||
    { echo "make-dist: $f is not statically linked: build the static targets (fsreplay-static, slowfs-static)" >&2; exit 1; }
  install -m 755 "$f" "$to"
  strip --strip-all "$to"
done
shopt -s nullglob
pages=("$man"/fsreplay*.1.gz "$man"/slowfs.1.gz)
[[ ${#pages[@]} -ge 2 ]] || { echo "make-dist: no man pages in $man: build the target fsreplay_man (needs help2man)" >&2; exit 1; }
install -m 644 "${pages[@]}" "$root/share/man/man1/"
for c in fsreplay slowfs; do
  install -m 644 "$src/packaging/completion/fsreplay.bash" "$root/share/bash-completion/completions/$c"
done
install -m 644 "$src/README.md" "$src/LICENSE" "$copyright" "$root/share/doc/fsreplay/"
cp -r "$src/docs/." "$root/share/doc/fsreplay/docs/"
chmod -R u=rwX,go=rX "$root"
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$src" log -1 --format=%ct 2>/dev/null || date +%s)}
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -cf - "$name" |
  gzip -9n >"$out.tmp"
mv "$out.tmp" "$out"
echo "make-dist: $out ($(du -h "$out" | cut -f1))"

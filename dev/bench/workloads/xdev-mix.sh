# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Files moved, copied and linked between /tmp and the tree, as build scripts
# and package managers do: recorded where both share a file system, the
# replay's scratch tree (for /tmp) and its target may lie on two. mv of a
# file and of a directory, coreutils' cp (copy_file_range), cp -r, a hard
# link, and back out of the tree into /tmp.
set -e
t=$(mktemp -d /tmp/fsr-xdev.XXXXXX)
trap 'rm -rf "$t"' EXIT
mkdir -p out
for i in $(seq 1 20); do head -c $((i * 512)) /dev/zero | tr '\0' 'a' > "$t/f$i"; done
mkdir -p "$t/d/sub" && echo nested > "$t/d/sub/n" && ln -s sub/n "$t/d/l"
mv "$t/f1" out/moved
mv "$t/d" out/dir
cp "$t/f2" out/copied
cp -r "$t" out/tree
ln "$t/f3" out/linked
cat out/moved out/copied out/linked out/dir/l out/tree/f4 > /dev/null
echo appended >> out/linked
mv out/copied "$t/back"
cp out/moved "$t/back2"
test "$(cat out/dir/sub/n)" = nested
test -f "$t/f3" && test ! -e "$t/d" && test "$(wc -c < "$t/back")" = 1024
ls -lR out > /dev/null

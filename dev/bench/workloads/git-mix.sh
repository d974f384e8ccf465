# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# git operations and the shell tools around them, on a clone of $GITSRC (any
# repository with a few directories: git/git in the benches, this project's
# own in the tests): hard-linked copies, moves, chown -R, find -delete,
# git archive | tar x, Perl's File::Find and File::Copy, git clean, a dangling
# link, xargs -P2 md5sum, du.
set -e
git clone -q --no-hardlinks "$GITSRC" g
dirs=$(git -C g ls-tree -d --name-only HEAD | head -3)
first=$(echo "$dirs" | sed -n 1p) second=$(echo "$dirs" | sed -n 2p) third=$(echo "$dirs" | sed -n 3p)
[ -n "$third" ] || { echo "git-mix: $GITSRC needs 3 top-level directories" >&2; exit 1; }
cp -al g gl; rm -rf "gl/$first"; mv "gl/$second" gdoc; chown -R nobody gdoc; find gdoc -name '*.md' -delete
git -C g archive --format=tar HEAD "$third" | tar xf - -C .
perl -MFile::Find -MFile::Copy -e 'find(sub { copy($_, "/dev/null") if -f }, $ARGV[0]); mkdir "pc";
  for (grep { -f } glob "$ARGV[0]/*") { copy($_, "pc/") or die "$_: $!" }' "$third"
git -C g clean -q -fdx; echo junk > g/junk.o; git -C g clean -q -fdX; git -C g clean -q -fd
ln -s nowhere dangling; ls -l dangling > /dev/null; rm dangling
find "$third" -type f -print0 | xargs -0 -P2 -n 50 md5sum > sums; md5sum -c --quiet sums
du -s --apparent-size "$third" gdoc > /dev/null; rm -rf "$third" gdoc gl pc

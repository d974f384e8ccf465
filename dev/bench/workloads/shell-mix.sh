# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Shell tools a build or a setup script runs, each on the file system:
# mkdir -p, cp --reflink, ln and ln -s, install -D, mktemp -d, chmod -R, touch -d,
# truncate, fallocate, dd conv=fsync, split, sort -o, a named FIFO between two
# processes, a link out of the tree read through, find -newer, cp -a, mv, ls -laR,
# tar czf and xzf.
set -e
mkdir -p a/b/c; seq 1 100000 > a/n.txt
cp --reflink=auto a/n.txt a/b/n2.txt; ln -s ../n.txt a/b/l; ln a/n.txt a/hard
install -D -m 0644 a/n.txt d/e/f/n3.txt
t=$(mktemp -d ./tmp.XXXX); echo hi > $t/x; mv $t/x a/b/c/; rmdir $t
chmod -R g+w a; touch -d '2020-01-01' a/n.txt; truncate -s 1M a/big; fallocate -l 2M a/fa
dd if=a/n.txt of=a/dd bs=4k conv=fsync status=none; split -l 10000 a/n.txt a/part.; sort -r -o a/sorted a/n.txt
mkfifo a/ff; (cat a/ff > a/fromfifo &) ; echo through > a/ff; sleep 0.2
ln -sf /etc/hostname a/abs; cat a/abs > /dev/null; readlink -f a/b/l > /dev/null
stat -c %s a/* > /dev/null; du -a . > /dev/null; find . -newer a/n.txt -type f > /dev/null
cp -a a a2; rm -rf a2; mv a/b a/bb; ls -laR . > /dev/null
echo "x" >> a/n.txt; tail -c 10 a/n.txt > /dev/null; wc -l a/part.* > /dev/null
tar czf a.tgz a d; mkdir z; tar xzf a.tgz -C z; rm -f a.tgz; sync

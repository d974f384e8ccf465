set -e
git clone -q --no-hardlinks "$GITSRC" g
cp -al g gl; rm -rf gl/t; mv gl/Documentation gdoc; chown -R nobody gdoc; find gdoc -name '*.txt' -delete
git -C g archive --format=tar HEAD compat | tar xf - -C .
perl -MFile::Find -MFile::Copy -e 'find(sub { copy($_, "/dev/null") if -f && /\.h$/ }, "compat"); mkdir "pc"; for (glob "compat/*.c") { copy($_, "pc/") or die }'
git -C g clean -q -fdx; echo junk > g/junk.o; git -C g clean -q -fdX; git -C g clean -q -fd
ln -s nowhere dangling; ls -l dangling > /dev/null; rm dangling
find compat -type f | xargs -P2 -n 50 md5sum > sums; md5sum -c --quiet sums
du -s --apparent-size compat gdoc > /dev/null; rm -rf compat gdoc gl pc

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The seeds' benchmark, scaled (the seeds' published WSL figures): a local clone of
# SRC, git status twice, find, du, NSMALL small files made (and listed with
# LS=1), then removed. Run in DIR, which it leaves holding the clone.
# Usage: seeds-small.sh DIR SRC NSMALL [LS]
set -e
dir=$1 src=$2 nsmall=$3 ls=${4:-0}
cd "$dir"
git -c safe.directory='*' clone -q --no-hardlinks "$src" repo
cd repo
git status >/dev/null
git status >/dev/null
cd ..
find . | wc -l >/dev/null
du -sh . >/dev/null
mkdir small
i=0
while [ $i -lt "$nsmall" ]; do echo "file $i" > small/f$i; i=$((i+1)); done
[ "$ls" = 1 ] && ls -l small >/dev/null
rm -r small

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Guest side of vm_smoke_test.sh: record on /mnt/ext4, replay on ext4, 9p and
# virtiofs; JSON summaries into /mnt/results.  guest_smoke.sh FSREPLAY MAKE_GIT_REPO_PY
set -euo pipefail
fsr=$1 mkrepo=$2 res=/mnt/results
mapper=$(cd "$(dirname "$mkrepo")/../vmlab/guest" && pwd)/map-close-unmap.py
uname -r
python3 "$mkrepo" /mnt/ext4/src --files 60 > /dev/null
mkdir -p /mnt/ext4/w
cat > /tmp/work.sh << 'SH'
set -e
mkdir small
for i in $(seq 200); do echo "$i" > small/f$i; done
ls -l small > /dev/null
stat small/f1 small/f2 > /dev/null
cat small/* > /dev/null
rm -rf small
git clone -q --no-hardlinks /mnt/ext4/src clone
git -C clone status > /dev/null
rm -rf clone
SH
cd /mnt/ext4/w
export HOME=/root; git config --global safe.directory '*'
bash /tmp/work.sh  # warm-up, unrecorded
"$fsr" record -o $res/t.trace --root /mnt/ext4/w -- bash /tmp/work.sh
"$fsr" inspect --json $res/t.trace > $res/inspect.json
python3 -c '
import json, os, sys
j = json.load(open(sys.argv[1]))
print(json.dumps({"events": j["events"], "drops": j["drops"], "kernel": os.uname().release}))' $res/inspect.json > $res/trace.json
# Deferred releases: 200 files on 9p, each mapped, its fd closed, then
# unmapped. The munmap drops the file's last reference, and the kernel
# releases it (9p's TCLUNK, a round trip) on the way back to user space,
# after the call's exit: the recorder adds that to the munmap.
mkdir -p /mnt/c/rel && for i in $(seq 200); do echo "$i" > /mnt/c/rel/f$i; done
(cd /mnt/c/rel && "$fsr" record -q -o $res/rel.trace -- python3 "$mapper" 200)
"$fsr" inspect --json $res/rel.trace > $res/rel.json
"$fsr" detect --json /mnt/c > $res/detect-9p.json
"$fsr" detect --json /mnt/cv > $res/detect-virtiofs.json
for m in ext4:/mnt/ext4 9p:/mnt/c virtiofs:/mnt/cv; do
  name=${m%%:*} dir=${m#*:}
  mkdir -p $dir/replay /mnt/ext4/scratch-$name
  "$fsr" replay $res/t.trace --target $dir/replay --scratch /mnt/ext4/scratch-$name --timing afap --json \
    -o $res/replay-$name.result > $res/replay-$name.json
done

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What an open costs where a replay's scratch tree may lie, in the guest: the
# root (the host's over 9p, cache=loose, read-only), /mnt/rootlike (a
# writable 9p share mounted the same way) and /tmp (tmpfs). Times
# open+fstat+close and stat of one file (git's binary, a copy of it on
# /mnt/rootlike read once first, and a small file in /tmp), 2,000 each.
#   sudo dev/vmlab/vmlab run [--accel tcg] -- dev/vmlab/guest/open-cost.sh
set -euo pipefail
src=/usr/lib/git-core/git
copy=/mnt/rootlike/usr/lib/git-core/git
mkdir -p "$(dirname "$copy")"
cp "$src" "$copy" && cat "$copy" > /dev/null
echo x > /tmp/open-cost.x
grep -E " / | /mnt/rootlike | /tmp " /proc/mounts
python3 - "$src" "$copy" /tmp/open-cost.x << 'PY'
import os, sys, time
def per_call(fn, p, n=2000):
    t = time.perf_counter()
    for _ in range(n):
        fn(p)
    return (time.perf_counter() - t) / n * 1e6
def ofc(p):
    fd = os.open(p, os.O_RDONLY)
    os.fstat(fd)
    os.close(fd)
for p in sys.argv[1:]:
    per_call(ofc, p, 200)  # warm
    print("%-40s open+fstat+close %7.1f us   stat %7.1f us" % (p, per_call(ofc, p), per_call(os.stat, p)))
PY

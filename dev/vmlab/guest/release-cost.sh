#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Deferred releases on the lab's 9p, in the guest: 200 files on /mnt/c, each
# opened, mapped, its fd closed, touched and unmapped, then each read
# through open/read/close, then 200 written; recorded, replayed on /mnt/c
# (scratch on /mnt/rootlike), and per class the recorded and the replayed
# mean duration printed, with `inspect`'s deferred-release line. The munmap
# (and, before 6.6, the close) drops the file's last reference: its release
# (TCLUNK) runs after the call's exit.
#   sudo [VMLAB_KERNEL_SUITE=trixie] dev/vmlab/vmlab run --accel tcg -- dev/vmlab/guest/release-cost.sh build/cli/fsreplay
set -euo pipefail
fsr=$(readlink -f "${1:-build/cli/fsreplay}")
here=$(cd "$(dirname "$0")" && pwd)
uname -r
d=/mnt/c/release-cost t=/mnt/c/release-cost-replay s=/mnt/rootlike/release-cost-scratch w=/tmp/release-cost
rm -rf "$d" "$t" "$s" "$w" && mkdir -p "$d" "$t" "$s" "$w"
for i in $(seq 200); do echo "$i" > "$d/f$i"; done
cd "$d"
"$fsr" record -q -o "$w/t.trace" -- python3 "$here/map-close-unmap.py" 200 --read --write
"$fsr" inspect "$w/t.trace" | grep -i "deferred" || echo "no deferred releases recorded"
"$fsr" report --format json "$w/t.trace" > "$w/rep.json"
"$fsr" replay "$w/t.trace" --target "$t" --scratch "$s" --json > "$w/r.json"
python3 - "$w/rep.json" "$w/r.json" << 'PY'
import json, sys
t = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
tc = {c["class"]: c for c in t["classes"]}
print("recorded wall %.3f s, replay wall %.3f s" % (t["wall_ns"] / 1e9, r["wall_ns"] / 1e9))
for c in sorted(set(tc) | set(r["by_class"])):
    a, b = tc.get(c, {}), r["by_class"].get(c, {})
    print("  %-8s recorded %5d x %8.1f us   replayed %5d x %8.1f us" % (
        c, a.get("count", 0), a.get("mean_ns", 0) / 1e3, b.get("count", 0), b.get("mean_ns", 0) / 1e3))
PY
rm -rf "$d" "$t" "$s"

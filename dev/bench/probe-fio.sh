#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# probe's IOPS and bandwidth against fio's on the same slowfs mount (issue 45,
# "within 15% of fio's"): slowfs as dev/bench/server-fio.sh mounts it
# (--lat all=0,read=500us,write=500us --bandwidth read=40MB,write=20MB
# --realtime) with 1 and 4 server slots; fio (psync, O_DIRECT, 5 s each) 4 KiB
# random reads with numjobs 4 and 1, 1 MiB sequential write and read; then
# `fsreplay probe --duration 20` on the same mount: its sweep's 4 KiB direct
# random read at 4 and 1 streams and its direct bandwidths.
#   sudo dev/bench/probe-fio.sh      (root: FUSE with allow_other; fio installed)
set -euo pipefail
R=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
W=$(mktemp -d /var/tmp/ps-fio.XXXXXX)
pid=
cleanup() { [[ -n $pid ]] && { umount "$W/mnt" 2>/dev/null || umount -l "$W/mnt"; }; sleep 0.5; rm -rf "$W"; }
trap cleanup EXIT
for s in 1 4; do
  mkdir -p "$W/backing" "$W/mnt"
  "$R/build/emulators/slowfs/slowfs" "$W/backing" "$W/mnt" --lat all=0,read=500us,write=500us --bandwidth read=40MB,write=20MB \
    --realtime --server-slots "$s" --pid-file "$W/pid" -o default_permissions,allow_other >/dev/null
  pid=$(cat "$W/pid")
  mkdir "$W/mnt/f" "$W/mnt/p"
  head -c 64M /dev/urandom > "$W/mnt/f/data"
  common="--ioengine=psync --direct=1 --filename=data --size=64M --time_based --runtime=5 --group_reporting --output-format=json"
  # shellcheck disable=SC2086
  (cd "$W/mnt/f" && fio --name=rr4 $common --rw=randread --bs=4k --numjobs=4 > "$W/rr4.json"; fio --name=rr1 $common --rw=randread --bs=4k --numjobs=1 > "$W/rr1.json"; fio --name=sw $common --rw=write --bs=1M --numjobs=1 > "$W/sw.json"; fio --name=sr $common --rw=read --bs=1M --numjobs=1 > "$W/sr.json")
  "$R/build/cli/fsreplay" probe "$W/mnt/p" --duration 20 --json -o "$W/p.profile" > "$W/p.json" 2>/dev/null
  python3 - "$W" "$s" <<'PY'
import json, sys
w, s = sys.argv[1], sys.argv[2]
def fio(n, rw):
    j = json.load(open(f"{w}/{n}.json"))["jobs"][0][rw]
    return j["iops"], j["bw_bytes"] / 1e6
p = json.load(open(f"{w}/p.json"))["server"]
pt = {(r["kind"], r["param"], r["direct"], r["streams"]): r for r in p["sweep"]}
for name, n, rw, key in (("4 KiB randread numjobs=4", "rr4", "read", ("read-seq", 4096, True, 4)),
                         ("4 KiB randread numjobs=1", "rr1", "read", ("read-seq", 4096, True, 1))):
    iops, _ = fio(n, rw)
    r = pt.get(key)
    mine = r["ops_per_s"] if r else float("nan")
    print(f"slots {s}: {name:<26} fio {iops:7.0f} IOPS, probe {mine:7.0f} IOPS ({(mine - iops) / iops * 100:+.1f}%)")
for name, n, rw, key in (("1 MiB seq write direct", "sw", "write", "write_direct"), ("1 MiB seq read direct", "sr", "read", "read_direct")):
    _, mb = fio(n, rw)
    mine = p["bandwidth_bps"][key] / 1e6
    print(f"slots {s}: {name:<26} fio {mb:7.1f} MB/s, probe {mine:7.1f} MB/s ({(mine - mb) / mb * 100:+.1f}%)")
print(f"slots {s}: fit: {p['fit_note']}")
PY
  umount "$W/mnt"; for _ in $(seq 500); do kill -0 "$pid" 2>/dev/null || break; sleep 0.01; done; pid=
  rm -rf "${W:?}/backing" "${W:?}/mnt"
done

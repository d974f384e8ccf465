#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# probe's server model against the server slowfs was told to be (issue 45):
# for each slot count, mount slowfs over a scratch directory with that many
# slots (--server-slots), LAT per request (read and write: none, so that the
# bandwidth limit alone sets their pace) and a read/write bandwidth limit
# (--bandwidth); run `fsreplay probe` there; print configured against fitted
# slots, the fitted service time and fit line, and configured against
# measured bandwidth (O_DIRECT and buffered), with dd's figure
# (`dd bs=1M oflag=direct` / `iflag=direct`) beside probe's.
#
#   dev/bench/probe-server.sh [-s "1 4"] [-l 1ms] [-r 40] [-w 20] [-d 20] [--check]
#
#   -s  slot counts (default "1 4")     -l  latency per request (default 1ms)
#   -r  read MB/s (default 40)          -w  write MB/s (default 20; 10^6 bytes)
#   -d  probe --duration (default 20)   --check  exit 1 unless every fitted
#       slot count equals the configured one, every bandwidth is within 10%
#       of the configured rate, and the direct ones within 5% of dd's on the
#       same mount (slowfs paces its pipe as a link: a stream gets the rate,
#       FUSE's per-request cost overlaps it; see emulators/slowfs/README.md)
# slowfs caches no attributes or entries (every stat asks it). Needs root
# (FUSE with allow_other). Environment: FSREPLAY, SLOWFS (binaries; default
# build/), KEEP=DIR (copy each probe's JSON there). Unmounts and removes everything it made, also on error.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
fsreplay=${FSREPLAY:-$repo/build/cli/fsreplay}
slowfs=${SLOWFS:-$repo/build/emulators/slowfs/slowfs}
slots_list="1 4" lat=1ms rmb=40 wmb=20 duration=20 check=0
while [[ $# -gt 0 ]]; do
  case $1 in
    -s) slots_list=$2; shift 2 ;;
    -l) lat=$2; shift 2 ;;
    -r) rmb=$2; shift 2 ;;
    -w) wmb=$2; shift 2 ;;
    -d) duration=$2; shift 2 ;;
    --check) check=1; shift ;;
    -h|--help) sed -n '3,23p' "$0"; exit 0 ;;
    *) echo "probe-server.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $(id -u) == 0 ]] || { echo "probe-server.sh: needs root (a FUSE mount with allow_other)" >&2; exit 2; }
[[ -x $fsreplay && -x $slowfs ]] || { echo "probe-server.sh: build first (no $fsreplay or $slowfs)" >&2; exit 2; }
work=$(mktemp -d /var/tmp/fsreplay-probe-server.XXXXXX)
pid=
unmount() {
  if [[ -n $pid ]]; then
    umount "$work/mnt" 2>/dev/null || umount -l "$work/mnt" 2>/dev/null || true
    for _ in $(seq 500); do kill -0 "$pid" 2>/dev/null || break; sleep 0.01; done
    pid=
  fi
}
cleanup() { unmount; rm -rf "$work"; }
trap cleanup EXIT

# MB/s of dd's own summary line ("..., 1.2 s, 40.0 MB/s").
dd_rate() { dd "$@" bs=1M 2>&1 >/dev/null | awk -F', ' '/copied/ {print $NF}'; }

echo "probe-server: slowfs --lat all=$lat,read=0,write=0 --bandwidth read=${rmb}MB,write=${wmb}MB;" \
  "fsreplay probe --duration $duration; $(nproc) CPUs; $(date -u '+%Y-%m-%d %H:%M UTC')"
fail=0
for slots in $slots_list; do
  mkdir -p "$work/backing" "$work/mnt"
  "$slowfs" "$work/backing" "$work/mnt" --profile none --lat "all=$lat,read=0,write=0" --server-slots "$slots" \
    --attr-timeout 0 --entry-timeout 0 \
    --bandwidth "read=${rmb}MB,write=${wmb}MB" --pid-file "$work/pid" -o default_permissions,allow_other >/dev/null
  pid=$(cat "$work/pid")
  mkdir "$work/mnt/p"
  "$fsreplay" probe "$work/mnt/p" --duration "$duration" --json -o "$work/p$slots.profile" > "$work/p$slots.json" \
    2> "$work/probe.err" || { cat "$work/probe.err" >&2; exit 1; }
  ddw=$(dd_rate if=/dev/zero of="$work/mnt/p/dd" count=32 oflag=direct)
  ddr=$(dd_rate if="$work/mnt/p/dd" of=/dev/null iflag=direct)
  rm -f "$work/mnt/p/dd"
  unmount
  [[ -n ${KEEP:-} ]] && cp "$work/p$slots.json" "$KEEP/"
  rm -rf "${work:?}/backing" "${work:?}/mnt"
  python3 - "$work/p$slots.json" "$slots" "$rmb" "$wmb" "$ddr" "$ddw" <<'PY' || fail=1
import json, sys
top = json.load(open(sys.argv[1]))
j = top["server"]
slots, rmb, wmb = int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
got = "no limit" if j["no_slot_limit"] else j["slots"]
print(f"\nslots {slots}: fitted {got}, service {j['service_ns'] / 1e3:.0f} us per op; probe took {top['duration_ns'] / 1e9:.1f} s")
print(f"  fit: {j['fit_note']}")
bad = got != slots
bw = j["bandwidth_bps"]
def dd_mb(text):  # "36.0 MB/s" (dd prints kB/s, MB/s or GB/s)
    n, unit = text.split()[:2]
    return float(n) * {"kB/s": 1e-3, "MB/s": 1, "GB/s": 1e3}.get(unit, float("nan"))
dd = {"read": dd_mb(sys.argv[5]), "write": dd_mb(sys.argv[6])}
for key, conf in (("read_direct", rmb), ("read_buffered", rmb), ("write_direct", wmb), ("write_buffered", wmb)):
    mb = bw[key] / 1e6
    ref = dd[key.split("_")[0]]
    off, off_dd = (mb - conf) / conf * 100, (mb - ref) / ref * 100
    bad = bad or not abs(off) <= 10 or (key.endswith("direct") and not abs(off_dd) <= 5)
    print(f"  {key:<15} configured {conf:6.1f} MB/s, probe {mb:6.1f} MB/s ({off:+.1f}%; {off_dd:+.1f}% against dd)")
print(f"  dd bs=1M direct: read {sys.argv[5]}, write {sys.argv[6]}")
for r in j["sweep"]:
    if r["streams"] in (1, 8) and r["kind"] in ("stat", "open"):
        print(f"  sweep {r['kind']:<5} x{r['streams']}: {r['ops_per_s']:7.0f} ops/s, p50 {r['median_ns'] / 1e3:7.0f} us")
sys.exit(1 if bad else 0)
PY
done
if [[ $check == 1 && $fail == 1 ]]; then
  echo "probe-server: a fitted slot count differs, a bandwidth is more than 10% off the configured rate, or a direct one more than 5% off dd's" >&2
  exit 1
fi

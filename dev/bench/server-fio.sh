#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# server-fio.sh — does slowfs deliver the server it is told to be? fio
# (Debian's package) on slowfs with --server-slots 1 and 4 and a bandwidth
# limit (issue 45, the seeds' dd and fio rows), against what the
# configuration implies.
#
# Cases (fio psync, O_DIRECT, one file per run, a fresh backing store and a
# fresh mount per run):
#   seqwrite   1 MiB sequential writes, 1 job
#   seqread    1 MiB sequential reads, 1 job (the file made in the backing store)
#   randread4  4 KiB random reads, numjobs=4
#   randread1  4 KiB random reads, numjobs=1
# Rounds interleave the slot counts and cases; the table gives the median of
# the rounds and their spread ((max - min) / median).
#
# Implied: a request is LAT (its class latency) plus B/RATE on the shared
# pipe, and holds its slot throughout; with N jobs on S slots, closed loop:
#   IOPS = min(min(N, S) / (LAT + B/RATE), RATE / B),   MB/s = IOPS * B,
#   mean latency = N / IOPS (Little's law).
# FUSE's own round trip comes on top of the implied latency: the `floor`
# row is randread1 on slowfs with no latency, no slots and no bandwidth, and
# `lat-impl` is each row's measured less implied mean latency. `peak` and `waited` are slowfs --server-stats for the median
# round: the most requests in service at once and how many queued for a slot.
# probe MB/s and probe IOPS: `fsreplay probe` (its server sweep and
# bandwidth runs) on the same mount configuration, one probe per slot count
# on a fresh backing store: seqwrite/seqread its O_DIRECT write/read
# bandwidth, randread4/randread1 its 4 KiB O_DIRECT random pread sweep point
# at 4 and 1 streams (probe_figures). PROBE_S=0 leaves them out ("-").
#
# Usage (root): dev/bench/server-fio.sh [-n ROUNDS] [-t SECONDS]
#   env: BUILD (default ./build), LAT (per-request read/write latency, default
#        500us), BW (slowfs --bandwidth, default read=40MB,write=20MB: the
#        seeds' dd on WSL2 /mnt/c), SLOTS (default "1 4"), PROBE_S (probe
#        --duration, default 60; 0 = no probe), KEEP=1 keeps the work
#        directory (fio JSON, server stats, probe profiles).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
SLOWFS=${SLOWFS:-$BUILD/emulators/slowfs/slowfs}
FSREPLAY=${FSREPLAY:-$BUILD/cli/fsreplay}
PROBE_S=${PROBE_S:-60}
LAT=${LAT:-500us}
BW=${BW:-read=40MB,write=20MB}
SLOTS=${SLOTS:-1 4}
rounds=3 runtime=5
while getopts n:t: o; do
  case $o in
    n) rounds=$OPTARG ;;
    t) runtime=$OPTARG ;;
    *) echo "usage: dev/bench/server-fio.sh [-n ROUNDS] [-t SECONDS]" >&2; exit 2 ;;
  esac
done
[[ $(id -u) == 0 ]] || { echo "server-fio: needs root (FUSE mounts with allow_other)" >&2; exit 5; }
[[ -x $SLOWFS ]] || { echo "server-fio: $SLOWFS is missing: ninja -C $BUILD slowfs" >&2; exit 1; }
[[ $PROBE_S == 0 || -x $FSREPLAY ]] || { echo "server-fio: $FSREPLAY is missing: ninja -C $BUILD fsreplay (or PROBE_S=0)" >&2; exit 1; }
command -v fio >/dev/null || { echo "server-fio: fio is missing: apt-get install fio (tools/install-deps)" >&2; exit 1; }
WORK=$(mktemp -d /var/tmp/server-fio.XXXXXX)
MNT=""
cleanup() {
  [[ -n $MNT ]] && umount "$MNT" 2>/dev/null
  [[ ${KEEP:-0} == 1 ]] && echo "kept $WORK" >&2 || rm -rf "$WORK"
}
trap cleanup EXIT
CASES="seqwrite seqread randread4 randread1"

# fio_args CASE: the job's options (the file is MNT/data).
fio_args() {
  local common=(--ioengine=psync --direct=1 --filename=data --size=64M --time_based --runtime="$runtime"
    --group_reporting --output-format=json)
  case $1 in
    seqwrite) echo "${common[*]} --rw=write --bs=1M --numjobs=1" ;;
    seqread) echo "${common[*]} --rw=read --bs=1M --numjobs=1" ;;
    randread4) echo "${common[*]} --rw=randread --bs=4k --numjobs=4" ;;
    randread1) echo "${common[*]} --rw=randread --bs=4k --numjobs=1" ;;
  esac
}

# mount_fresh DIR SLOTS: a fresh backing store in DIR and slowfs on DIR/mnt.
# SLOTS "floor": no latency, no slots, no bandwidth (FUSE's own round trip).
mount_fresh() {
  local server=(--lat "all=0,read=$LAT,write=$LAT" --bandwidth "$BW" --server-slots "$2")
  [[ $2 == floor ]] && server=(--lat all=0)
  mkdir -p "$1/backing" "$1/mnt"
  "$SLOWFS" "$1/backing" "$1/mnt" "${server[@]}" \
    --realtime --server-stats "$1/server.txt" --pid-file "$1/pid" -o default_permissions,allow_other >/dev/null
  MNT=$1/mnt
}
# unmount DIR: the daemon writes its server stats as it exits.
unmount() {
  local pid
  pid=$(cat "$1/pid")
  umount "$1/mnt"
  MNT=""
  for _ in $(seq 1000); do kill -0 "$pid" 2>/dev/null || break; sleep 0.01; done
  rm -rf "$1/backing"
}

# run SLOTS CASE ROUND: a fresh backing store and mount, one fio run, unmount.
run() {
  local d=$WORK/$1-$2-$3
  mkdir -p "$d/backing"
  [[ $2 == seqwrite ]] || head -c 64M /dev/urandom >"$d/backing/data"
  mount_fresh "$d" "$1"
  # shellcheck disable=SC2046 # fio_args is a word list
  (cd "$d/mnt" && fio --name="$2" $(fio_args "$2")) >"$d/fio.json" 2>"$d/fio.err" ||
    { cat "$d/fio.err" >&2; exit 1; }
  unmount "$d"
}

# probe SLOTS: fsreplay probe on a fresh mount of the same configuration.
probe() {
  local d=$WORK/probe-$1
  mount_fresh "$d" "$1"
  "$FSREPLAY" probe "$d/mnt" --duration "$PROBE_S" --name "slowfs-$1-slots" -o "$d/profile" >"$d/probe.log" 2>&1 ||
    { cat "$d/probe.log" >&2; exit 1; }
  unmount "$d"
  "$FSREPLAY" inspect "$d/profile" --json >"$d/profile.json"
}

# probe_figures SLOTS CASE: probe's MB/s and IOPS beside fio's, "-" without.
probe_figures() {
  local j=$WORK/probe-$1/profile.json
  [[ -s $j ]] || { echo "- -"; return; }
  python3 - "$j" "$2" <<'PY'
import json, sys
server = json.load(open(sys.argv[1]))["server"]
case = sys.argv[2]
if case in ("seqwrite", "seqread"):
    bps = server["bandwidth_bps"]["write_direct" if case == "seqwrite" else "read_direct"]
    print("%.1f %.0f" % (bps / 1e6, bps / 1048576))
else:
    streams = 4 if case == "randread4" else 1
    pts = [p for p in server["sweep"] if p["kind"] == "read-seq" and p["param"] == 4096 and p["direct"]
           and p["streams"] == streams]
    print("%.1f %.0f" % (pts[0]["ops_per_s"] * 4096 / 1e6, pts[0]["ops_per_s"]) if pts else "- -")
PY
}

start=$(date +%s)
for r in $(seq "$rounds"); do
  for s in $SLOTS; do
    for c in $CASES; do run "$s" "$c" "$r"; done
  done
  run floor randread1 "$r"
done
if [[ $PROBE_S != 0 ]]; then
  for s in $SLOTS; do probe "$s"; done
fi
elapsed=$(($(date +%s) - start))

echo "# slowfs --lat all=0,read=$LAT,write=$LAT --bandwidth $BW --realtime, --server-slots 1 and 4; fio $(fio --version)"
echo "# fio psync O_DIRECT, ${runtime}s per run, $rounds rounds (median, spread = (max-min)/median), fresh backing store per run"
echo "# $(uname -r), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC'), ${elapsed}s"
for s in $SLOTS; do
  for c in $CASES; do
    read -r pmb piops < <(probe_figures "$s" "$c")
    echo "$s $c $pmb $piops"
  done
done | { cat; echo "floor randread1 - -"; } | WORK=$WORK ROUNDS=$rounds LAT=$LAT BW=$BW python3 "$ROOT/dev/bench/server_fio_table.py"
for s in $SLOTS; do
  j=$WORK/probe-$s/profile.json
  [[ -s $j ]] && echo "# probe --duration $PROBE_S, $s slot(s): $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["server"]["fit_note"])' "$j")"
done
true

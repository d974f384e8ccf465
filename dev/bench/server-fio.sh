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
# probe MB/s and probe IOPS: fsreplay probe's figures for the same mount
# (probe_figures below); "-" until probe measures bandwidth and concurrency.
#
# Usage (root): dev/bench/server-fio.sh [-n ROUNDS] [-t SECONDS]
#   env: BUILD (default ./build), LAT (per-request read/write latency, default
#        500us), BW (slowfs --bandwidth, default read=40MB,write=20MB: the
#        seeds' dd on WSL2 /mnt/c), SLOTS (default "1 4"), KEEP=1 keeps the
#        work directory (fio JSON, server stats).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
SLOWFS=${SLOWFS:-$BUILD/emulators/slowfs/slowfs}
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

# run SLOTS CASE ROUND: a fresh backing store and mount, one fio run, unmount.
# SLOTS "floor": no latency, no slots, no bandwidth (FUSE's own round trip).
run() {
  local d=$WORK/$1-$2-$3 pid server=(--lat "all=0,read=$LAT,write=$LAT" --bandwidth "$BW" --server-slots "$1")
  [[ $1 == floor ]] && server=(--lat all=0)
  mkdir -p "$d/backing" "$d/mnt"
  [[ $2 == seqwrite ]] || head -c 64M /dev/urandom >"$d/backing/data"
  "$SLOWFS" "$d/backing" "$d/mnt" "${server[@]}" \
    --realtime --server-stats "$d/server.txt" --pid-file "$d/pid" -o default_permissions,allow_other >/dev/null
  MNT=$d/mnt
  # shellcheck disable=SC2046 # fio_args is a word list
  (cd "$d/mnt" && fio --name="$2" $(fio_args "$2")) >"$d/fio.json" 2>"$d/fio.err" ||
    { cat "$d/fio.err" >&2; exit 1; }
  pid=$(cat "$d/pid")
  umount "$d/mnt"
  MNT=""
  for _ in $(seq 1000); do kill -0 "$pid" 2>/dev/null || break; sleep 0.01; done
  rm -rf "$d/backing"
}

# probe_figures SLOTS CASE: fsreplay probe's MB/s and IOPS for this mount
# configuration, to sit beside fio's. Placeholder until probe measures them.
probe_figures() { echo "- -"; }

start=$(date +%s)
for r in $(seq "$rounds"); do
  for s in $SLOTS; do
    for c in $CASES; do run "$s" "$c" "$r"; done
  done
  run floor randread1 "$r"
done
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

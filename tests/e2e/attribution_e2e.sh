#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end attribution accuracy: record a real workload
# with eBPF, replay it on slowfs with latency injected into ONE class, and
# check that `fsreplay report --baseline` attributes >= 95% of the wall-time
# slowdown to that class. The baseline is the same slowfs mount with no
# injected latency, so FUSE's own cost is not part of the difference.
# Usage: attribution_e2e.sh FSREPLAY SLOWFS [CLASS...]   (root)
set -euo pipefail
fsreplay=$(realpath "$1") slowfs=$(realpath "$2")
shift 2
classes=("$@")
[[ ${#classes[@]} -gt 0 ]] || classes=(stat open readdir write)
here=$(cd "$(dirname "$0")" && pwd)
mountlab=$here/../../dev/mountlab/mountlab.sh
export SLOWFS=$slowfs
work=$(mktemp -d /var/tmp/fsreplay-attr.XXXXXX)
mounted=()
cleanup() {
  for m in "${mounted[@]}"; do "$mountlab" down "$m" >/dev/null 2>&1 || true; done
  [[ -n ${KEEP:-} ]] || rm -rf "$work"
}
trap cleanup EXIT

# The workload: each class exercised on its own files, all under the root.
root=$work/root
mkdir -p "$root/files" "$root/tree" "$root/out"
for i in $(seq 400); do printf 'x%.0s' $(seq $((i % 50 + 1))) > "$root/files/f$i"; done
for d in $(seq 60); do mkdir -p "$root/tree/d$d"; for f in $(seq 8); do : > "$root/tree/d$d/e$f"; done; done
(cd "$root" && "$fsreplay" record -o "$work/w.trace" --root "$root" -- sh -c '
  stat -c %s files/* >/dev/null
  cat files/* >/dev/null
  ls -R tree >/dev/null
  dd if=/dev/zero of=out/big bs=512 count=1500 status=none
') >"$work/record.log" 2>&1 || { cat "$work/record.log"; exit 1; }

# replay NAME TARGET [replay options...]: replays the trace on TARGET.
replay() {
  local name=$1 target=$2
  shift 2
  mkdir -p "$work/scratch-$name"
  "$fsreplay" replay "$work/w.trace" --target "$target" --scratch "$work/scratch-$name" --timing afap \
    -o "$work/$name.result" "$@" >"$work/$name.log" 2>&1 || { cat "$work/$name.log"; return 1; }
}

# check NAME CLASS BASELINE: the report on NAME must blame CLASS for >= 95%.
fail=0
check() {
  local name=$1 cls=$2 base=$3 json
  json=$("$fsreplay" report "$work/$name.result" --baseline "$work/$base.result" --format json)
  read -r share wall < <(python3 -c "
import json,sys
r=json.loads(sys.argv[1])
s=next((c['share_of_slowdown'] for c in r['classes'] if c['class']==sys.argv[2]), None)
print(s if s is not None else 'nan', r['wall_ratio'])" "$json" "$cls")
  echo "attribution: $name: wall ratio $wall, share of the slowdown attributed to $cls: $share"
  if ! python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 0.95 else 1)" "$share"; then
    echo "attribution: FAIL: $name gave $cls $share of the slowdown (want >= 0.95)" >&2
    "$fsreplay" report "$work/$name.result" --baseline "$work/$base.result" >&2 || true
    fail=1
  fi
}

# 1. The replayer's injection hook: a known extra latency inside every op of
#    one class, on the local disk.
mkdir -p "$work/local"
replay base "$work/local"
# 3 ms per call keeps each class's injected total far above a shared
# machine's noise: at 1 ms, a few preempted reads on a 2-core CI runner once
# took open's share under 95%.
for cls in "${classes[@]}"; do
  replay "inject-$cls" "$work/local" --inject-latency "$cls=3ms"
  check "inject-$cls" "$cls" base
done

# 2. A slow mount: slowfs delaying only WRITE requests (one per write(2) here),
#    against the same slowfs with no delay, so FUSE's own cost cancels out.
for lat in all=0 all=0,write=2ms; do
  name=slowfs-${lat//[=,]/-}
  mkdir -p "$work/backing-$name"
  "$mountlab" slowfs-up "$work/backing-$name" "$work/mnt-$name" none --lat "$lat" --realtime >/dev/null
  mounted+=("$work/mnt-$name")
  replay "$name" "$work/mnt-$name"
done
check slowfs-all-0-write-2ms write slowfs-all-0
exit $fail

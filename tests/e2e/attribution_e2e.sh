#!/usr/bin/env bash
# End-to-end attribution accuracy (issue 5, item 6): record a real workload
# with eBPF, replay it on slowfs with latency injected into ONE class, and
# check that `fsreplay report --baseline` attributes >= 95% of the wall-time
# slowdown to that class. The baseline is the same slowfs mount with no
# injected latency, so FUSE's own cost is not part of the difference.
# Usage: attribution_e2e.sh FSREPLAY SLOWFS [CLASS...]   (root)
set -euo pipefail
fsreplay=$1 slowfs=$2
shift 2
classes=("$@")
[[ ${#classes[@]} -gt 0 ]] || classes=(stat open readdir write)
here=$(cd "$(dirname "$0")" && pwd)
mountlab=$here/../../tools/mountlab/mountlab.sh
export SLOWFS=$slowfs
work=$(mktemp -d /var/tmp/fsreplay-attr.XXXXXX)
mounted=()
cleanup() {
  for m in "${mounted[@]}"; do "$mountlab" down "$m" >/dev/null 2>&1 || true; done
  rm -rf "$work"
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

replay_on() {  # NAME SLOWFS-LAT -> result path
  local name=$1 lat=$2 mnt=$work/mnt-$1
  mkdir -p "$work/backing-$name"
  "$mountlab" slowfs-up "$work/backing-$name" "$mnt" none --lat "$lat" --attr-timeout 0 --realtime >/dev/null
  mounted+=("$mnt")
  "$fsreplay" replay "$work/w.trace" --target "$mnt" --scratch "$work/scratch-$name" --timing afap \
    -o "$work/$name.result" >"$work/$name.log" 2>&1 || { cat "$work/$name.log"; return 1; }
  "$mountlab" down "$mnt" >/dev/null
  mounted=("${mounted[@]/$mnt}")
}

replay_on base "all=0"
fail=0
for cls in "${classes[@]}"; do
  replay_on "$cls" "all=0,$cls=400us"
  share=$("$fsreplay" report "$work/$cls.result" --baseline "$work/base.result" --format json |
    python3 -c "import json,sys; r=json.load(sys.stdin); print(next((c['share_of_slowdown'] for c in r['classes'] if c['class']=='$cls'), None))")
  wall=$("$fsreplay" report "$work/$cls.result" --baseline "$work/base.result" --format json |
    python3 -c "import json,sys; r=json.load(sys.stdin); print(r['wall_ratio'])")
  echo "attribution: latency injected into $cls (400 us/request): wall ratio $wall, share of slowdown attributed to $cls: $share"
  if ! python3 -c "import sys; s=float('$share' if '$share' != 'None' else 'nan'); sys.exit(0 if s >= 0.95 else 1)"; then
    echo "attribution: FAIL: $cls got $share of the slowdown (want >= 0.95)" >&2
    "$fsreplay" report "$work/$cls.result" --baseline "$work/base.result" >&2 || true
    fail=1
  fi
done
exit $fail

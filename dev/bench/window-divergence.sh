#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# [WINDOWS="1024 131072 0"] [TIMING=afap] window-divergence.sh TRACE... [-- BUILD_DIR]
#
# The streaming replay's window must not change what a replay does: each
# trace replayed on a fresh loop-mounted ext4 (one per run) with each window
# (1024: far smaller than the trace; 131072: the default; 0 here means one
# that holds the whole trace, which plans it as at once), printing per run the
# divergent ops, approximate dependencies, and waits whose waker lay beyond
# the lookahead, from `replay --json`. Asserts nothing; run as root (loop
# devices). Peak RSS (GNU time) is printed beside when /usr/bin/time exists.
set -euo pipefail
windows=${WINDOWS:-1024 131072 0}
timing=${TIMING:-afap}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$here/../../build
traces=()
while [ $# -gt 0 ]; do
  if [ "$1" = -- ]; then build=$2; break; fi
  traces+=("$1"); shift
done
[ ${#traces[@]} -gt 0 ] || { echo "usage: window-divergence.sh TRACE... [-- BUILD_DIR]" >&2; exit 2; }
fsreplay=$build/cli/fsreplay
[ -x "$fsreplay" ] || { echo "window-divergence: $fsreplay not found (build first)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "window-divergence: run as root (loop-mounted ext4)" >&2; exit 1; }
work=$(mktemp -d /var/tmp/fsr-windiv.XXXXXX)
mnt=$work/mnt
cleanup() { mountpoint -q "$mnt" && umount "$mnt"; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$mnt"
printf '%-28s %9s %10s %8s %8s %8s %9s\n' trace window ops diverged approx beyond rss_mib
for t in "${traces[@]}"; do
  for w in $windows; do
    mountpoint -q "$mnt" && umount "$mnt"
    rm -f "$work/fs.img"
    truncate -s 2G "$work/fs.img"
    mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$work/fs.img"
    mount -o loop "$work/fs.img" "$mnt"
    ww=$w
    if [ "$w" = 0 ]; then  # the smallest power of two that holds the whole trace
      n=$("$fsreplay" inspect "$t" | awk '$1 == "events" { print $2 }')
      ww=1024
      while [ "$ww" -lt "$((n + 1))" ]; do ww=$((ww * 2)); done
    fi
    timer=()
    [ -x /usr/bin/time ] && timer=(/usr/bin/time -f '%M' -o "$work/rss")
    set +e
    "${timer[@]}" "$fsreplay" replay "$t" --target "$mnt" --timing "$timing" --window "$ww" --json -q \
      --max-divergence 100 -o "$work/r.result" > "$work/out.json" 2> "$work/err"
    rc=$?
    set -e
    if [ $rc -ne 0 ]; then echo "window-divergence: replay of $t (window $w) failed: $(tail -n 3 "$work/err")" >&2; continue; fi
    rss=-
    [ -s "$work/rss" ] && rss=$(( $(tail -n 1 "$work/rss") / 1024 ))
    python3 - "$t" "$w" "$rss" "$work/out.json" <<'PY'
import json, os, sys
t, w, rss, p = sys.argv[1:]
j = json.load(open(p))
print(f"{os.path.basename(t):28s} {('whole' if w == '0' else w):>9s} {j.get('ops', 0):10d} {j['divergences']:8d} "
      f"{j['approx_deps']:8d} {j.get('beyond_window', '-')!s:>8s} {rss:>9s}")
PY
  done
done

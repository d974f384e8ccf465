#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The static fsreplay where users are: copied into a chroot, it records a small
# workload, replays it and reports it there, with the chroot's own userland.
#   bullseye   Debian 11 (glibc 2.31, the age of Ubuntu 20.04 and 22.04) with
#              git, gcc, make: workload-debian.sh (a git clone of a local
#              repository of 200 files, then a make -j2 of a 6-file C program)
#   trixie     Debian 13, the same packages and workload
#   empty      a tmpfs holding only fsreplay and a static busybox (Debian's
#              busybox-static), /proc and /sys: workload-busybox.sh
# The Debian trees come from dev/distros/tree.sh (debootstrap once, cached in
# /var/cache/fsreplay-distros: cold ~3-6 min a suite, warm 0 s) under an
# overlay, so the cache is never written. Checks: record exits 0 with 0 drops
# (inspect --json), the replay on a fresh target has 0 divergences (replay
# --json), report prints the per-class table, all run inside the chroot.
#   usage: static_in_chroot.sh bullseye|trixie|empty FSREPLAY_STATIC
# Exit 77 with the reason: no tree cached and the mirror unreachable, or this
# fsreplay-static has no record verb.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
kind=$1 static=$2
# shellcheck source=tests/distros/chroot-lib.sh
. "$here/chroot-lib.sh"

if "$static" --help | grep -E '^ +record' | grep -q 'NOT IN THIS STATIC BUILD'; then
  echo "skip: $static has no record verb (built without the recorder): nothing to record with in the chroot"
  exit 77
fi
case $kind in
  bullseye | trixie)
    rc=0; tree=$("$repo/dev/distros/tree.sh" "$kind" git gcc make libc6-dev) || rc=$?
    [[ $rc -eq 77 ]] && { echo "skip: no $kind tree (see above)"; exit 77; }
    [[ $rc -ne 0 ]] && exit "$rc"
    distros_work
    distros_overlay "$tree"
    distros_mount_api --dev --work
    echo "info  $kind: $(inroot ldd --version | head -1)"
    ;;
  empty)
    bb=$(command -v busybox || true)
    if [[ -z $bb ]] || ! file -L "$bb" | grep -q 'statically linked'; then
      echo "skip: no statically linked busybox on this host (apt-get install busybox-static: tools/install-deps)"
      exit 77
    fi
    distros_work
    distros_tmpfs_root
    distros_mount_api --work
    cp "$bb" "$root/work/busybox"
    ;;
  *) echo "static_in_chroot.sh: bullseye, trixie or empty, not '$kind'" >&2; exit 2 ;;
esac
cp "$static" "$root/work/fsreplay"
mkdir -p "$root/work/rec" "$root/work/target" "$root/work/scratch"
fail=0
check() { if eval "$2"; then echo "ok    $1"; else echo "FAIL  $1"; fail=1; fi; }
json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$@" 2>/dev/null || echo '?'; }

if [[ $kind == empty ]]; then
  cp "$here/workload-busybox.sh" "$root/work/workload.sh"
  workload=(/work/busybox sh -c 'cd /work/rec && exec /work/busybox sh /work/workload.sh 300')
  echo "info  empty chroot: $(cd "$root" && find . -maxdepth 2 -not -path './proc/*' -not -path './sys/*' | sort | tr '\n' ' ')"
else
  cp "$here/workload-debian.sh" "$root/work/workload.sh"
  inroot sh /work/workload.sh prepare 200 6
  workload=(sh -c 'cd /work/rec && exec sh /work/workload.sh run')
fi

echo "== record, in the $kind chroot"
rc=0
inroot /work/fsreplay record -o /work/w.trace --root /work/rec -- "${workload[@]}" || rc=$?
check "record exits 0 (got $rc)" '[[ $rc -eq 0 ]]'
inroot /work/fsreplay inspect /work/w.trace >"$work/inspect.txt"
head -12 "$work/inspect.txt"
inroot /work/fsreplay inspect /work/w.trace --json >"$work/inspect.json"
drops=$(json "$work/inspect.json" drops) events=$(json "$work/inspect.json" events)
check "0 drops (drops $drops, events $events)" '[[ $drops == 0 ]]'

echo "== replay, in the $kind chroot"
rc=0
inroot /work/fsreplay replay /work/w.trace --target /work/target --scratch /work/scratch -o /work/w.result --json >"$work/replay.json" || rc=$?
check "replay exits 0 (got $rc)" '[[ $rc -eq 0 ]]'
ops=$(json "$work/replay.json" ops) div=$(json "$work/replay.json" divergences)
check "0 divergences (ops $ops, divergences $div)" '[[ $ops -gt 0 && $div == 0 ]]'

echo "== report, in the $kind chroot"
inroot /work/fsreplay report /work/w.result >"$work/report.txt"
head -20 "$work/report.txt"
check "report prints the per-class table (open and stat rows)" \
  'grep -qE "^ *open " "$work/report.txt" && grep -qE "^ *stat " "$work/report.txt"'
exit $fail

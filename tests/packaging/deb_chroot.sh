#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The .deb in a clean Debian 12: a cached `debootstrap --variant=minbase
# bookworm` chroot (chroot-base.sh, under /var/cache/fsreplay-packaging) is
# unpacked afresh, the package is installed there with `apt-get install ./DEB`
# (its Depends come from Debian's mirror; downloaded packages are kept in the
# cache for the next run), and the demo's replay and report run inside with
# the installed binaries: a trace of the demo's workload, recorded on the host,
# replayed on the chroot's disk and on an installed slowfs (profile wsl2-9p),
# then compare and report --baseline. Also checks that man finds no page
# missing and the static replayer runs.
#   usage: deb_chroot.sh DEB FSREPLAY_FOR_RECORDING
# Exit 77 (with the reason) when the mirror is unreachable and nothing is cached,
# or this build cannot record. Root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
deb=$1 recorder=$2
cache=${FSREPLAY_PACKAGING_CACHE:-/var/cache/fsreplay-packaging}
rc=0; base=$("$here/chroot-base.sh" "$cache") || rc=$?
[[ $rc -eq 77 ]] && { echo "skip: no Debian 12 chroot (see above)"; exit 77; }
[[ $rc -ne 0 ]] && exit "$rc"

work=$(mktemp -d /var/tmp/fsr-pkg-chroot.XXXXXX)
root=$work/root
mounts=()
cleanup() {
  chroot "$root" fusermount3 -u /work/9p 2>/dev/null || umount -l "$root/work/9p" 2>/dev/null || true
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" 2>/dev/null || true; done
  if grep -q " $root/" /proc/self/mountinfo; then
    echo "deb_chroot: mounts remain under $root: not removing $work" >&2
  else
    rm -rf --one-file-system "$work"
  fi
}
trap cleanup EXIT

rc=0; "$here/record-demo-trace.sh" "$recorder" "$work/demo.trace" >"$work/record.log" 2>&1 || rc=$?
[[ $rc -eq 77 ]] && { cat "$work/record.log"; echo "skip: cannot record the demo trace on this host"; exit 77; }
[[ $rc -ne 0 ]] && { cat "$work/record.log"; echo "FAIL: recording the demo trace exited $rc"; exit 1; }

mkdir -p "$root" "$cache/apt-archives/partial"
tar -C "$root" --numeric-owner -I zstd -xf "$base"
for m in proc dev sys; do
  case $m in proc) mount -t proc proc "$root/proc" ;; *) mount --bind "/$m" "$root/$m" ;; esac
  mounts+=("$root/$m")
done
mount --bind "$cache/apt-archives" "$root/var/cache/apt/archives"; mounts+=("$root/var/cache/apt/archives")
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/work"
cp "$deb" "$root/work/"
cp "$work/demo.trace" "$root/work/"
inroot() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 "$@"; }

echo "== apt-get install ./$(basename "$deb") in a clean Debian 12 chroot"
install_deb() {
  inroot sh -c "DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ./work/$(basename "$deb") fuse3" >"$work/apt.log" 2>&1
}
# The cached apt lists may name packages a point release has since replaced:
# on a failure, refresh them once and retry.
if ! install_deb && ! { inroot apt-get update -q >"$work/update.log" 2>&1 && install_deb; }; then
  cat "$work/apt.log"
  if grep -qE "Could not resolve|Temporary failure|Failed to fetch|Unable to connect" "$work/apt.log"; then
    echo "skip: the package's dependencies could not be downloaded (mirror unreachable) and are not in $cache/apt-archives"
    exit 77
  fi
  echo "FAIL: apt-get install of the .deb in the chroot"; exit 1
fi
tail -3 "$work/apt.log"
fail=0
check() { if eval "$2"; then echo "ok    $1"; else echo "FAIL  $1"; fail=1; fi; }

check "fsreplay, slowfs, wsl1-harness on PATH in the chroot" \
  'inroot sh -c "command -v fsreplay && command -v slowfs && command -v wsl1-harness" >/dev/null'
echo "== fsreplay inspect"
inroot fsreplay inspect /work/demo.trace | head -8
echo "== fsreplay replay on the chroot's disk"
inroot mkdir -p /work/ext4 /work/s-ext4 /work/backing /work/9p /work/s-9p
inroot fsreplay replay /work/demo.trace --target /work/ext4 --scratch /work/s-ext4 -o /work/ext4.result | tee "$work/ext4.txt"
check "replay on the chroot's disk: 0 divergences" 'grep -qE "^divergences +0( |$)" "$work/ext4.txt"'
echo "== slowfs wsl2-9p and fsreplay replay on it"
inroot slowfs /work/backing /work/9p --profile wsl2-9p
inroot fsreplay replay /work/demo.trace --target /work/9p --scratch /work/s-9p -o /work/9p.result | tee "$work/9p.txt"
check "replay on slowfs wsl2-9p: 0 divergences" 'grep -qE "^divergences +0( |$)" "$work/9p.txt"'
inroot fusermount3 -u /work/9p
echo "== fsreplay compare"
inroot fsreplay compare /work/ext4.result /work/9p.result | tee "$work/compare.txt"
check "compare: a wall-time row with both mounts and their ratio" \
  'grep -qE "^wall +[0-9.]+ [a-z]+ +[0-9.]+ [a-z]+ +[0-9.]+x" "$work/compare.txt"'
echo "== fsreplay report --baseline"
inroot fsreplay report /work/9p.result --baseline /work/ext4.result | tee "$work/report.txt"
check "report attributes the slowdown (names stat and open)" 'grep -q stat "$work/report.txt" && grep -q open "$work/report.txt"'
inroot fsreplay report /work/9p.result --baseline /work/ext4.result --format html -o /work/report.html
check "HTML report written" 'inroot test -s /work/report.html'
check "the static replayer in the package runs and is static" \
  'inroot /usr/lib/fsreplay/fsreplay-static --version | grep -q ", static, "'
check "man pages and completion installed" \
  'inroot test -f /usr/share/man/man1/fsreplay-replay.1.gz -a -f /usr/share/bash-completion/completions/fsreplay'
exit $fail

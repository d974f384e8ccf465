#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What an idle second CPU costs a FUSE mount's round trips on this VM, for the
# probe, the untraced workload and its think-mode replay alike (issues 14, 18).
#
#   dev/bench/idle-cpu.sh [-n ROUNDS] [--duration S] [--target bindfs|sshfs]
#
# A FUSE call wakes the file system's daemon. When the other vCPU is halted
# (idle), that wake-up is an IPI to a sleeping vCPU, and every round trip pays
# it; when something runs there, it does not. Each round runs three things
# twice, once with the machine otherwise idle and once beside a busy loop at
# nice 19 (which takes CPU time only from what is idle):
#   - `fsreplay probe` of the mount (--duration, default 8 s): the p50 of open,
#     write, unlink, mkdir and a missing stat;
#   - the untraced workload on the mount (500 files created, stat'ed, read,
#     removed from sh, as predict-validate.sh's small-files);
#   - a think-mode replay of that workload's recording (made once, on the
#     backing ext4) on the mount.
# Prints per round both walls and their ratio, then the medians. Needs root
# (loop device, FUSE, recorder). The mount is the same for every round; the
# files each run makes are removed after it, then a sync.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin=${FSREPLAY:-$repo/build/cli/fsreplay}
rounds=3 duration=8 target=bindfs
while [[ $# -gt 0 ]]; do
  case $1 in
    -n) rounds=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --target) target=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "idle-cpu: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $(id -u) -eq 0 ]] || { echo "idle-cpu: run as root (loop device, FUSE, recorder)" >&2; exit 1; }
[[ -x $bin ]] || { echo "idle-cpu: $bin not found (build first, or set FSREPLAY)" >&2; exit 1; }
ml=$repo/dev/mountlab/mountlab.sh
work=${WORK:-$(mktemp -d /var/tmp/fsr-idle-cpu-XXXXXX)}
ext4=$work/ext4 mnt=$work/mnt spin="" sshd_pid=""
cleanup() {
  set +e
  [[ -n $spin ]] && kill "$spin" 2>/dev/null
  if mountpoint -q "$mnt"; then
    if [[ $target == sshfs ]]; then fusermount3 -u "$mnt"; else "$ml" down "$mnt" >/dev/null 2>&1; fi
  fi
  [[ -n $sshd_pid ]] && kill "$sshd_pid" 2>/dev/null
  mountpoint -q "$ext4" && "$ml" down "$ext4" >/dev/null
}
trap cleanup EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
busy_on() { (exec nice -n 19 sh -c 'while :; do :; done') & spin=$!; sleep 0.2; }
busy_off() { kill "$spin"; wait "$spin" 2>/dev/null || true; spin=""; }
now_ns() { date +%s%N; }

"$ml" loop-up ext4 1024 "$ext4" >/dev/null
mkdir -p "$ext4/backing" "$ext4/rec"
cat > "$work/small.sh" <<'SH'
set -e; d=$1/small; rm -rf "$d"; mkdir -p "$d"
for i in $(seq 1 500); do echo "$i" > "$d/f$i"; done
for i in $(seq 1 500); do stat -c %s "$d/f$i" >/dev/null; done
cat "$d"/f* > /dev/null; rm -rf "$d"
SH
sh "$work/small.sh" "$ext4/rec"; sync   # warm-up
"$bin" record -o "$work/small.trace" --root "$ext4/rec" -- sh "$work/small.sh" "$ext4/rec" >/dev/null 2>"$work/record.log" ||
  { cat "$work/record.log" >&2; exit 1; }

case $target in
  bindfs) "$ml" bindfs-up "$ext4/backing" "$mnt" >/dev/null ;;
  sshfs)
    d=$work/sshd; mkdir -p "$d" /run/sshd; chmod 700 "$d"
    ssh-keygen -q -t ed25519 -N '' -f "$d/host" && ssh-keygen -q -t ed25519 -N '' -f "$d/user"
    printf 'Port 22119\nListenAddress 127.0.0.1\nHostKey %s/host\nAuthorizedKeysFile %s/user.pub\nPermitRootLogin prohibit-password\nPasswordAuthentication no\nStrictModes no\nPidFile %s/pid\nSubsystem sftp internal-sftp\n' \
      "$d" "$d" "$d" > "$d/config"
    /usr/sbin/sshd -D -f "$d/config" -E "$d/log" & sshd_pid=$!
    sleep 1; mkdir -p "$mnt"
    sshfs -p 22119 -o IdentityFile="$d/user",StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null \
      -o allow_other,default_permissions "root@127.0.0.1:$ext4/backing" "$mnt" ;;
  *) echo "idle-cpu: unknown target $target (bindfs or sshfs)" >&2; exit 2 ;;
esac

probe_p50() {  # probe_p50 PROFILE: "open write unlink mkdir stat-missing" p50s in us
  "$bin" inspect "$1" | awk '
    $1=="open" && $2=="warm" {o=$5} $1=="write" && $2=="warm" && $4==128 {w=$7}
    $1=="unlink" {u=$5} $1=="mkdir" {m=$5} $1=="stat-missing" && $2=="warm" && $4==3 {s=$7}
    END {printf "%s %s %s %s %s\n", o, w, u, m, s}'
}
run_untraced() { sync; local t0; t0=$(now_ns); sh "$work/small.sh" "$mnt"; echo $(( $(now_ns) - t0 )); }
run_replay() {
  sync
  "$bin" replay "$work/small.trace" --target "$mnt/r" --timing think --json -q -o "$work/r.result" 2>/dev/null |
    jq .wall_ns
}
mkdir -p "$mnt/r" "$mnt/p"
printf '%-6s %-5s %10s %10s %7s   %s\n' round cpu untraced replay ratio "probe p50 us: open write128 unlink mkdir stat-missing"
: > "$work/rows"
for r in $(seq 1 "$rounds"); do
  for state in idle busy; do
    [[ $state == busy ]] && busy_on
    "$bin" probe "$mnt/p" --duration "$duration" -o "$work/$state.profile" >/dev/null 2>"$work/probe.log" ||
      { cat "$work/probe.log" >&2; exit 1; }
    u=$(run_untraced); p=$(run_replay)
    [[ $state == busy ]] && busy_off
    pr=$(probe_p50 "$work/$state.profile")
    awk -v r="$r" -v s="$state" -v u="$u" -v p="$p" -v pr="$pr" 'BEGIN {printf "%-6s %-5s %9.3fs %9.3fs %7.3f   %s\n", r, s, u/1e9, p/1e9, p/u, pr}'
    echo "$state $u $p $pr" >> "$work/rows"
  done
done
echo "medians:"
for state in idle busy; do
  row=""
  for col in 2 3 4 5 6 7 8; do row+=" $(awk -v s=$state -v c=$col '$1==s {print $c}' "$work/rows" | median)"; done
  read -r u p o w un mk sm <<< "$row"
  awk -v s="$state" -v u="$u" -v p="$p" -v o="$o" -v w="$w" -v un="$un" -v mk="$mk" -v sm="$sm" 'BEGIN {
    printf "  %-5s untraced %.3f s, replay %.3f s (replay/untraced %.3f); probe p50 open %s, write %s, unlink %s, mkdir %s, stat-missing %s us\n",
      s, u/1e9, p/1e9, p/u, o, w, un, mk, sm}'
done

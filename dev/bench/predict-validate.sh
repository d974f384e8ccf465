#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Validation of `fsreplay predict` (issue 18): for each workload x target,
# the predicted wall time and per-class shares of the slowdown against a
# think-mode replay on that target.
#
#   dev/bench/predict-validate.sh [-n RUNS] [--duration S] [--targets "T..."]
#                                   [--workloads "W..."] [--profiles-out DIR]
#   WORK=DIR dev/bench/predict-validate.sh --reuse   (predict again against DIR's replays)
#   PROBE_ARGS=--busy-cpus dev/bench/predict-validate.sh ...   (extra options of the new binary's probe)
#   FSREPLAY_BEFORE=OLD-BINARY dev/bench/predict-validate.sh ...   (A/B: each target probed
#       by both binaries, back to back, and a second row "T/before" per workload, same replays)
#
# Targets: wsl2-9p wsl2-virtiofs wsl1-drvfs (slowfs profiles), bindfs,
# sshfs (to an sshd of our own on 127.0.0.1, key auth, removed at the end).
# Workloads (recorded here on a fresh loop-mounted ext4, each after a warm-up
# and a sync): git-clone (400-file local repository, --no-hardlinks),
# small-files (create, stat, cat, rm of 500 files), make-j2 (24 C files).
# Per target: one `fsreplay probe` of the mount (--duration, default 20 s),
# then per workload RUNS think-mode replays on the target and on the ext4
# (baseline), interleaved, after a sync each; the median replay's report
# against the median ext4 replay gives the measured shares; `fsreplay
# predict TRACE --profile P` the predicted ones (against the trace's own
# durations). Prints one row per workload x target: replayed and predicted
# wall, error, and the largest per-class share difference (points). Profiles
# are kept in --profiles-out (default: $WORK/profiles). Needs root (recorder,
# loop devices, FUSE). Cleans up its mounts, loop devices and sshd on exit.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin=${FSREPLAY:-$repo/build/cli/fsreplay}
before=${FSREPLAY_BEFORE:-}
probe_args=${PROBE_ARGS:-}
runs=3 duration=20
targets="wsl2-9p wsl2-virtiofs wsl1-drvfs bindfs sshfs"
workloads="git-clone small-files make-j2"
profiles_out=""
reuse=0
while [[ $# -gt 0 ]]; do
  case $1 in
    -n) runs=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --targets) targets=$2; shift 2 ;;
    --workloads) workloads=$2; shift 2 ;;
    --profiles-out) profiles_out=$2; shift 2 ;;
    --reuse) reuse=1; shift ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "predict-validate: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $(id -u) -eq 0 ]] || { echo "predict-validate: run as root (recorder, loop devices, FUSE)" >&2; exit 1; }
[[ -x $bin ]] || { echo "predict-validate: $bin not found (build first, or set FSREPLAY)" >&2; exit 1; }
ml=$repo/dev/mountlab/mountlab.sh
work=${WORK:-$(mktemp -d /var/tmp/fsr-probe-validate-XXXXXX)}
profiles_out=${profiles_out:-$work/profiles}
mkdir -p "$profiles_out" "$work/traces" "$work/results"
ext4=$work/ext4 mnt=$work/mnt sshd_pid=""
cleanup() {
  set +e
  mountpoint -q "$mnt" && "$ml" down "$mnt" >/dev/null 2>&1
  mountpoint -q "$mnt" && fusermount3 -u "$mnt"
  [[ -n $sshd_pid ]] && kill "$sshd_pid" 2>/dev/null
  mountpoint -q "$ext4" && "$ml" down "$ext4" >/dev/null
}
trap cleanup EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

if [[ $reuse == 1 ]]; then   # predictions again, against the replays of an earlier run in $WORK
  [[ -n ${WORK:-} && -d $work/results ]] || { echo "predict-validate: --reuse needs WORK=DIR of an earlier run" >&2; exit 2; }
fi
[[ $reuse == 1 ]] || "$ml" loop-up ext4 2048 "$ext4" >/dev/null

# --- workloads, recorded on the ext4 ----------------------------------------
if [[ $reuse == 0 ]]; then
rec=$ext4/rec
mkdir -p "$rec" "$work/src"
src=$work/src/repo
git init -q "$src"
for i in $(seq 1 400); do mkdir -p "$src/d$((i % 20))"; head -c $((i * 37 % 9000 + 100)) /dev/urandom > "$src/d$((i % 20))/f$i"; done
git -C "$src" add -A && git -C "$src" -c user.email=b@x -c user.name=b commit -qm init
cat > "$work/small.sh" <<'SH'
set -e; d=$1/small; rm -rf "$d"; mkdir -p "$d"
for i in $(seq 1 500); do echo "$i" > "$d/f$i"; done
for i in $(seq 1 500); do stat -c %s "$d/f$i" >/dev/null; done
cat "$d"/f* > /dev/null; rm -rf "$d"
SH
proj=$rec/cproj; mkdir -p "$proj"
for i in $(seq 1 24); do printf '#include <stdio.h>\nint f%d(void){return %d;}\n' "$i" "$i" > "$proj/f$i.c"; done
printf 'SRCS=$(wildcard *.c)\nall: $(SRCS:.c=.o)\n\t$(CC) -shared -o libp.so $^\n%%.o: %%.c\n\t$(CC) -O2 -fPIC -c $< -o $@\n' > "$proj/Makefile"
wl_cmd() {
  case $1 in
    git-clone) echo "git clone -q --no-hardlinks $src $rec/clone" ;;
    small-files) echo "sh $work/small.sh $rec" ;;
    make-j2) echo "make -s -C $proj -j2" ;;
  esac
}
wl_clean() {
  case $1 in
    git-clone) rm -rf "$rec/clone" ;;
    make-j2) rm -f "$proj"/*.o "$proj"/libp.so ;;
    *) ;;
  esac
}
for w in $workloads; do
  # shellcheck disable=SC2046
  # shellcheck disable=SC2091 # runs the workload's command line, word-split on purpose
  $(wl_cmd "$w") >/dev/null; wl_clean "$w"; sync   # warm-up
  # shellcheck disable=SC2046
  "$bin" record -o "$work/traces/$w.trace" --root "$rec" -- $(wl_cmd "$w") >/dev/null 2>"$work/record-$w.log" ||
    { cat "$work/record-$w.log" >&2; exit 1; }
  wl_clean "$w"
done
fi

# --- targets ------------------------------------------------------------------
sshd_up() {
  local d=$work/sshd
  mkdir -p "$d"; chmod 700 "$d"
  ssh-keygen -q -t ed25519 -N '' -f "$d/host" && ssh-keygen -q -t ed25519 -N '' -f "$d/user"
  cat > "$d/config" <<EOF
Port 22118
ListenAddress 127.0.0.1
HostKey $d/host
AuthorizedKeysFile $d/user.pub
PermitRootLogin prohibit-password
PasswordAuthentication no
StrictModes no
PidFile $d/pid
Subsystem sftp internal-sftp
EOF
  mkdir -p /run/sshd
  /usr/sbin/sshd -D -f "$d/config" -E "$d/log" & sshd_pid=$!
  sleep 1
}
mount_target() {  # mount_target T BACKING
  mkdir -p "$2"
  case $1 in
    wsl2-9p|wsl2-virtiofs|wsl1-drvfs) "$ml" slowfs-up "$2" "$mnt" "$1" --realtime >/dev/null ;;
    bindfs) "$ml" bindfs-up "$2" "$mnt" >/dev/null ;;
    sshfs)
      [[ -n $sshd_pid ]] || sshd_up
      mkdir -p "$mnt"
      sshfs -p 22118 -o IdentityFile="$work/sshd/user",StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null \
        -o allow_other,default_permissions "root@127.0.0.1:$2" "$mnt" ;;
    *) echo "predict-validate: unknown target $1" >&2; exit 2 ;;
  esac
}
umount_target() { if [[ $1 == sshfs ]]; then fusermount3 -u "$mnt"; else "$ml" down "$mnt" >/dev/null; fi; }

# replay_med TRACE TARGET SCRATCH OUT: RUNS think replays, the median's result kept as OUT
replay_once() {
  sync
  "$bin" replay "$1" --target "$2" --scratch "$3" --no-prepare --timing think --json -o "$4" 2>/dev/null | jq .wall_ns
}
row() {  # row W T: predicts W on T's profile and prints the comparison with the replays' report
  local w=$1 t=$2 res=$work/results/$2-$1 st=0
  "$bin" predict "$work/traces/$w.trace" --profile "$profiles_out/$t.profile" -f json -o "$res.predict.json" 2>/dev/null || true
  "$here/predict_compare.py" "$w" "$t" "$res.report.json" "$res.predict.json" || st=1
  if [[ -n $before && -f $profiles_out/$t.before.profile ]]; then
    "$before" predict "$work/traces/$w.trace" --profile "$profiles_out/$t.before.profile" -f json \
      -o "$res.before.predict.json" 2>/dev/null || true
    "$here/predict_compare.py" "$w" "$t/before" "$res.report.json" "$res.before.predict.json" || true
  fi
  return $st
}
"$here/predict_compare.py" --header
status=0
if [[ $reuse == 1 ]]; then
  for t in $targets; do for w in $workloads; do row "$w" "$t" || status=1; done; done
  exit $status
fi
for t in $targets; do
  backing=$ext4/tgt-$t
  mount_target "$t" "$backing"
  if [[ -n $before ]]; then   # the old binary's probe first, then the new one's, on the same mount
    "$before" probe "$mnt" --duration "$duration" --name "$t" -o "$profiles_out/$t.before.profile" >/dev/null \
      2>"$work/probe-$t.before.log" || { cat "$work/probe-$t.before.log" >&2; exit 1; }
  fi
  # shellcheck disable=SC2086
  "$bin" probe "$mnt" --duration "$duration" --name "$t" $probe_args -o "$profiles_out/$t.profile" >/dev/null 2>"$work/probe-$t.log" ||
    { cat "$work/probe-$t.log" >&2; exit 1; }
  for w in $workloads; do
    tr=$work/traces/$w.trace res=$work/results/$t-$w
    mkdir -p "$mnt/$w" "$ext4/base-$w" "$work/scratch-$t-$w"
    "$bin" prepare "$tr" --target "$mnt/$w" --scratch "$work/scratch-$t-$w" >/dev/null
    "$bin" prepare "$tr" --target "$ext4/base-$w" --scratch "$work/scratch-$t-$w" >/dev/null
    tw=() bw=()
    for k in $(seq 1 "$runs"); do   # interleaved: target, ext4
      tw+=("$(replay_once "$tr" "$mnt/$w" "$work/scratch-$t-$w" "$res.t$k.result") $k")
      bw+=("$(replay_once "$tr" "$ext4/base-$w" "$work/scratch-$t-$w" "$res.b$k.result") $k")
    done
    tk=$(printf '%s\n' "${tw[@]}" | sort -n | awk -v n="$runs" 'NR == int((n+1)/2) {print $2}')
    bk=$(printf '%s\n' "${bw[@]}" | sort -n | awk -v n="$runs" 'NR == int((n+1)/2) {print $2}')
    "$bin" report "$res.t$tk.result" --baseline "$res.b$bk.result" -f json -o "$res.report.json"
    row "$w" "$t" || status=1
    rm -rf "${mnt:?}/$w" "$ext4/base-$w" "$work/scratch-$t-$w"
  done
  umount_target "$t"
done
echo "profiles in $profiles_out; results in $work/results (pass: |error| <= 10%, max_dshare <= 5 points)"
exit $status

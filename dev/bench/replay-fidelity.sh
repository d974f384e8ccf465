#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Replay fidelity, measured the way a user's run happens: does a
# think-mode replay predict the *untraced* workload's wall time?
#
#   dev/bench/replay-fidelity.sh [-n RUNS] [-w WORKLOADS] [-t TARGETS] [-b FSREPLAY] [--ab] [--afap] [--raw]
#     -n RUNS       rounds per workload (median of them; default 3), after one warm-up round
#     -w WORKLOADS  comma list of small,git,clone,npm,cargo,make,configure (default: all)
#     -t TARGETS    comma list of ext4,bindfs,sshfs (default: all)
#     --ab          each round also replays without the think clock's corrections
#                   (--no-clock-correction): the "uncorrected" column
#     --afap        each round also replays with no think time at all (--timing
#                   afap): the "afap" column, the replayer's floor on that target
#                   (a think replay cannot come in below it)
#     --raw         print every run as it ends
#   Root. Needs mkfs.ext4, loop devices, bindfs, sshfs and openssh-server
#   (tools/install-deps), jq; git/npm/cargo/make per workload (a missing one
#   is skipped with a line saying why). WORK (default /var/tmp/fsr-fidelity)
#   keeps the inputs between runs; FSREPLAY (or -b) is the binary.
#
# Every timed run (untraced, recorded, replayed) starts on a just-made
# loop-mounted ext4 holding the same tree, made before the clock, followed by
# `sync`; round 0 is a warm-up whose figures are dropped. A round records the
# workload once on a fresh ext4 (the recording's span is the "recorded"
# column), then on each target runs it untraced and replays that round's
# trace, alternating which goes first. bindfs and sshfs (to our own sshd on
# 127.0.0.1) sit over a fresh ext4 too: the tree is made on the ext4
# underneath, then the mount is made, so both runs start with the FUSE
# layer's caches cold (the replay therefore skips its tree check:
# --no-prepare --no-verify). Columns, medians over the rounds: untraced real
# run, recorded span, replay, error = replay against the untraced run; then
# the replay against the recorded span (what the bench before this one
# reported) and the divergent ops.
#
# Workloads (the tree each starts from, then the command, in the tree):
#   small  empty; bash: 5,000 x `echo x > sm/f$i`, `ls -l sm`, `rm -rf sm`
#   git    a clone of git/git (4,847 files) with its index fresh and not
#          racy (refreshed again a second after the checkout: an index
#          written in the second its files were makes every `git status`
#          re-read them until a status runs a second later, so a run started
#          at once did several times the work of one started after the
#          recorder's start-up); `git status`,
#          `find g -name '*.c' -print0 | xargs -0 -P2 -n 40 cat`, `du -sh g`
#   clone  empty; `git clone --no-hardlinks` of git/git's tree (a depth-1 bare
#          copy of /work/.mirror/git+git/repo outside the tree), `git status`
#   npm    tests/workloads/npm; `npm ci --offline` (npm's cache warmed first)
#   cargo  tests/workloads/cargo; `cargo build --offline --locked` (Debian's crates)
#   make   Lua 5.4.4 (Debian's lua5.4 source, fetched once with a private
#          sources list); `make -j2 linux`
#   configure  sed 4.9 (Debian's source, fetched the same way): `./configure`
#          (gnulib's ~1,000 checks: a process-creation storm) and `make -j2`
# Without the git/git mirror, git and clone use dev/workloads/make-git-repo.py
# (4,800 files). How long: about 25 min for -n 3 with every workload and
# target on the 2-core VM (sshfs and cargo dominate).
set -euo pipefail

runs=3
workloads=small,git,clone,npm,cargo,make,configure
targets=ext4,bindfs,sshfs
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin=${FSREPLAY:-$repo/build/cli/fsreplay}
ab=0 afap=0 raw=0
while [[ $# -gt 0 ]]; do
  case $1 in
    -n) runs=$2; shift 2 ;;
    -w) workloads=$2; shift 2 ;;
    -t) targets=$2; shift 2 ;;
    -b) bin=$2; shift 2 ;;
    --ab) ab=1; shift ;;
    --afap) afap=1; shift ;;
    --raw) raw=1; shift ;;
    -h|--help) sed -n '2,48p' "$0"; exit 0 ;;
    *) echo "replay-fidelity: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $(id -u) == 0 ]] || { echo "replay-fidelity: run as root (recording, loop mounts)" >&2; exit 1; }
bin=$(realpath "$bin")
[[ -x $bin ]] || { echo "replay-fidelity: $bin not found (build first, or -b)" >&2; exit 1; }
for t in jq mkfs.ext4 losetup; do command -v $t >/dev/null || { echo "replay-fidelity: $t missing (tools/install-deps)" >&2; exit 1; }; done

work=${WORK:-/var/tmp/fsr-fidelity}
mkdir -p "$work"
work=$(realpath "$work")
fs=$work/fs mnt=$work/mnt ssh=$work/ssh traces=$work/traces
mkdir -p "$fs" "$mnt" "$traces"
sshd_pid=
cleanup() {
  mountpoint -q "$mnt" && umount "$mnt" 2>/dev/null || true
  mountpoint -q "$fs" && umount "$fs" 2>/dev/null || true
  rm -f "$work/fs.img"
  [[ -n $sshd_pid ]] && kill "$sshd_pid" 2>/dev/null || true
}
trap cleanup EXIT
say() { echo "replay-fidelity: $*" >&2; }

# --- fresh file systems and targets ---------------------------------------
fresh_fs() {  # a just-made ext4 at $fs, its tree root $fs/w
  mountpoint -q "$mnt" && umount "$mnt"
  mountpoint -q "$fs" && umount "$fs"
  rm -f "$work/fs.img"
  truncate -s 3G "$work/fs.img"
  mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$work/fs.img"
  mount -o loop "$work/fs.img" "$fs"
  mkdir "$fs/w"
}
start_sshd() {
  [[ -n $sshd_pid ]] && return 0
  command -v sshfs >/dev/null && [[ -x /usr/sbin/sshd ]] || { say "sshfs or sshd missing (tools/install-deps)"; return 1; }
  rm -rf "$ssh"; mkdir -p "$ssh" /run/sshd
  ssh-keygen -q -t ed25519 -N '' -f "$ssh/host_key"
  ssh-keygen -q -t ed25519 -N '' -f "$ssh/client_key"
  cp "$ssh/client_key.pub" "$ssh/authorized_keys"
  port=$((22000 + $$ % 1000))
  cat > "$ssh/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $ssh/host_key
PidFile $ssh/sshd.pid
AuthorizedKeysFile $ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
Subsystem sftp internal-sftp
EOF
  /usr/sbin/sshd -f "$ssh/sshd_config" -D -e 2> "$ssh/sshd.log" &
  sshd_pid=$!
  for _ in $(seq 50); do
    ssh -p "$port" -i "$ssh/client_key" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
      -o BatchMode=yes root@127.0.0.1 true 2>/dev/null && return 0
    sleep 0.1
  done
  say "our sshd on port $port did not answer: $(tail -2 "$ssh/sshd.log")"; return 1
}
mount_target() {  # mount_target KIND: where the workload and the replay run
  case $1 in
    ext4) echo "$fs/w" ;;
    bindfs) bindfs "$fs/w" "$mnt"; echo "$mnt" ;;
    sshfs) sshfs -p "$port" -o IdentityFile="$ssh/client_key",StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,BatchMode=yes \
             "root@127.0.0.1:$fs/w" "$mnt"; echo "$mnt" ;;
  esac
}

# --- workloads --------------------------------------------------------------
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null UV_USE_IO_URING=0 npm_config_update_notifier=false
gitsrc=$work/git-src.git
debian_source() {  # debian_source PACKAGE DIR: Debian's source of PACKAGE unpacked at $work/DIR, once (a private sources list)
  [[ -d $work/$2 ]] && return 0
  local a="-o Dir::Etc::SourceList=$work/apt/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$work/apt/lists"
  mkdir -p "$work/apt/lists/partial"
  echo "deb-src http://deb.debian.org/debian bookworm main" > "$work/apt/sources.list"
  (cd "$work" && apt-get $a -qq update && apt-get $a -qq source --download-only "$1" >/dev/null 2>&1 &&
    tar xf "$(ls "$1"_*.orig.tar.* | head -1)") && [[ -d $work/$2 ]]
}
prepare_inputs() {  # once per workload: its inputs outside every tree; 1 = cannot run here
  case $1 in
    small) ;;
    git|clone)
      command -v git >/dev/null || { say "skip $1: git missing"; return 1; }
      if [[ ! -d $gitsrc ]]; then
        if [[ -d /work/.mirror/git+git/repo ]]; then
          git clone -q --bare --depth 1 "file:///work/.mirror/git+git/repo" "$gitsrc"
        else
          "$repo/dev/workloads/make-git-repo.py" "$work/gen" --files 4800 >/dev/null
          git clone -q --bare "$work/gen" "$gitsrc"
          # Packed, as a real remote's objects are: left loose, the clone
          # would copy its 5,000 object files one by one instead of a pack.
          git -C "$gitsrc" repack -adq
        fi
      fi ;;
    npm)
      command -v npm >/dev/null || { say "skip npm: npm missing"; return 1; }
      rm -rf "$work/npm-warm"; mkdir -p "$work/npm-warm"
      cp "$repo"/tests/workloads/npm/package*.json "$work/npm-warm/"
      (cd "$work/npm-warm" && npm ci --offline --no-audit --no-fund >/dev/null 2>&1) ||
        (cd "$work/npm-warm" && timeout 120 npm ci --no-audit --no-fund >/dev/null 2>&1) ||
        { say "skip npm: npm ci fails offline and the registry is unreachable"; return 1; } ;;
    cargo)
      [[ -x /usr/bin/cargo && -x /usr/bin/rustc && -d /usr/share/cargo/registry ]] ||
        { say "skip cargo: Debian's cargo, rustc or librust-*-dev missing (tools/install-deps)"; return 1; }
      mkdir -p "$work/cargo-home" ;;
    make) debian_source lua5.4 lua-5.4.4 || { say "skip make: cannot fetch Debian's lua5.4 source"; return 1; } ;;
    configure) debian_source sed sed-4.9 || { say "skip configure: cannot fetch Debian's sed source"; return 1; } ;;
  esac
}
make_tree() {  # make_tree WORKLOAD DIR: the state the workload starts from
  local d=$2
  case $1 in
    git) git clone -q --no-hardlinks "$gitsrc" "$d/g" && git -C "$d/g" status >/dev/null &&
         sleep 1.1 && git -C "$d/g" status >/dev/null ;;
    npm) cp "$repo"/tests/workloads/npm/package*.json "$d/" ;;
    cargo) cp -r "$repo/tests/workloads/cargo/." "$d/" ;;
    make) cp -r "$work/lua-5.4.4/." "$d/" ;;
    configure) cp -a "$work/sed-4.9/." "$d/" ;;
  esac
}
command_of() {  # the workload's command line, run in its tree
  case $1 in
    small) echo 'bash -c '"'"'mkdir sm; for i in $(seq 1 5000); do echo x > sm/f$i; done; ls -l sm > /dev/null; rm -rf sm'"'" ;;
    git) echo 'sh -c '"'"'git -C g status > /dev/null; find g -name "*.c" -print0 | xargs -0 -P2 -n 40 cat > /dev/null; du -sh g > /dev/null'"'" ;;
    clone) echo "sh -c 'git clone -q --no-hardlinks $gitsrc c && git -C c status > /dev/null'" ;;
    npm) echo 'npm ci --offline --no-audit --no-fund --loglevel=error' ;;
    cargo) echo "env CARGO_HOME=$work/cargo-home RUSTC=/usr/bin/rustc /usr/bin/cargo build --offline --locked -q" ;;
    make) echo 'make -s -j2 linux' ;;
    configure) echo "sh -c './configure -q > /dev/null && make -s -j2 > /dev/null'" ;;
  esac
}

# --- one run of each kind -------------------------------------------------------
now_ns() { date +%s%N; }
untraced() {  # untraced W T -> ns
  fresh_fs; make_tree "$1" "$fs/w"; sync
  local d; d=$(mount_target "$2")
  local s e; s=$(now_ns); (cd "$d" && eval "$(command_of "$1")" > /dev/null 2>&1); e=$(now_ns)
  echo $((e - s))
}
record() {  # record W R -> trace path (span read from it later)
  fresh_fs; make_tree "$1" "$fs/w"; sync
  local t=$traces/$1.$2.trace
  (cd "$fs/w" && eval "\"$bin\" record -o \"$t\" --root \"$fs/w\" -- $(command_of "$1")" > /dev/null 2> "$t.log") ||
    { say "recording $1 failed: $(tail -1 "$t.log")"; return 1; }
  echo "$t"
}
replay() {  # replay TRACE T [extra args] -> the replay's JSON summary
  local t=$1 k=$2; shift 2
  fresh_fs; "$bin" prepare "$t" --target "$fs/w" > /dev/null; sync
  local d; d=$(mount_target "$k")
  "$bin" replay "$t" --target "$d" --no-prepare --no-verify --keep-tree --max-divergence 100 --json \
    -o "$t.$k.result" "$@" 2> "$t.$k.log" || { say "replay of $t on $k failed: $(tail -1 "$t.$k.log")"; return 1; }
}

# --- the bench ------------------------------------------------------------------
calc() { awk "BEGIN {printf \"%.6f\", $*}"; }
median() { awk 'NF' | sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print 0}'; }
declare -A U R S D X A  # per workload/target: untraced, replay, span, divergent ops %, uncorrected, afap
IFS=, read -ra W <<< "$workloads"
IFS=, read -ra T <<< "$targets"
for k in "${T[@]}"; do
  case $k in ext4|bindfs) ;; sshfs) start_sshd || { say "no sshfs target"; T=("${T[@]/sshfs}"); } ;;
    *) say "unknown target $k"; exit 2 ;; esac
done
t_begin=$(now_ns)
load_begin=$(cut -d' ' -f1-3 /proc/loadavg)
for w in "${W[@]}"; do
  prepare_inputs "$w" || continue
  for r in $(seq 0 "$runs"); do
    trace=$(record "$w" "$r") || continue
    for k in "${T[@]}"; do
      [[ -n $k ]] || continue
      if (( r % 2 )); then u=$(untraced "$w" "$k"); j=$(replay "$trace" "$k") || continue
      else j=$(replay "$trace" "$k") || continue; u=$(untraced "$w" "$k"); fi
      x=""
      [[ $ab == 1 ]] && x=$(replay "$trace" "$k" --no-clock-correction | jq .wall_ns)
      a=""
      [[ $afap == 1 ]] && a=$(replay "$trace" "$k" --timing afap | jq .wall_ns)
      rw=$(jq .wall_ns <<< "$j"); sp=$(jq .recorded_ns <<< "$j")
      dv=$(jq '.divergences * 100 / ([.ops, 1] | max)' <<< "$j")
      [[ $raw == 1 ]] && printf 'run %-6s %-7s round %d: untraced %.3f s, span %.3f s, replay %.3f s%s (load %s)\n' "$w" "$k" "$r" \
        "$(calc "$u/1e9")" "$(calc "$sp/1e9")" "$(calc "$rw/1e9")" \
        "${x:+, uncorrected $(calc "$x/1e9") s}${a:+, afap $(calc "$a/1e9") s}" "$(cut -d' ' -f1 /proc/loadavg)" >&2
      (( r == 0 )) && continue  # the warm-up round
      U[$w/$k]+="$u "; R[$w/$k]+="$rw "; S[$w/$k]+="$sp "; D[$w/$k]+="$dv "; X[$w/$k]+="${x:-0} "; A[$w/$k]+="${a:-0} "
    done
    rm -f "$traces/$w.$r".trace.*.result
  done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

printf '\nreplay fidelity, think mode, medians of %d rounds (%s; %s; load %s at start, %s at end; %.0f min)\n' \
  "$runs" "$(date -u +%Y-%m-%dT%H:%MZ)" "$(uname -r)" "$load_begin" "$load_end" "$(calc "($(now_ns) - $t_begin)/6e10")"
printf '%-7s %-7s %10s %10s %10s %8s %10s %9s%s\n' workload target untraced recorded replay error vs-span divergent \
  "$([[ $ab == 1 ]] && printf ' %12s' uncorrected)$([[ $afap == 1 ]] && printf ' %12s' afap)"
status=0
for w in "${W[@]}"; do for k in "${T[@]}"; do
  [[ -n ${U[$w/$k]:-} ]] || continue
  u=$(tr ' ' '\n' <<< "${U[$w/$k]}" | median); rw=$(tr ' ' '\n' <<< "${R[$w/$k]}" | median)
  sp=$(tr ' ' '\n' <<< "${S[$w/$k]}" | median); dv=$(tr ' ' '\n' <<< "${D[$w/$k]}" | median)
  err=$(calc "($rw - $u) * 100 / $u"); vs=$(calc "($rw - $sp) * 100 / $sp")
  xs=""
  if [[ $ab == 1 ]]; then x=$(tr ' ' '\n' <<< "${X[$w/$k]}" | median); xs=$(printf ' %7.3fs %+4.0f%%' "$(calc "$x/1e9")" "$(calc "($x - $u) * 100 / $u")"); fi
  if [[ $afap == 1 ]]; then a=$(tr ' ' '\n' <<< "${A[$w/$k]}" | median); xs+=$(printf ' %7.3fs %+4.0f%%' "$(calc "$a/1e9")" "$(calc "($a - $u) * 100 / $u")"); fi
  printf '%-7s %-7s %9.3fs %9.3fs %9.3fs %+7.1f%% %+9.1f%% %8.2f%%%s\n' "$w" "$k" "$(calc "$u/1e9")" \
    "$(calc "$sp/1e9")" "$(calc "$rw/1e9")" "$err" "$vs" "$dv" "$xs"
  bound=10; [[ $k == ext4 ]] && bound=5
  awk -v e="$err" -v b="$bound" 'BEGIN {exit !(e <= b && e >= -b)}' || status=1
done; done
exit $status

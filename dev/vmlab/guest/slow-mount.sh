#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Guest side of dev/vmlab/bench-slow-mount.sh (issue 41 item 4, issue 43
# item 4 on the lab's real clients). Per workload (seeds, cbuild), mount (9p
# /mnt/c, virtiofs /mnt/cv) and round, interleaved, each run in a fresh
# directory at depth 1 of the mount after a sync:
#   real  the workload, untraced       rec  recorded on the mount (its span)
#   rpm   think replay of that round's mount recording
#   rpe   think replay of the recording made once on the guest's ext4
# replays are `prepare`, sync, `replay --no-prepare --no-verify`; and `pred`:
# `predict` of the ext4 recording from a short `probe` of the mount. 9p
# requests of /mnt/c's client are counted with the 9p:9p_client_req
# tracepoint's hist trigger (keys=clnt,type) around each timed run.
# gitplace (issue 43): git init + fetch + checkout into clone/ on 9p with
# clone/.git on ext4 by a bind mount (real-split), all on 9p (real-all),
# `replay --place clone/.git=EXT4DIR` of the ext4 recording (rp-split), and
# `predict --place clone/.git=ext4.profile` (pred split / all9p). cplace:
# the same for cbuild's make -j2 with its object directory obj/ on ext4.
# WARMUP rounds (numbered 0, -1, ...) run first, the same, for the table to leave out.
# Prints "run W MOUNT ROUND KIND SECONDS TWALK TGETATTR TOTAL DIVERGENCES",
# "pred W MOUNT SECONDS", "types ..." (every 9p request type's count) and
# "# ..." notes; artefacts in /mnt/results/slow-mount/.
#   slow-mount.sh FSREPLAY MAKE_GIT_REPO_PY ROUNDS WORKLOAD...
set -euo pipefail
fsr=$1 mkrepo=$2 rounds=$3
shift 3
res=/mnt/results/slow-mount tmp=/tmp/sm scr=/mnt/rootlike/scratch
npm_dir=$(cd "$(dirname "$mkrepo")/../../tests/workloads/npm" && pwd)
mkdir -p "$res" "$tmp"
export HOME=/root
git config --global safe.directory '*'
repo_files=${REPO_FILES:-100} nsmall=${NSMALL:-50} c_files=${C_FILES:-20} probe_s=${PROBE_S:-10} warmup=${WARMUP:-0}
declare -A mnt=([9p]=/mnt/c [virtiofs]=/mnt/cv [ext4]=/mnt/ext4)

# The workloads, each run in its directory (the recorded root).
w_seeds() {
  git clone -q --no-hardlinks /mnt/rootlike/sm-src clone
  cd clone && git status > /dev/null && git status > /dev/null && cd ..
  find . | wc -l > /dev/null
  du -sh . > /dev/null
  mkdir small
  for ((i = 0; i < nsmall; i++)); do echo "file $i" > small/f$i; done
  ls -l small > /dev/null
  rm -r small
  rm -rf clone
}
w_cbuild() { make -s -j2; }
w_cplace() { make -s -j2; }
# npm ci of tests/workloads/npm from the host's npm cache (~/.npm, read
# through the guest's root: a user's cache on the distribution's disk)
w_npmplace() { UV_USE_IO_URING=0 npm ci --offline --no-audit --no-fund --loglevel=error; }
w_gitplace() {
  cd clone && git init -q && git fetch -q --no-tags /mnt/rootlike/sm-src HEAD &&
    git -c advice.detachedHead=false checkout -q FETCH_HEAD
}
export -f w_seeds w_cbuild w_gitplace w_cplace w_npmplace
# The placement workloads: the directory each places on ext4 by a bind mount.
declare -A placed=([gitplace]=clone/.git [cplace]=obj [npmplace]=node_modules)
export nsmall
tree_into() {  # tree_into DIR W: W's initial tree
  mkdir -p "$1"
  case $2 in
    cbuild) cp -a $tmp/cbuild/. "$1/" ;;
    gitplace) mkdir -p "$1/clone/.git" ;;
    cplace) cp -a $tmp/cplace/. "$1/" ;;
    npmplace) cp "$npm_dir"/package*.json "$1/" && mkdir -p "$1/node_modules" ;;
  esac
}
run_w() { (cd "$1" && bash -c "w_$2") > /dev/null 2>> $res/errors.txt || { echo "slow-mount: $2 failed in $1 ($res/errors.txt)" >&2; exit 1; }; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
umount_retry() {  # (a git process that outlives the workload by a moment may still hold it)
  for _ in $(seq 50); do umount "$1" 2> /dev/null && return 0; sleep 0.1; done
  umount "$1"
}
fresh_ext4() {
  umount_retry /mnt/ext4
  mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$VMLAB_EXT4_DEV"
  mount "$VMLAB_EXT4_DEV" /mnt/ext4
}

# --- 9p request counts ------------------------------------------------------
H=/sys/kernel/tracing/events/9p/9p_client_req hist=0 C9='*' trig=""
hist_raw() {  # "CLIENT TYPE COUNT" per hist entry
  awk '/^\{.*hitcount:/ { cl = "*"; ty = ""
    for (i = 1; i < NF; i++) { if ($i == "clnt:") cl = $(i + 1); if ($i == "type:") ty = $(i + 1) }
    gsub(/[,{}]/, "", cl); gsub(/[,{}]/, "", ty); print cl, ty, $NF }' $H/hist
}
# (Clients are kernel addresses, 20 digits: compared as strings. awk compares
# two numeric-looking fields as doubles, which cannot tell two p9_clients
# allocated within 2 KiB apart; /mnt/c's then took in the host root's.)
hist_now() { hist_raw | awk -v c="$C9" 'c == "*" || ($1 "") == (c "") { n[$2] += $3 } END { for (t in n) print t, n[t] }'; }
hist_setup() {
  [[ -r $H/format ]] || { echo "# 9p counts: none, this kernel ($(uname -r)) has no 9p:9p_client_req tracepoint"; return 0; }
  echo "# 9p:9p_client_req fields: $(grep -o 'field:[^;]*' $H/format | sed 's/field://' | tr '\n' ',' | sed 's/,$//')"
  for t in 'hist:keys=clnt,type:size=4096' 'hist:keys=type:size=2048'; do
    if echo "$t" > $H/trigger 2> /dev/null; then trig=$t && break; fi
  done
  [[ -n $trig ]] || { echo "# 9p counts: none, the kernel refused a hist trigger (CONFIG_HIST_TRIGGERS?)"; return 0; }
  hist=1
  if [[ $trig == *clnt* ]]; then
    # /mnt/c's client: the one that walks 200 missing names (bash's own test,
    # no exec: a program's start walks the root's 9p client for its libraries)
    hist_raw > $tmp/h.a
    for ((i = 0; i < 200; i++)); do [[ -e /mnt/c/.sm-missing-$i ]] || true; done
    C9=$(hist_raw | awk 'NR == FNR { a[$1 " " $2] = $3; next } $2 == 110 { d = $3 - a[$1 " " $2]; if (d > m) { m = d; c = $1 } } END { print c }' $tmp/h.a -)
    echo "# 9p counts: hist trigger '$trig', /mnt/c's client $C9 ($(hist_raw | awk -v c="$C9" '($1 "") == (c "") && $2 == 110 { print $3 }') TWALK after 200 lookups of missing names; the other 9p clients, the host root and the shares, left out)"
  else
    echo "# 9p counts: hist trigger '$trig' (no per-client key: the counts include the root's and the shares' 9p requests)"
  fi
}
declare -A P9=([8]=TSTATFS [12]=TLOPEN [14]=TLCREATE [16]=TSYMLINK [18]=TMKNOD [20]=TRENAME [22]=TREADLINK
  [24]=TGETATTR [26]=TSETATTR [30]=TXATTRWALK [32]=TXATTRCREATE [40]=TREADDIR [50]=TFSYNC [52]=TLOCK
  [54]=TGETLOCK [70]=TLINK [72]=TMKDIR [74]=TRENAMEAT [76]=TUNLINKAT [108]=TFLUSH [110]=TWALK [116]=TREAD
  [118]=TWRITE [120]=TCLUNK [122]=TREMOVE)
count_start() { CNT="- - -"; [[ $1 == 9p && $hist == 1 ]] && hist_now > $tmp/h.0; return 0; }
count_end() {  # count_end MOUNT LABEL: sets CNT="TWALK TGETATTR TOTAL", prints the types line
  [[ $1 == 9p && $hist == 1 ]] || return 0
  hist_now | awk 'NR == FNR { a[$1] = $2; next } { d = $2 - a[$1]; if (d) print $1, d }' $tmp/h.0 - | sort -n > $tmp/h.d
  CNT=$(awk '{ n += $2 } $1 == 110 { w = $2 } $1 == 24 { g = $2 } END { print w + 0, g + 0, n + 0 }' $tmp/h.d)
  local types="" t n
  while read -r t n; do types+=" ${P9[$t]:-T$t}=$n"; done < $tmp/h.d
  echo "types $2$types"
}

# --- runs -------------------------------------------------------------------
real_run() {  # real_run W M R KIND DIR [BIND]: the workload, untraced, in DIR (made fresh)
  local w=$1 m=$2 r=$3 kind=$4 d=$5 bind=${6:-} t0
  rm -rf "$d" && tree_into "$d" "$w"
  [[ -z $bind ]] || { mkdir -p "$bind" && mount --bind "$bind" "$d/${placed[$w]}"; }
  sync
  count_start "$m"
  t0=$EPOCHREALTIME
  run_w "$d" "$w"
  T=$(secs "$t0" "$EPOCHREALTIME")
  count_end "$m" "$w $m $r $kind"
  echo "run $w $m $r $kind $T $CNT 0"
  if [[ -n $bind ]]; then
    umount_retry "$d/${placed[$w]}"
    [[ -n $(ls -A "$bind") && -z $(ls -A "$d/${placed[$w]}") ]] ||
      { echo "slow-mount: ${placed[$w]} did not land on ext4 ($bind)" >&2; exit 1; }
    rm -rf "$bind"
  fi
  rm -rf "$d"
}
record_on() {  # record_on W DIR TRACE: prints the recording's span
  local w=$1 d=$2 log=$res/record.$1.log
  rm -rf "$d" && tree_into "$d" "$w" && sync
  "$fsr" record -q -o "$3" --root "$d" -- bash -c "cd '$d' && w_$w" > "$log" 2>&1 ||
    { cat "$log" >&2; echo "slow-mount: recording $w in $d failed" >&2; exit 1; }
  grep -o '[0-9.]* m\?s ->' "$log" | head -1 | awk '{ print ($2 == "ms") ? $1 / 1000 : $1 }'
  rm -rf "$d"
}
replay_on() {  # replay_on W M R KIND TRACE TARGET [PLACE_DIR]
  local w=$1 m=$2 r=$3 kind=$4 trace=$5 t=$6 pl=() rc=0
  rm -rf "$t" && mkdir -p "$t"
  [[ -z ${7:-} ]] || { rm -rf "$7" && mkdir -p "$7" && pl=(--place "${placed[$w]}=$7"); }
  # The scratch tree (the recorded files outside the root: gcc's headers and
  # libraries, git's programs, the clone source) on /mnt/rootlike, 9p
  # mounted as the guest's root is, and read once before the clock, as the
  # real runs find /usr in the page cache. (In /tmp, a tmpfs, they cost
  # nothing: cbuild replayed ~20% fast; on /mnt/rootlike unread, git's
  # replays ran 12-19% slow.)
  rm -rf "$scr" && mkdir -p "$scr"
  "$fsr" prepare "$trace" --target "$t" --scratch "$scr" -q ${pl[@]+"${pl[@]}"} > /dev/null 2> $tmp/prepare.err ||
    { cat $tmp/prepare.err >&2; exit 1; }
  find "$scr" -type f -exec cat {} + > /dev/null 2>&1 || true
  sync
  count_start "$m"
  "$fsr" replay "$trace" --target "$t" --scratch "$scr" --no-prepare --no-verify --keep-tree -q --json ${pl[@]+"${pl[@]}"} \
    -o $tmp/r.result > $tmp/r.json 2> $tmp/r.err || rc=$?
  [[ $rc == 0 || $rc == 6 ]] || { cat $tmp/r.err >&2; exit 1; }
  count_end "$m" "$w $m $r $kind"
  cp $tmp/r.json "$res/$w.$m.$r.$kind.json"
  echo "run $w $m $r $kind $(jq -r '.wall_ns / 1e9' $tmp/r.json) $CNT $(jq -r '.divergences' $tmp/r.json)"
  rm -rf "$t" "$scr" ${7:+"$7"}
}
ext4_recording() {  # the workload recorded once on a fresh ext4, after a warm-up run there
  local w=$1 d=/mnt/ext4/sm-$1-rec span
  fresh_ext4
  rm -rf "$d" && tree_into "$d" "$w" && run_w "$d" "$w" && rm -rf "$d"
  span=$(record_on "$w" "$d" $tmp/"$w".ext4.trace)
  echo "# $w recorded on ext4 in $span s"
  cp $tmp/"$w".ext4.trace "$res/"
}
predict_s() { "$fsr" predict "$@" --format json > $tmp/p.json 2> $tmp/p.err || { cat $tmp/p.err >&2; exit 1; }; grep -h 'warning: ' $tmp/p.err | sed 's/^/# predict: /' || true; }

# --- main -------------------------------------------------------------------
echo "# guest $(uname -r), $(nproc) CPUs; rounds $rounds after $warmup warm-up round(s); seeds: $repo_files-file repository, $nsmall small files; cbuild: $c_files C files, make -j2; probe --duration $probe_s"
for m in 9p virtiofs; do echo "# $m: $(awk -v d="${mnt[$m]}" '$2 == d { print $1, $3, $4 }' /proc/mounts)"; done
# The clone source outside the recorded root, on /mnt/rootlike with the
# replays' scratch tree: the real runs read it over the same 9p client as
# the replays read their copy (replay_on), as they read /usr.
python3 "$mkrepo" /mnt/rootlike/sm-src --files "$repo_files" > /dev/null
mkdir -p $tmp/cbuild/src $tmp/cbuild/include
for ((i = 1; i <= c_files; i++)); do
  echo "int v$i(void);" > $tmp/cbuild/include/h$i.h
  printf '#include "h%d.h"\n#include <stdio.h>\nint v%d(void) { return %d; }\n' $i $i $i > $tmp/cbuild/src/f$i.c
done
# shellcheck disable=SC2016 # make syntax
printf 'SRC := $(wildcard src/*.c)\nOBJ := $(SRC:.c=.o)\nall: libx.a\nlibx.a: $(OBJ)\n\tar rcs $@ $^\n%%.o: %%.c\n\t$(CC) -O0 -Iinclude -c $< -o $@\n' > $tmp/cbuild/Makefile
# cplace: the same sources, objects and library in obj/ (the placed directory)
mkdir -p $tmp/cplace/obj && cp -a $tmp/cbuild/src $tmp/cbuild/include $tmp/cplace/
# shellcheck disable=SC2016 # make syntax
printf 'SRC := $(wildcard src/*.c)\nOBJ := $(SRC:src/%%.c=obj/%%.o)\nall: obj/libx.a\nobj/libx.a: $(OBJ)\n\tar rcs $@ $^\nobj/%%.o: src/%%.c\n\t$(CC) -O0 -Iinclude -c $< -o $@\n' > $tmp/cplace/Makefile
hist_setup
wls=("$@") probes=(9p virtiofs)
[[ " ${wls[*]} " == *place* ]] && probes+=(ext4)
for m in "${probes[@]}"; do
  t0=$EPOCHREALTIME
  "$fsr" probe "${mnt[$m]}" -o "$tmp/$m.profile" --duration "$probe_s" --name "lab-$m" > /dev/null 2> "$res/probe-$m.err" ||
    { cat "$res/probe-$m.err" >&2; exit 1; }
  cp "$tmp/$m.profile" "$res/"
  echo "# probe of $m (${mnt[$m]}) took $(secs "$t0" "$EPOCHREALTIME") s"
done
for w in "${wls[@]}"; do
  [[ -n ${placed[$w]:-} ]] && continue
  ext4_recording "$w"
  for m in 9p virtiofs; do
    predict_s $tmp/"$w".ext4.trace --profile $tmp/$m.profile
    cp $tmp/p.json "$res/$w.$m.predict.json"
    echo "pred $w $m $(jq -r '.columns[-1].wall_ns / 1e9' $tmp/p.json)"
  done
  for ((r = 1 - warmup; r <= rounds; r++)); do
    for m in 9p virtiofs; do
      M=${mnt[$m]}
      real_run "$w" $m $r real "$M/sm-$w-real-$r"
      span=$(record_on "$w" "$M/sm-$w-rec-$r" $tmp/"$w".$m.trace)
      echo "run $w $m $r rec ${span:-?} - - - 0"
      replay_on "$w" $m $r rpm $tmp/"$w".$m.trace "$M/sm-$w-rpm-$r"
      replay_on "$w" $m $r rpe $tmp/"$w".ext4.trace "$M/sm-$w-rpe-$r"
    done
  done
  cp $tmp/"$w".*.trace "$res/"
  echo "# $w: behaviour diff, ext4 recording [1] against the last 9p recording [2] (fsreplay compare):"
  "$fsr" compare $tmp/"$w".ext4.trace $tmp/"$w".9p.trace 2> /dev/null | sed -n '/^Behaviour diff/,$p' | sed 's/^/#   /' || true
done
for w in "${wls[@]}"; do
  [[ -n ${placed[$w]:-} ]] || continue
  sub=${placed[$w]}
  ext4_recording $w
  predict_s $tmp/$w.ext4.trace --profile $tmp/ext4.profile --profile $tmp/9p.profile --place "$sub=$tmp/ext4.profile"
  cp $tmp/p.json "$res/$w.predict.json"
  echo "pred $w split $(jq -r '[.columns[] | select(.placement != null)][0].wall_ns / 1e9' $tmp/p.json)"
  echo "pred $w all9p $(jq -r '[.columns[] | select(.placement == null)][-1].wall_ns / 1e9' $tmp/p.json)"
  for ((r = 1 - warmup; r <= rounds; r++)); do
    real_run $w 9p $r real-all "/mnt/c/sm-$w-all-$r"
    real_run $w 9p $r real-split "/mnt/c/sm-$w-real-$r" "/mnt/ext4/sm-$w-sub-real-$r"
    replay_on $w 9p $r rp-split $tmp/$w.ext4.trace "/mnt/c/sm-$w-rp-$r" "/mnt/ext4/sm-$w-sub-rp-$r"
  done
done
[[ -z $trig ]] || echo "!$trig" > $H/trigger

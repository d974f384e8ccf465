#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# In-kernel cost of the recorder's programs (bpf_stats) on the git status
# loop of record-overhead.sh, for one or more fsreplay binaries, interleaved:
#   sudo dev/bench/record-bpf-stats.sh [FSREPLAY_BINARY[:EXTRA_ARGS]]...
# e.g. record-bpf-stats.sh build/cli/fsreplay build/cli/fsreplay:--buffer-mib=2
# Env: ROUNDS (default 5), LOOP (default 10), MODE (status, the default, or
# clone: timed.sh's clones, each into a fresh ext4), WORK (default
# /tmp/fsr-bench: run record-overhead.sh once first, it creates the
# repository there). "all progs ms" is the time spent in every program the
# recorder holds (page faults, fork, exec, exit included) over the run.
# The workload is the timing wrapper followed by a 2 s sleep: the moment the
# loop ends, `bpftool prog show` is read for the programs this recorder holds
# (their ids are in /proc/RECORDER/fdinfo), while they are still loaded.
# run_time_ns/run_cnt counts every task that enters the programs, tracked
# or not; "exit ns/event" divides sys_exit's time by the events recorded.
# Enables kernel.bpf_stats_enabled for the run and restores it after.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROUNDS=${ROUNDS:-5}
LOOP=${LOOP:-10}
MODE=${MODE:-status}
WORK=${WORK:-/tmp/fsr-bench}
[ "$(id -u)" = 0 ] || { echo "record-bpf-stats: run as root" >&2; exit 5; }
[ -x "$WORK/timed.sh" ] && [ -d "$WORK/repo/.git" ] ||
  { echo "record-bpf-stats: $WORK/repo missing: run dev/bench/record-overhead.sh once first" >&2; exit 2; }
[ $# -gt 0 ] || set -- "$HERE/../../build/cli/fsreplay"
command -v bpftool > /dev/null || { echo "record-bpf-stats: needs bpftool" >&2; exit 2; }
export LOOP CLONES=${CLONES:-2}
. "$HERE/fresh-fs.sh"
tmp=$(mktemp -d)
old=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -q -w kernel.bpf_stats_enabled=$old; rm -rf "$tmp"; fresh_fs_umount' EXIT
sysctl -q -w kernel.bpf_stats_enabled=1

for _ in $(seq "$ROUNDS"); do
  for variant in "$@"; do
    bin=${variant%%:*}; extra=""
    [ "$bin" != "$variant" ] && extra=${variant#*:} && extra=${extra//=/ }
    rm -f "$tmp/done"
    fresh_fs "$MODE"
    # shellcheck disable=SC2086
    "$bin" record $extra -o "$tmp/x.trace" --root "$WORK/repo" -- \
      sh -c "'$WORK/timed.sh' '$WORK/t-bpfstats' $MODE; touch '$tmp/done'; sleep 2" 2> "$tmp/rec.log" &
    rec=$!
    while [ ! -e "$tmp/done" ]; do sleep 0.02; done
    bpftool prog show --json > "$tmp/progs.json"
    ids=$(grep -h '^prog_id:' /proc/$rec/fdinfo/* 2> /dev/null | awk '{print $2}' | sort -u | tr '\n' ,)
    wait $rec
    python3 - "$variant" "$ids" "$(tail -1 "$tmp/rec.log")" "$tmp/progs.json" <<'PY'
import json, re, sys
variant, ids, line, progs = sys.argv[1], {int(x) for x in sys.argv[2].split(",") if x}, sys.argv[3], sys.argv[4]
events = int(re.search(r"(\d+) events", line).group(1))
held = [p for p in json.load(open(progs)) if p["id"] in ids]
s = {p["name"]: (p.get("run_time_ns", 0), p.get("run_cnt", 0)) for p in held
     if p.get("name") in ("sys_enter", "sys_exit")}
total_ms = sum(p.get("run_time_ns", 0) for p in held) / 1e6
(et, ec), (xt, xc) = s["sys_enter"], s["sys_exit"]
print(f"{variant}\tsys_enter {et / ec:.0f} ns/run\tsys_exit {xt / xc:.0f} ns/run ({xc} runs)\texit ns/event {xt / events:.0f}\tall progs ms {total_ms:.1f}\t{events} events")
PY
  done
done | tee "$tmp/all"
echo "medians:"
python3 - "$tmp/all" <<'PY'
import re, statistics, sys
rows = {}
for l in open(sys.argv[1]):
    v = l.split("\t")[0]
    nums = [float(re.search(pat, l).group(1)) for pat in
            (r"sys_enter (\d+)", r"sys_exit (\d+)", r"ns/event (\d+)", r"all progs ms ([0-9.]+)")]
    rows.setdefault(v, []).append(nums)
for v, rs in rows.items():
    med = [statistics.median(r[i] for r in rs) for i in range(4)]
    print(f"{v}\tsys_enter {med[0]:.0f} ns/run\tsys_exit {med[1]:.0f} ns/run\texit ns/event {med[2]:.0f}\tall progs ms {med[3]:.1f}\t({len(rs)} runs)")
PY

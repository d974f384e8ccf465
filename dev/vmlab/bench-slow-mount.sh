#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The slow-mount fidelity bench on the lab's real clients (issue 41 item 4;
# dev/bench/slow-mount-fidelity.sh is its host version on slowfs): per
# workload and mount (9p /mnt/c with cache=mmap as WSL2; virtiofs /mnt/cv
# with virtiofsd cache=none), rounds interleaved, each run in a fresh
# directory: the real run (untraced), a recording made on the mount, think
# replays of it and of a recording made on the guest's ext4, `predict` of the
# ext4 recording from a `probe` of the mount, the 9p requests (TWALK+TGETATTR
# and all) of the real run and of each replay from the guest kernel's
# 9p:9p_client_req tracepoint, and each error against the real run's median.
# gitplace (issue 43 item 4): clone/ on 9p with clone/.git on ext4 by a bind
# mount, against `replay --place` and `predict --place` of the ext4 recording;
# cplace the same for cbuild with its object directory obj/ on ext4;
# npmplace for `npm ci --offline` of tests/workloads/npm with node_modules/
# on ext4 (npm's cache: the host's ~/.npm, read through the guest's root).
#
#   dev/vmlab/bench-slow-mount.sh [--rounds N] [--warmup N] [--workloads "seeds cbuild gitplace cplace npmplace"] [-o DIR] [-b FSREPLAY]
#                                 [--timeout SEC] [-- VMLAB_RUN_OPTIONS...]
#
# Sizes (environment): REPO_FILES (100, the make-git-repo.py repository of
# seeds and gitplace), NSMALL (50), C_FILES (20), PROBE_S (10, probe's
# --duration). TCG is 10-50x slower than the host: compare only the ratios.
# --warmup (1): rounds run first and left out of the table (the first round
# ran slow on every kind in the lab, 2026-12-07). --timeout (1200) ends the
# guest; the runs done by then are still tabled.
# The guest's kernel: Debian 13's 6.12 (VMLAB_KERNEL_SUITE=trixie, the
# default here), whose close(2) releases its file before it returns, as
# WSL2's 6.6 and later do; VMLAB_KERNEL_SUITE= boots Debian 12's 6.1.
set -euo pipefail
export VMLAB_KERNEL_SUITE=${VMLAB_KERNEL_SUITE-trixie}
here=$(cd "$(dirname "$0")" && pwd)
rounds=3 warmup=1 workloads="seeds cbuild gitplace" out="" fsr=$here/../../build/cli/fsreplay timeout=1200 vmargs=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --workloads) workloads=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -b) fsr=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
    --) shift; vmargs=("$@"); break ;;
    *) echo "bench-slow-mount: unknown option $1 (--help)" >&2; exit 2 ;;
  esac
done
for w in $workloads; do
  case $w in seeds|cbuild|gitplace|cplace|npmplace) ;; *) echo "bench-slow-mount: unknown workload $w (seeds, cbuild, gitplace, cplace, npmplace)" >&2; exit 2 ;; esac
done
fsr=$(readlink -f "$fsr")
[[ -x $fsr ]] || { echo "bench-slow-mount: $fsr not built (ninja -C build)" >&2; exit 2; }
work=$(mktemp -d /var/tmp/fsr-lab-slow-mount.XXXXXX)
trap 'rm -rf "$work"' EXIT
out=${out:-$work/out}
mkdir -p "$out"
printf '# %s UTC, host %s, fsreplay %s; vmlab run --virtiofs-cache none %s; %s rounds (after %s warm-up) of %s; host %s\n' \
  "$(date -u '+%Y-%m-%d %H:%M')" "$(hostname)" "$(git -C "$here" rev-parse --short HEAD 2> /dev/null || echo '?')" \
  "${vmargs[*]}" "$rounds" "$warmup" "$workloads" "$(uptime | sed 's/.*load/load/')"
start=$SECONDS rc=0
"$here/vmlab" run --share "$out" --virtiofs-cache none --timeout "$timeout" "${vmargs[@]}" \
  --env "REPO_FILES=${REPO_FILES:-100}" --env "NSMALL=${NSMALL:-50}" --env "C_FILES=${C_FILES:-20}" \
  --env "PROBE_S=${PROBE_S:-10}" --env "WARMUP=$warmup" -- \
  bash -c "set -o pipefail; '$here/guest/slow-mount.sh' '$fsr' '$here/../workloads/make-git-repo.py' $rounds $workloads | tee /mnt/results/slow-mount.txt" || rc=$?
echo "# guest done in $((SECONDS - start)) s (status $rc); host $(uptime | sed 's/.*load/load/')"
[[ -s $out/slow-mount.txt ]] || { echo "bench-slow-mount: the guest wrote no rows" >&2; exit 1; }
echo
PYTHONPATH=$here/../bench python3 "$here/slow_mount_table.py" "$out/slow-mount.txt"
exit "$rc"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fidelity in the lab: each workload recorded on the guest's ext4
# (kernel 6.1: the recorder's own test there), then run for real and replayed
# in think mode RUNS times on the guest's ext4, 9p /mnt/c and virtiofs
# /mnt/cv, interleaved; prints the error of the median replay against the
# median real run, the divergent ops (and how many of them are the mount's
# own behaviour, per `fsreplay report`), and the per-class latency ratios of
# the 9p and virtiofs replays to the ext4 one (slowfs's lab calibration).
#
#   dev/vmlab/bench-fidelity.sh [--runs N] [--workloads "small git make"] [-o DIR] [-b FSREPLAY] [-- VMLAB_RUN_OPTIONS...]
#
# Sizes (environment): SMALL_FILES (300), REPO_FILES (150, a make-git-repo.py
# repository), C_FILES (8). With the defaults it takes ~20 min here (TCG).
# Goal: |error| <= 10%, divergences <= 0.1% (exit 1 otherwise).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runs=3 workloads="small git make" out="" fsr=$here/../../build/cli/fsreplay vmargs=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --workloads) workloads=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -b) fsr=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    --) shift; vmargs=("$@"); break ;;
    *) echo "bench-fidelity: unknown option $1 (--help)" >&2; exit 2 ;;
  esac
done
fsr=$(readlink -f "$fsr")
[[ -x $fsr ]] || { echo "bench-fidelity: $fsr not built (ninja -C build)" >&2; exit 2; }
work=$(mktemp -d /var/tmp/fsr-lab-fidelity.XXXXXX)
trap 'rm -rf "$work"' EXIT
out=${out:-$work/out}; mkdir -p "$out"
echo "bench-fidelity: $runs runs of $workloads; $(uptime | sed 's/.*load/load/')" >&2
start=$SECONDS
"$here/vmlab" run --share "$out" "${vmargs[@]}" \
  --env "SMALL_FILES=${SMALL_FILES:-300}" --env "REPO_FILES=${REPO_FILES:-150}" --env "C_FILES=${C_FILES:-8}" -- \
  bash -c "'$here/guest/fidelity.sh' '$fsr' '$here/../workloads/make-git-repo.py' $runs $workloads > /mnt/results/fidelity.txt"
echo "bench-fidelity: guest done in $((SECONDS - start)) s; $(uptime | sed 's/.*load/load/')" >&2
python3 "$here/fidelity_table.py" "$out/fidelity.txt" --results "$out/fidelity"

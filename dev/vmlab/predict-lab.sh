#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# predict against the lab's real 9p and virtiofs (issue 18's validation):
# takes the traces and think-mode replays that bench-fidelity.sh left in
# OUT/fidelity/, predicts each trace with the lab's profiles (probed in the
# guest: profiles/lab-9p.profile, lab-virtiofs.profile) and prints, per
# workload x mount, the median replay against the median ext4 replay beside
# the prediction (dev/bench/predict_compare.py's row).
#
#   dev/vmlab/bench-fidelity.sh --runs 3 -o OUT && dev/vmlab/predict-lab.sh OUT [PROFILE_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: predict-lab.sh OUT [PROFILE_DIR] (OUT: bench-fidelity.sh -o OUT)}
profiles=${2:-$here/../../profiles}
fsr=${FSREPLAY:-$here/../../build/cli/fsreplay}
res=$out/fidelity
[[ -d $res ]] || { echo "predict-lab: $res missing: run dev/vmlab/bench-fidelity.sh -o $out first" >&2; exit 2; }
median_result() {  # median_result W T: the result file of the median replay
  for j in "$res/$1.$2".*.json; do
    case $j in *.report.json) continue ;; esac
    printf '%s %s\n' "$(jq -r '.wall_ns // empty' "$j" 2>/dev/null)" "${j%.json}.result"
  done | awk 'NF == 2' | sort -n | awk '{a[NR] = $2} END {print a[int((NR + 1) / 2)]}'
}
"$here/../bench/predict_compare.py" --header
status=0
for tr in "$res"/*.trace; do
  w=$(basename "$tr" .trace)
  base=$(median_result "$w" ext4)
  for t in 9p virtiofs; do
    r=$(median_result "$w" "$t")
    [[ -n $base && -n $r ]] || { echo "predict-lab: no replays of $w on ext4 and $t in $res" >&2; status=1; continue; }
    "$fsr" report "$r" --baseline "$base" -f json -o "$res/$w.$t.vs-ext4.json"
    "$fsr" predict "$tr" --profile "$profiles/lab-$t.profile" -f json -o "$res/$w.$t.predict.json" 2>/dev/null || true
    "$here/../bench/predict_compare.py" "$w" "lab-$t" "$res/$w.$t.vs-ext4.json" "$res/$w.$t.predict.json" || status=1
  done
done
exit $status

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# predict --place and advise end to end: their outputs, and one clear line
# (with the documented exit code) per bad input.
# Usage: cli_test.sh FSREPLAY PREDICT_FIXTURE OUTDIR
set -uo pipefail
fsreplay=$1 fixture=$2 out=$3
rm -rf "$out" && mkdir -p "$out"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
expect() {
  local want=$1; shift
  "$@" >"$out/o" 2>"$out/e"; local got=$?
  [[ $got == "$want" ]] || fail "exit $got (want $want): $* -- $(head -c 400 "$out/e")"
}
has() { grep -q -- "$2" "$1" || fail "$1 lacks '$2': $(head -c 400 "$1")"; }
lines() { local n; n=$(grep -vc "^fsreplay predict: assumed\|^fsreplay advise: assumed" "$1"); [[ $n == "$2" ]] || fail "$1 has $n lines (want $2): $(cat "$1")"; }

"$fixture" "$out" || { echo "fixture failed" >&2; exit 1; }
t=$out/build.trace b=$out/base.profile s=$out/slow-stat.profile

# predict --place: one more column, its ops per mount said
expect 0 "$fsreplay" predict "$t" -p "$b" -p "$s" --place src=base
has "$out/o" "predicted (placed: src=base, rest=slow-stat)"
has "$out/e" "placement src=base, rest=slow-stat: .* ops under src priced by base"
expect 0 "$fsreplay" predict "$t" -p "$b" -p "$s" --place src=base --format json
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["columns"][-1]; assert c["placement"]["rules"]=="src=base, rest=slow-stat", c' "$out/o" ||
  fail "predict --place --format json"
# bad placements: one line each
expect 2 "$fsreplay" predict "$t" -p "$b" -p "$s" --place /abs=base
lines "$out/e" 1
has "$out/e" "relative to the recorded root"
expect 0 "$fsreplay" predict "$t" -p "$b" -p "$s" --place never/here=base
has "$out/e" "the trace never touched never/here"
expect 4 "$fsreplay" predict "$t" -p "$b" -p "$s" --place src=base --place src/x=base
has "$out/e" "overlaps --place src=base"
expect 4 "$fsreplay" predict "$t" -p "$b" -p "$s" --place src=nosuch --place out=base
has "$out/e" "no readable --profile is named 'nosuch'"

# advise: text, markdown, json, html
expect 0 "$fsreplay" advise "$t" -p "$b" -p "$s"
has "$out/o" "The tree on slow-stat"
has "$out/o" "verify #1: fsreplay replay"
has "$out/o" "Best: the tree on slow-stat with"
expect 0 "$fsreplay" advise "$t" -p "$b" -p "$s" --format markdown
has "$out/o" "| # | on base |"
expect 0 "$fsreplay" advise "$t" -p "$b" -p "$s" --format json -o "$out/a.json"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["schema"]=="fsreplay.advise/1" and j["configs"][0]["placements"], j' "$out/a.json" ||
  fail "advise --format json"
expect 0 "$fsreplay" advise "$t" -p "$b" -p "$s" --format html
has "$out/o" "<svg"
# bad input: one line each, advise goes on (exit 4) where it can
expect 4 "$fsreplay" advise "$t" -p "$b" -p "$t" -p "$s"
lines "$out/e" 1
has "$out/e" "is a trace, not a profile"
has "$out/o" "The tree on slow-stat"
expect 4 "$fsreplay" advise "$t" -p "$b" -p "$s" --keep .=slow-stat
lines "$out/e" 1
has "$out/e" "--keep leaves no directory to move on slow-stat"
expect 1 "$fsreplay" advise "$t" -p "$b"
lines "$out/e" 1
has "$out/e" "give two readable profiles"
expect 2 "$fsreplay" advise "$t" -p "$b" -p "$s" --keep /abs=base
lines "$out/e" 1
expect 0 "$fsreplay" advise --help
has "$out/o" "--keep"
has "$out/o" "--max-moves"

[[ $fails == 0 ]] && echo "predict --place / advise CLI: all checks passed"
exit $((fails > 0))

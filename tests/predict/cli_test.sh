#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The probe and predict verbs end to end: a probe of a scratch directory
# (cleaned up, also on Ctrl-C), `inspect` of a profile, predict's three
# formats, one clear line (and the documented exit code) per bad input, and
# every example profile in profiles/ read and used.
# Usage: cli_test.sh FSREPLAY PREDICT_FIXTURE OUTDIR
set -uo pipefail
fsreplay=$1 fixture=$2 out=$3
rm -rf "$out" && mkdir -p "$out"
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
# expect CODE CMD...: runs CMD, stdout to $out/o, stderr to $out/e, checks its exit status
expect() {
  local want=$1; shift
  "$@" >"$out/o" 2>"$out/e"; local got=$?
  [[ $got == "$want" ]] || fail "exit $got (want $want): $* -- $(head -c 400 "$out/e")"
}
has() { grep -q -- "$2" "$1" || fail "$1 lacks '$2': $(head -c 400 "$1")"; }
lines() { local n; n=$(wc -l <"$1"); [[ $n == "$2" ]] || fail "$1 has $n lines (want $2): $(cat "$1")"; }

"$fixture" "$out" || { echo "fixture failed" >&2; exit 1; }
t=$out/build.trace

# inspect shows a profile
expect 0 "$fsreplay" inspect "$out/base.profile"
has "$out/o" "fsreplay profile base"
has "$out/o" "stat-missing"
expect 0 "$fsreplay" inspect --json "$out/base.profile"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["schema"]=="fsreplay.profile/1", j' "$out/o" || fail "inspect --json"

# predict: text, json, html; a column per profile, labelled predicted
expect 0 "$fsreplay" predict "$t" --profile "$out/base.profile" --profile "$out/slow-stat.profile"
has "$out/o" "PREDICTED"
has "$out/o" "predicted (slow-stat)"
has "$out/o" "fuse.slowfs"
expect 0 "$fsreplay" predict "$t" -p "$out/base.profile" -p "$out/slow-stat.profile" --format json --no-recorded
python3 - "$out/o" <<'PY' || fail "predict --format json"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["schema"] == "fsreplay.predict/1" and j["predicted"] is True
assert [c["name"] for c in j["columns"]] == ["base", "slow-stat"], j["columns"]
split = {p["part"]: p["share"] for p in j["reports"][0]["critical_path"]["split"]}
assert split["stat"] > 0.9, split
PY
expect 0 "$fsreplay" predict "$t" -p "$out/base.profile" --format html -o "$out/p.html"
has "$out/p.html" "PREDICTED"
has "$out/p.html" "<svg"

# Bad input: one clear line each, predict goes on where it can
head -c 300 "$out/base.profile" >"$out/cut.profile"
expect 1 "$fsreplay" predict "$t" -p "$out/cut.profile"
has "$out/e" "truncated profile"
lines "$out/e" 1
expect 4 "$fsreplay" predict "$t" -p "$out/cut.profile" -p "$out/base.profile"
has "$out/e" "truncated profile"
has "$out/o" "predicted (base)"
python3 - "$out/base.profile" "$out/v9.profile" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read()); b[8:10] = (9).to_bytes(2, "little"); open(sys.argv[2], "wb").write(b)
PY
expect 1 "$fsreplay" predict "$t" -p "$out/v9.profile"
has "$out/e" "format version 9 is not supported"
lines "$out/e" 1
expect 0 "$fsreplay" predict "$t" -p "$out/noxattr.profile"
has "$out/e" "never measured 1 ops of class xattr: assumed their recorded duration"
has "$out/o" "assumed: profile noxattr never measured 1 ops of class rename"
expect 1 "$fsreplay" predict "$out/base.profile" -p "$out/base.profile"
has "$out/e" "is a profile, not a trace"
expect 2 "$fsreplay" predict "$t"

# probe: a short one of a scratch directory, then predict with it
probe_dir=$(mktemp -d /var/tmp/fsr-probe-cli.XXXXXX)
trap 'rm -rf "$probe_dir"' EXIT
expect 0 "$fsreplay" probe "$probe_dir" --duration 2 --samples 2 -o "$out/local.profile"
has "$out/o" "page-fault"
[[ -z $(ls -A "$probe_dir") ]] || fail "probe left $(ls -A "$probe_dir") in $probe_dir"
expect 0 "$fsreplay" inspect "$out/local.profile"
expect 0 "$fsreplay" predict "$t" -p "$out/local.profile"
expect 1 "$fsreplay" probe /nonexistent/fsr-probe-cli
lines "$out/e" 1
# Ctrl-C: exit 130, nothing left behind, no profile written
"$fsreplay" probe "$probe_dir" --duration 60 -o "$out/never.profile" >"$out/o" 2>"$out/e" &
pid=$!
sleep 3
kill -INT "$pid"
wait "$pid"; code=$?
[[ $code == 130 ]] || fail "probe after SIGINT exited $code (want 130): $(cat "$out/e")"
has "$out/e" "interrupted"
[[ -z $(ls -A "$probe_dir") ]] || fail "interrupted probe left $(ls -A "$probe_dir")"
[[ ! -e $out/never.profile ]] || fail "interrupted probe wrote a profile"

# The example profiles shipped in profiles/ stay readable and usable.
for p in "$(dirname "$0")"/../../profiles/*.profile; do
  expect 0 "$fsreplay" inspect "$p"
  has "$out/o" "fsreplay profile $(basename "$p" .profile)"
  expect 0 "$fsreplay" predict "$t" -p "$p" --format json
done

expect 0 "$fsreplay" predict --help
has "$out/o" "--profile"
expect 0 "$fsreplay" probe --help
has "$out/o" "--duration"

[[ $fails == 0 ]] && echo "predict/probe CLI: all checks passed"
exit $((fails > 0))

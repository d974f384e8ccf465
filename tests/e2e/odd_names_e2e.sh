#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# File names are bytes: a workload that makes names which are not UTF-8 and
# hold a newline, a quote and an escape sequence is recorded, replayed and
# reported in every format, and each verb exits 0 (JSON cannot hold such a
# byte: nlohmann::json threw on it, which aborted dump --json, inspect --json,
# report --format json/perfetto and replay on a target so named). The text
# dump stays one line per event, the names escaped.
# Usage: odd_names_e2e.sh FSREPLAY PROFILE   (root: record loads BPF)
set -uo pipefail
fsreplay=$(realpath "$1") profile=$(realpath "$2")
[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root (record loads BPF)"; exit 77; }
work=$(mktemp -d /var/tmp/fsr-odd-names.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }
odd=$'d\xff\xfe'
file=$'f\x01"q\nline\x1b[2J'
mkdir -p "$work/root" "$work/target"$'\xe9'
cd "$work" || exit 1
"$fsreplay" record -o t.trace --root "$work/root" -- bash -c \
  'cd "$1" && mkdir "$2" && echo x > "$2/$3" && cat "$2/$3" > /dev/null && ls -l "$2" > /dev/null && rm "$2/$3"' \
  _ "$work/root" "$odd" "$file" > /dev/null 2> rec.err
rc=$?
check "record exit $rc: $(tail -1 rec.err)" '[ $rc -eq 0 ]'
"$fsreplay" dump t.trace > dump.txt; rc=$?
check "dump exit $rc" '[ $rc -eq 0 ]'
events=$("$fsreplay" inspect --json t.trace | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
check "inspect --json is not JSON or has no event count ($events)" '[[ $events =~ ^[0-9]+$ ]]'
check "dump has $(wc -l < dump.txt) lines for $events events" '[ "$(wc -l < dump.txt)" -eq "$events" ]'
check "dump does not show the name escaped" 'grep -aqF '\''d\xff\xfe/f\x01\"q\nline\x1b[2J'\'' dump.txt'
check "dump printed a raw escape byte" '! grep -aq $'\''\x1b'\'' dump.txt'
"$fsreplay" dump --json t.trace > dump.json; rc=$?
check "dump --json exit $rc" '[ $rc -eq 0 ]'
check "dump --json lines are not JSON" 'python3 -c "import json,sys; [json.loads(l) for l in open(\"dump.json\", encoding=\"utf-8\")]"'
"$fsreplay" replay t.trace --target "$work/target"$'\xe9' -o t.result > replay.out 2>&1; rc=$?
check "replay on a target whose name is not UTF-8: exit $rc: $(tail -1 replay.out)" '[ $rc -eq 0 ]'
for f in text json html perfetto; do
  "$fsreplay" report t.result --format $f -o "report.$f" 2> report.err; rc=$?
  check "report --format $f exit $rc: $(head -1 report.err)" '[ $rc -eq 0 ] && [ -s report.$f ]'
done
for j in report.json report.perfetto; do
  check "$j is not JSON" 'python3 -m json.tool "$j" > /dev/null'
done
check "the text report printed a raw escape byte" '! grep -aq $'\''\x1b'\'' report.text'
"$fsreplay" compare t.result t.result --format json -o compare.json; rc=$?
check "compare --format json exit $rc" '[ $rc -eq 0 ] && python3 -m json.tool compare.json > /dev/null'
"$fsreplay" predict t.trace -p "$profile" --format json -o predict.json 2> /dev/null; rc=$?
check "predict --format json exit $rc" '[ $rc -eq 0 ] && python3 -m json.tool predict.json > /dev/null'
[[ $fail -eq 0 ]] && echo "ok: names that are not UTF-8, with control bytes, through record, dump, replay, report, compare, predict"
exit $fail

#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end through the fsreplay command on result files written with
# TraceWriter: report and compare in every format, golden text, exit codes.
set -u
# shellcheck disable=SC2034 # golden is read in check's eval'd conditions
fsreplay=$1 fixture=$2 out=$3 golden=$4
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }
rm -rf "$out" && mkdir -p "$out"
"$fixture" "$out" || { echo "FAIL: fixture"; exit 1; }
cd "$out" || exit 1

"$fsreplay" report slow.result --baseline base.result --top 5 >report.txt; rc=$?
check "report exit $rc" '[ $rc -eq 0 ]'
check "report text differs from golden" 'diff -u "$golden/report_baseline.txt" report.txt'
"$fsreplay" report slow.result --top 5 -o single.txt; rc=$?
check "report -o exit $rc" '[ $rc -eq 0 ]'
check "single report differs from golden" 'diff -u "$golden/report_single.txt" single.txt'
"$fsreplay" compare base.result slow.result base.result >compare.txt
check "compare text differs from golden" 'diff -u "$golden/compare.txt" compare.txt'

for f in json perfetto html; do
  "$fsreplay" report slow.result -b base.result --format $f -o report.$f; rc=$?
  check "report --format $f exit $rc" '[ $rc -eq 0 ] && [ -s report.$f ]'
done
"$fsreplay" compare base.result slow.result --format json -o compare.json
"$fsreplay" compare base.result slow.result --format html -o compare.html
for j in report.json report.perfetto compare.json; do
  check "$j is not JSON" 'python3 -m json.tool $j >/dev/null'
done
check "report.json lacks share_of_slowdown" 'grep -q "\"share_of_slowdown\"" report.json'
check "perfetto lacks traceEvents" 'grep -q "\"traceEvents\"" report.perfetto'
check "html lacks charts" 'grep -q "id=\"stacked-wall\"" report.html && grep -q "id=\"cdf-stat\"" compare.html'

# Damaged input: partial output and exit 4.
size=$(stat -c %s slow.result)
head -c $((size * 2 / 3)) slow.result >cut.result
"$fsreplay" report cut.result >cut.txt 2>cut.err; rc=$?
check "truncated result: exit $rc, want 4" '[ $rc -eq 4 ]'
check "truncated result: no partial report" 'grep -q "Time by syscall class" cut.txt'
check "truncated result: no warning" 'grep -q "warning" cut.err'
# Errors: missing file 1, bad usage 2, perfetto compare refused.
"$fsreplay" report missing.result 2>missing.err; rc=$?
check "missing file: exit $rc, want 1" '[ $rc -eq 1 ] && grep -q missing.result missing.err'
"$fsreplay" report slow.result --format pdf 2>badfmt.err; rc=$?
check "bad format: exit $rc, want 2" '[ $rc -eq 2 ]'
check "a usage error does not name the verb's help: $(cat badfmt.err)" \
  'grep -q "^fsreplay report: .*(see '"'"'fsreplay report --help'"'"')$" badfmt.err'
"$fsreplay" compare base.result --target /tmp 2>/dev/null; rc=$?
check "compare --target with a result file list: exit $rc" '[ $rc -ne 0 ]'
# Results of different traces are refused side by side, unless allowed, and
# then labelled; results without a trace id are warned about.
"$fsreplay" compare one.result one-slow.result >same.txt 2>same.err; rc=$?
check "compare of one trace's results: exit $rc, $(cat same.err)" \
  '[ $rc -eq 0 ] && ! grep -q warning same.err && ! grep -q DIFFERENT same.txt'
"$fsreplay" compare one.result two.result >diff.txt 2>diff.err; rc=$?
check "compare of two traces' results: exit $rc, want 1, and no table" '[ $rc -eq 1 ] && [ ! -s diff.txt ]'
check "the refusal is one line naming both files and traces: $(cat diff.err)" \
  '[ $(wc -l <diff.err) -eq 1 ] && grep -q "one.result (trace /t/one.trace, id 1111222233334444)" diff.err &&
   grep -q "two.result (trace /t/two.trace, id 5555666677778888)" diff.err'
"$fsreplay" compare one.result two.result --allow-different-traces >allowed.txt; rc=$?
check "compare --allow-different-traces: exit $rc, labelled" \
  '[ $rc -eq 0 ] && grep -q "DIFFERENT TRACE" allowed.txt && grep -q "diff. trace" allowed.txt'
"$fsreplay" report two.result -b one.result >rdiff.txt 2>rdiff.err; rc=$?
check "report -b of another trace: exit $rc, want 1: $(cat rdiff.err)" \
  '[ $rc -eq 1 ] && [ ! -s rdiff.txt ] && grep -q "two.result" rdiff.err && grep -q "one.result" rdiff.err'
"$fsreplay" report two.result -b one.result --allow-different-traces >rallowed.txt; rc=$?
check "report --allow-different-traces: exit $rc, labelled" '[ $rc -eq 0 ] && grep -q "DIFFERENT TRACE" rallowed.txt'
"$fsreplay" compare base.result one.result >old.txt 2>old.err; rc=$?
check "a result without a trace id: exit $rc, want 0 and a warning: $(cat old.err)" \
  '[ $rc -eq 0 ] && grep -q "warning: base.result .*does not name its trace" old.err'
"$fsreplay" inspect one.result >inspect.txt; rc=$?
check "inspect shows the replayed trace's id" 'grep -q "trace id 1111222233334444" inspect.txt'
[ $fail -eq 0 ] && echo "OK"
exit $fail

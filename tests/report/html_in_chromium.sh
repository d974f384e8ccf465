#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Loads the report page in headless Chromium: takes a screenshot (must be a
# non-empty PNG), dumps the DOM (the charts' SVG elements must be there) and
# checks the console log for errors. Exit 77 (skipped) without chromium.
set -u
fixture=$1
out=$2
chromium=${CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] || { echo "SKIP: $chromium not found"; exit 77; }
mkdir -p "$out"
html="$out/report.html"
"$fixture" "$out" || { echo "FAIL: fixture could not write into $out"; exit 1; }
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# shellcheck disable=SC2054 # --window-size=W,H is one argument
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
       --disable-background-networking --disable-component-update --disable-sync
       --user-data-dir="$profile" --window-size=1200,1600)

rm -f "$out/report.png"
timeout -k 5 90 "$chromium" "${flags[@]}" --enable-logging=stderr --v=0 \
  --screenshot="$out/report.png" "file://$html" >"$out/screenshot.log" 2>&1
sig=$(head -c 8 "$out/report.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')
if [ "$sig" != "89504e470d0a1a0a" ]; then
  echo "FAIL: $out/report.png is not a PNG (signature '$sig'); chromium log:"; tail -20 "$out/screenshot.log"; exit 1
fi
size=$(stat -c %s "$out/report.png")
[ "$size" -gt 20000 ] || { echo "FAIL: screenshot only $size bytes: blank page?"; exit 1; }

timeout -k 5 90 "$chromium" "${flags[@]}" --enable-logging=stderr --v=0 \
  --dump-dom "file://$html" >"$out/dom.html" 2>"$out/dom.log"
fail=0
for id in stacked-wall stacked-latency cdf-stat cdf-open top-processes top-dirs wall-split; do
  grep -q "id=\"$id\"" "$out/dom.html" || { echo "FAIL: element #$id missing from the DOM"; fail=1; }
done
rects=$(grep -o '<rect ' "$out/dom.html" | wc -l)
lines=$(grep -o '<polyline ' "$out/dom.html" | wc -l)
[ "$rects" -ge 10 ] || { echo "FAIL: only $rects bar segments in the DOM"; fail=1; }
[ "$lines" -ge 4 ] || { echo "FAIL: only $lines CDF lines in the DOM"; fail=1; }
if grep -E "Uncaught|:CONSOLE|Failed to load resource" "$out/screenshot.log" "$out/dom.log"; then
  echo "FAIL: console errors (above)"; fail=1
fi
[ $fail -eq 0 ] && echo "OK: screenshot $out/report.png ($size bytes), $rects bar segments, $lines CDF lines"
exit $fail

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# fsreplay-static: `file` says statically linked; it runs in an empty chroot
# holding nothing but itself (no libc, no loader) and reads a trace there; it
# offers every verb the dynamic build does, `record` with the same options;
# its --version says static. (That it records: tests/packaging/check_dist.sh.)
#   usage: check_static.sh FSREPLAY_STATIC FSREPLAY TRACE_FIXTURE
set -uo pipefail
static=$1 dyn=$2 fixture=$3
fail=0
check() { if eval "$2"; then echo "ok    $1"; else echo "FAIL  $1"; fail=1; fi; }
f=$(file -b "$static"); echo "info  file: $f"
check "file says statically linked" '[[ $f == *"statically linked"* ]]'
check "ldd finds no dynamic section" '! ldd "$static" >/dev/null 2>&1'
verbs() { "$1" --help | awk '/^Subcommands:/ {s=1; next} s && /^[^ ]/ {s=0} s && NF {print $1}'; }
check "the same verbs as the dynamic build ($(verbs "$dyn" | tr '\n' ' '))" '[[ "$(verbs "$static")" == "$(verbs "$dyn")" ]]'
opts() { "$1" record --help | sed 1,2d; }   # (line 2 is the usage line, naming the binary)
check "record has the dynamic build's options" '[[ -n "$(opts "$static")" && "$(opts "$static")" == "$(opts "$dyn")" ]]'
# shellcheck disable=SC2034 # v is read in check's eval'd condition below
v=$("$static" --version); echo "info  --version: $v"
check "--version says static, the dynamic build's says dynamic" \
  '[[ $v == *", static, "* && $("$dyn" --version) == *", dynamic, "* ]]'
root=$(mktemp -d /tmp/fsr-pkg-empty.XXXXXX)
cp "$static" "$root/fsreplay"; cp "$fixture" "$root/t.trace"
out=$(chroot "$root" /fsreplay inspect t.trace 2>&1)
# shellcheck disable=SC2034 # rc is read in check's eval'd condition below
rc=$?
# shellcheck disable=SC2034 # want is read in check's eval'd condition below
want=$(cd "$root" && "$dyn" inspect t.trace 2>&1)
echo "$out" | head -3 | sed 's/^/info  in an empty chroot: /'
check "runs in an empty chroot (nothing but the binary) and inspects a trace" \
  '[[ $rc -eq 0 && -n $out && $out == "$want" ]]'
rm -rf "$root"
exit $fail

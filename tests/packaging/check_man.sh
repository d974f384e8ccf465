#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The man pages render: for fsreplay and every verb `fsreplay --help` lists
# (and slowfs, wsl1-harness), `man -l` renders the page with no groff warning,
# it has NAME, SYNOPSIS and DESCRIPTION, and every long option the program's
# --help lists appears in the rendered text.
#   usage: check_man.sh MANDIR FSREPLAY [SLOWFS] [WSL1_HARNESS]
set -euo pipefail
dir=$1 fsreplay=$2 slowfs=${3-} harness=${4-}
fail=0
render() {  # page, program and verb whose options it must show
  local page=$dir/$1.1.gz out err opts missing=()
  if [[ ! -f $page ]]; then echo "FAIL  $1: no page $page"; fail=1; return; fi
  err=$(MANWIDTH=100 man --warnings=w -l "$page" 2>&1 >/dev/null) || true
  out=$(MANWIDTH=100 man -l "$page" 2>/dev/null)
  for s in NAME SYNOPSIS DESCRIPTION; do
    grep -q "^$s" <<<"$out" || missing+=("section $s")
  done
  opts=$("$2" ${3:+"$3"} --help | grep -oE '(^|[ ,])--[a-z][a-z0-9-]*' | sed 's/^[ ,]//' | sort -u)
  for o in $opts; do grep -qF -- "$o" <<<"$out" || missing+=("$o"); done
  if [[ -n $err ]]; then echo "FAIL  $1: man -l warns: $err"; fail=1
  elif [[ ${#missing[@]} -gt 0 ]]; then echo "FAIL  $1: rendered page lacks ${missing[*]}"; fail=1
  else echo "ok    $1 renders ($(wc -l <<<"$out") lines, $(wc -w <<<"$opts") options)"; fi
}
render fsreplay "$fsreplay"
for v in $("$fsreplay" --help | awk '/^Subcommands:/ {s=1; next} s && /^[^ ]/ {s=0} s && NF {print $1}'); do
  render "fsreplay-$v" "$fsreplay" "$v"
done
[[ -n $slowfs ]] && render slowfs "$slowfs"
[[ -n $harness ]] && render wsl1-harness "$harness"
exit $fail

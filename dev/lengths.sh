#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Lists every C/C++ function over MAX_FUNCTION lines (100) and every source
# file over MAX_FILE lines (400), from universal-ctags' function extents.
# Exit 1 when it lists any, so CI keeps the house's functions short.
# Usage: dev/lengths.sh [ROOT]     (MAX_FUNCTION=N MAX_FILE=N to change the bounds)
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
max_function=${MAX_FUNCTION:-100}
max_file=${MAX_FILE:-400}
cd "$root"
if ! ctags --version 2>/dev/null | grep -q 'Universal Ctags'; then
  echo "lengths: needs universal-ctags (apt-get install universal-ctags)" >&2
  exit 2
fi
mapfile -t files < <(find . -path ./.git -prune -o -path './build*' -prune -o \
  \( -name '*.c' -o -name '*.cpp' -o -name '*.h' \) -type f -print | sed 's#^\./##' | sort)
if ((${#files[@]} == 0)); then
  echo "lengths: no C/C++ sources under $root" >&2
  exit 2
fi
long_functions=$(ctags --fields=+ne --kinds-c++=f --kinds-c=f --languages=C,C++ -x \
  --_xformat='%{end} %{line} %F %N' "${files[@]}" 2>/dev/null |
  awk -v max="$max_function" '$1 ~ /^[0-9]+$/ { n = $1 - $2 + 1; if (n > max) printf "  %4d lines  %s:%d  %s\n", n, $3, $2, $4 }' |
  sort -rn)
long_files=$(wc -l "${files[@]}" | awk -v max="$max_file" '$2 != "total" && $1 > max { printf "  %4d lines  %s\n", $1, $2 }' |
  sort -rn)
status=0
if [[ -n $long_functions ]]; then
  echo "functions over $max_function lines:"
  echo "$long_functions"
  status=1
fi
if [[ -n $long_files ]]; then
  echo "files over $max_file lines:"
  echo "$long_files"
  status=1
fi
if ((status == 0)); then
  echo "lengths: ${#files[@]} files, no function over $max_function lines, no file over $max_file"
fi
exit "$status"

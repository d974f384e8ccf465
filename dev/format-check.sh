#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails, naming each file, when clang-format (.clang-format at the root)
# would change a tracked C/C++ source. `dev/format-check.sh --fix` rewrites
# them instead (the `format` build target runs that).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if ! command -v clang-format >/dev/null; then
  echo "format-check: needs clang-format (apt-get install clang-format)" >&2
  exit 2
fi
# The tree is formatted by Debian 12's clang-format 14; other majors format
# some constructs differently, so their verdict is no verdict (exit 77: ctest
# counts it a skip, and says why).
want=14
have=$(clang-format --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if [[ $have != "$want" && ${1:-} != --fix ]]; then
  echo "format-check: skip: clang-format $have here; the tree is formatted by clang-format $want (Debian 12)"
  exit 77
fi
if [[ -d .git ]]; then
  mapfile -t files < <(git ls-files '*.c' '*.cpp' '*.h' | grep -v '^tests/layout/fixture_bad/')
else
  mapfile -t files < <(find . -path './build*' -prune -o -path ./tests/layout/fixture_bad -prune -o \
    \( -name '*.c' -o -name '*.cpp' -o -name '*.h' \) -type f -print | sed 's#^\./##' | sort)
fi
if [[ ${1:-} == --fix ]]; then
  clang-format -i "${files[@]}"
  echo "format: ${#files[@]} files formatted"
  exit 0
fi
# One clang-format process for the whole tree; it names each file it would
# change in a "file:line:col: error: code should be clang-formatted" line.
rc=0
out=$(clang-format --dry-run -Werror "${files[@]}" 2>&1) || rc=$?
mapfile -t bad < <(sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' <<<"$out" | sort -u)
if ((rc != 0 && ${#bad[@]} == 0)); then
  echo "format-check: clang-format failed (exit $rc):" >&2
  echo "$out" | head -20 >&2
  exit 2
fi
if ((${#bad[@]})); then
  echo "format-check: ${#bad[@]} of ${#files[@]} files are not formatted (run dev/format-check.sh --fix):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "format-check: ${#files[@]} files formatted as .clang-format says"

#!/usr/bin/env bash
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
bad=()
for f in "${files[@]}"; do
  if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if ((${#bad[@]})); then
  echo "format-check: ${#bad[@]} of ${#files[@]} files are not formatted (run dev/format-check.sh --fix):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "format-check: ${#files[@]} files formatted as .clang-format says"

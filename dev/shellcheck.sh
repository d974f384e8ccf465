#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs shellcheck (warnings and errors) over every tracked shell script: *.sh
# and the extension-less scripts whose first line names bash or sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if ! command -v shellcheck >/dev/null; then
  echo "shellcheck.sh: needs shellcheck (apt-get install shellcheck)" >&2
  exit 2
fi
scripts=()
while IFS= read -r f; do
  [[ -f $f ]] || continue
  case $f in
    *.sh) scripts+=("$f") ;;
    *.*) ;;
    *) head -n1 "$f" | grep -qE '^#!.*\b(bash|sh)\b' && scripts+=("$f") ;;
  esac
done < <(if [[ -d .git ]]; then git ls-files; else find . -path './build*' -prune -o -type f -print | sed 's#^\./##'; fi)
if ((${#scripts[@]} == 0)); then
  echo "shellcheck.sh: no scripts found under $root" >&2
  exit 2
fi
if shellcheck -S warning -x "${scripts[@]}"; then
  echo "shellcheck: ${#scripts[@]} scripts, no warnings"
else
  echo "shellcheck: warnings above, in ${#scripts[@]} scripts checked" >&2
  exit 1
fi

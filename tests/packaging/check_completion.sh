#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bash completion (packaging/completion/fsreplay.bash), driven the way bash
# drives it (COMP_WORDS, COMP_CWORD): the verbs offered are exactly those
# `fsreplay --help` lists; each verb's long options are offered; a CLI11
# choice list completes (replay --timing); --target completes directories;
# slowfs --profile completes the profile names; wsl1-harness completes a
# command after its options.
#   usage: check_completion.sh COMPLETION FSREPLAY SLOWFS WSL1_HARNESS
set -uo pipefail
comp=$1 fsreplay=$2 slowfs=$3 harness=$4
# shellcheck disable=SC1090
source "$comp"
fail=0
complete_words() {  # words... (the last is the one being completed)
  COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=()
  local f
  f=$(complete -p "$(basename "$1")" | sed -E 's/.*-F ([^ ]+) .*/\1/')
  "$f"
  printf '%s\n' "${COMPREPLY[@]}" | sort -u
}
expect() {  # what, expected (newline list), actual
  if [[ $2 == "$3" ]]; then echo "ok    $1"; else echo "FAIL  $1: expected [$2] got [$3]" | tr '\n' ' '; echo; fail=1; fi
}
contains() {  # what, word, actual
  if grep -qx -- "$2" <<<"$3"; then echo "ok    $1"; else echo "FAIL  $1: '$2' not in [$(tr '\n' ' ' <<<"$3")]"; fail=1; fi
}
verbs=$("$fsreplay" --help | awk '/^Subcommands:/ {s=1; next} s && /^[^ ]/ {s=0} s && NF {print $1}' | sort -u)
[[ -n $verbs ]] || { echo "FAIL  fsreplay --help lists no verbs"; exit 1; }
expect "fsreplay <TAB> offers every verb of fsreplay --help" "$verbs" "$(complete_words "$fsreplay" "")"
for v in $verbs; do
  # The options the help lists (its option lines), not every --word its
  # prose mentions (the exit-code footer names record's --allow-drops).
  want=$("$fsreplay" "$v" --help | grep -E '^ +-' | grep -oE '(^|[ ,])--[a-z][a-z0-9-]*' | sed 's/^[ ,]//' | sort -u)
  got=$(complete_words "$fsreplay" "$v" "--")
  missing=$(comm -23 <(echo "$want") <(echo "$got"))
  expect "fsreplay $v --<TAB> offers its $(wc -w <<<"$want") long options" "" "$missing"
done
expect "fsreplay replay --timing <TAB>" "$(printf 'afap\nexact\nthink')" \
  "$(complete_words "$fsreplay" replay t.trace --timing "")"
d=$(mktemp -d); mkdir "$d/adir"; touch "$d/afile"
expect "fsreplay replay --target <TAB> offers directories only" "$d/adir" \
  "$(complete_words "$fsreplay" replay t.trace --target "$d/a")"
contains "fsreplay inspect <TAB> offers files" "$d/afile" "$(complete_words "$fsreplay" inspect "$d/a")"
rm -rf "$d"
contains "slowfs --profile <TAB> offers wsl2-9p" wsl2-9p "$(complete_words "$slowfs" b m --profile "")"
contains "slowfs --<TAB> offers --attr-timeout" --attr-timeout "$(complete_words "$slowfs" --)"
contains "wsl1-harness --<TAB> offers --list" --list "$(complete_words "$harness" --)"
contains "wsl1-harness -- <TAB> offers commands" bash "$(complete_words "$harness" -- bas)"
exit $fail

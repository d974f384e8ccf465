#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Writes the man pages, gzipped, into OUTDIR: fsreplay(1) and fsreplay-VERB(1)
# for every verb that `fsreplay --help` lists (so new verbs get a page without
# editing this), and slowfs(1), wsl1-harness(1) when given. Each page is
# help2man's rendering of the program's own --help, plus the sections in
# packaging/man/*.h2m.
#   usage: gen-man.sh OUTDIR VERSION FSREPLAY [SLOWFS] [WSL1_HARNESS]
set -euo pipefail
out=$1 version=$2 fsreplay=$3 slowfs=${4-} harness=${5-}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out" "$tmp/bin"
rm -f "$out"/*.1.gz

verbs=$("$fsreplay" --help | awk '/^Subcommands:/ {s=1; next} s && /^[^ ]/ {s=0} s && NF {print $1}')
[[ -n $verbs ]] || { echo "gen-man: '$fsreplay --help' lists no verbs" >&2; exit 1; }

# A wrapper that runs PROGRAM [VERB] as argv[0] NAME, so that the usage line
# help2man quotes says "fsreplay", not the build path.
wrap() {  # name program [verb]
  local argv0=${1%%-*}
  [[ $1 == wsl1-harness ]] && argv0=wsl1-harness
  # (help2man finds the synopsis only after "Usage:"; slowfs and wsl1-harness say "usage:")
  printf '#!/bin/bash\nset -o pipefail\n(exec -a %q %q %s "$@") | sed "1s/^usage: /Usage: /"\n' \
    "$argv0" "$2" "${3-}" >"$tmp/bin/$1"
  chmod +x "$tmp/bin/$1"
  echo "$tmp/bin/$1"
}

# One page: NAME, PROGRAM (an executable answering --help), SUMMARY, extra h2m files.
page() {
  local name=$1 prog=$2 summary=$3; shift 3
  local inc=() f
  for f in "$@"; do [[ -f $f ]] && inc+=(--include "$f"); done
  help2man --no-info --section 1 --source "fsreplay $version" --manual "fsreplay manual" \
    --version-string "$version" --name "$summary" "${inc[@]}" --output "$tmp/$name.1" "$prog"
  # help2man names the page after the program's file name: make it NAME.
  sed -i "1,/^\.SH NAME/ s/^\.TH [^ ]*/.TH \"$(tr a-z A-Z <<<"$name")\"/" "$tmp/$name.1"
  gzip -9n -c "$tmp/$name.1" >"$out/$name.1.gz"
}

# See-also list of every verb's page, shared by all fsreplay pages.
{
  echo "[SEE ALSO]"
  sep=""
  for v in $verbs; do printf '%s\\fBfsreplay-%s\\fR(1)' "$sep" "$v"; sep=", "; done
  [[ -n $slowfs ]] && printf ', \\fBslowfs\\fR(1)'
  [[ -n $harness ]] && printf ', \\fBwsl1-harness\\fR(1)'
  echo
} >"$tmp/see-also.h2m"

page fsreplay "$(wrap fsreplay "$fsreplay")" "record file-system syscalls, replay them on another mount, attribute the slowdown" \
  "$here/man/fsreplay.h2m" "$here/man/verb.h2m" "$tmp/see-also.h2m"
for v in $verbs; do
  summary=$("$fsreplay" --help | awk -v v="$v" '/^Subcommands:/ {s=1; next} s && $1 == v {$1=""; sub(/^ +/, ""); print; exit}')
  page "fsreplay-$v" "$(wrap "fsreplay-$v" "$fsreplay" "$v")" "${summary:-fsreplay $v}" "$here/man/fsreplay-$v.h2m" "$here/man/verb.h2m" "$tmp/see-also.h2m"
done
[[ -n $slowfs ]] && page slowfs "$(wrap slowfs "$slowfs")" "FUSE pass-through adding per-class latency (emulates WSL's slow mounts)" "$here/man/slowfs.h2m" "$tmp/see-also.h2m"
[[ -n $harness ]] && page wsl1-harness "$(wrap wsl1-harness "$harness")" "run a command with WSL1's answers for the syscalls WSL1 lacks" "$here/man/wsl1-harness.h2m" "$tmp/see-also.h2m"
ls "$out" >"$out/pages.txt"

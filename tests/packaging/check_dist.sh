#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The release tarball (`--target dist`, built first): it lists the expected files; unpacked
# into a temporary prefix with the README's one line, `file` says each binary
# is statically linked, `bin/fsreplay --version` names a commit of this tree
# and the static build, `bin/slowfs --help` runs and names fusermount3. Then,
# as root with BPF, the unpacked fsreplay records a small workload (git init,
# add and commit of a few files; cc of two C files) with 0 drops, replays it
# on a fresh target with 0 divergences, and `report`s it. The recording part
# exits 77 with the reason where the recorder cannot run (not root, no BPF).
#   usage: check_dist.sh BUILD_DIR TARBALL VERSION SOURCE_DIR
# shellcheck disable=SC2034 # variables read in check's eval'd conditions
set -uo pipefail
build=$1 tarball=$2 version=$3 src=$4
fail=0
check() { if eval "$2"; then echo "ok    $1"; else echo "FAIL  $1"; fail=1; fi; }
log=$(cmake --build "$build" --target dist 2>&1) || { echo "$log"; echo "FAIL  cmake --build $build --target dist"; exit 1; }
[[ -f $tarball ]] || { echo "FAIL  the dist target made no $tarball"; exit 1; }
echo "info  $tarball ($(du -h "$tarball" | cut -f1))"
top=fsreplay-$version
list=$(tar -tzf "$tarball")
for f in bin/fsreplay bin/slowfs share/man/man1/fsreplay.1.gz share/man/man1/fsreplay-record.1.gz \
  share/man/man1/fsreplay-replay.1.gz share/man/man1/slowfs.1.gz share/bash-completion/completions/fsreplay \
  share/bash-completion/completions/slowfs share/doc/fsreplay/README.md share/doc/fsreplay/LICENSE \
  share/doc/fsreplay/copyright share/doc/fsreplay/docs/commands.md share/doc/fsreplay/docs/install.md; do
  check "the tarball holds $top/$f" 'grep -qxF "$top/$f" <<<"$list"'
done
check "everything in it is under $top/" '! grep -qv "^$top/" <<<"$list"'
check "no wsl1-harness page (the tarball has no wsl1-harness)" '! grep -q wsl1-harness <<<"$list"'

work=$(mktemp -d "${WORKLOAD_TMPDIR:-/var/tmp}/fsr-pkg-dist.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
mkdir -p "$prefix"
check "unpacks with the README's line (tar -C PREFIX --strip-components=1 -xzf)" \
  'tar -C "$prefix" --strip-components=1 -xzf "$tarball"'
for b in fsreplay slowfs; do
  f=$(file -b "$prefix/bin/$b")
  echo "info  file bin/$b: $f"
  check "file says bin/$b is statically linked" '[[ $f == *"statically linked"* ]]'
done
v=$("$prefix/bin/fsreplay" --version 2>&1)
echo "info  bin/fsreplay --version: $v"
re="^fsreplay $version \\(commit ([0-9a-f]{7,})(-dirty)?, static, [^,]+, [a-z]+ [0-9.]+\\)$"
check "--version: fsreplay $version (commit HASH, static, BUILD TYPE, COMPILER)" '[[ $v =~ $re ]]'
hash=${BASH_REMATCH[1]:-}
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
  check "its commit $hash is a commit of this tree" '[[ -n $hash ]] && git -C "$src" cat-file -e "$hash^{commit}"'
fi
h=$("$prefix/bin/slowfs" --help 2>&1); rc=$?
check "bin/slowfs --help runs and says non-root needs fuse3's fusermount3" '[[ $rc -eq 0 && $h == *"apt install fuse3"* ]]'

# Recording, as root with BPF.
fsr=$prefix/bin/fsreplay
if [[ $(id -u) -ne 0 ]]; then echo "skip: recording needs root (run as root for the record/replay/report checks)"; exit $((fail ? 1 : 77)); fi
for tool in git cc; do
  command -v $tool >/dev/null || { echo "skip: the workload needs $tool (not installed)"; exit $((fail ? 1 : 77)); }
done
mkdir "$work/rec" "$work/t" "$work/s"
rc=0
(cd "$work/rec" && "$fsr" record -o "$work/w.trace" --root "$work/rec" -- sh -c '
  git init -q repo && cd repo &&
  for i in 1 2 3 4 5 6 7 8; do mkdir -p d$i && echo "line $i" > d$i/f$i.txt; done &&
  printf "int two(void);\nint main(void) { return two() - 2; }\n" > main.c &&
  printf "int two(void) { return 2; }\n" > two.c &&
  git add -A && git -c user.email=t@fsreplay -c user.name=t commit -qm first &&
  cc -O1 -c main.c two.c && cc -o prog main.o two.o && ./prog && git status --short >/dev/null' \
  >"$work/record.log" 2>&1) || rc=$?
if [[ $rc -eq 5 ]]; then echo "skip: the recorder cannot run here (exit 5): $(tail -1 "$work/record.log")"; exit $((fail ? 1 : 77)); fi
sed 's/^/info  record: /' "$work/record.log" | tail -3
check "the static fsreplay records the workload (exit 0)" '[[ $rc -eq 0 ]]'
js=$("$fsr" inspect --json "$work/w.trace" 2>/dev/null)
ev=$(python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["events"], j["drops"])' <<<"$js" 2>/dev/null)
echo "info  events, drops: $ev"
check "the recording has events and 0 drops" '[[ $ev =~ ^[1-9][0-9]*\ 0$ ]]'
"$fsr" replay "$work/w.trace" --target "$work/t" --scratch "$work/s" -o "$work/w.result" >"$work/replay.log" 2>&1
rc=$?
grep -E '^(ops|divergences) ' "$work/replay.log" | sed 's/^/info  replay: /'
check "its replay exits 0 with 0 divergences" '[[ $rc -eq 0 ]] && grep -qE "^divergences +0( |$)" "$work/replay.log"'
"$fsr" report "$work/w.result" >"$work/report.txt" 2>&1
rc=$?
head -3 "$work/report.txt" | sed 's/^/info  report: /'
check "report reads the result (exit 0, names the open and stat classes)" \
  '[[ $rc -eq 0 ]] && grep -q open "$work/report.txt" && grep -q stat "$work/report.txt"'
exit $fail

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Does a replay re-issue what the workload did? Records each workload on a
# just-made loop ext4, replays it afap onto an empty directory of that ext4
# (the replay prepares the tree from the trace alone), and counts the ops
# whose result differs from the recorded one (divergent) and the reads that
# returned fewer bytes (short). The workloads are the ones that found the
# replayer's divergences (README, Known limits); a workload whose tool is
# missing is skipped with a line saying why.
#
#   dev/bench/divergence-suite.sh [-w WORKLOADS] [-b FSREPLAY] [--show N]
#     -w       comma list (default: all): zlib sed bzip2 venv python node shell
#              git npm pnpm cargo clone vite sqlite java cmake xdev
#     --show N print up to N divergent ops of each workload (default 5)
#     --strict a workload that cannot run here is a failure, not a skip (the test)
#   Root (the recorder). Needs mkfs.ext4 and loop devices; apt-get for the
#   Debian sources (zlib, sed, bzip2; fetched once with a private sources
#   list), python3, node, git, npm, cargo, javac, cmake and ninja per workload
#   (pnpm and vite come from the npm registry, once). WORK (default
#   /var/tmp/fsr-divergence) keeps the sources and the traces; GITSRC a git
#   repository to clone (default the git/git mirror when present, else this
#   project's own repository).
# Prints one row per workload: events, replayed ops, divergent ops, short
# reads, then the divergent calls. Exit status 1 when any workload diverged
# or read short (or, with --strict, was skipped or failed itself).
# How long: about 1 min for all on the 2-core VM once the sources are fetched
# (sed's configure and make, 1.36 M events, dominate).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin=${FSREPLAY:-$repo/build/cli/fsreplay}
work=${WORK:-/var/tmp/fsr-divergence}
workloads=zlib,sed,bzip2,venv,python,node,shell,git,npm,pnpm,cargo,clone,vite,sqlite,java,cmake,xdev
show=5 strict=0
while [[ $# -gt 0 ]]; do
  case $1 in
    -w) workloads=$2; shift 2 ;;
    -b) bin=$2; shift 2 ;;
    --show) show=$2; shift 2 ;;
    --strict) strict=1; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "divergence-suite: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ $(id -u) == 0 ]] || { echo "divergence-suite: needs root (the recorder loads eBPF programs)" >&2; exit 2; }
[[ -x $bin ]] || { echo "divergence-suite: no fsreplay at $bin (build first, or -b)" >&2; exit 2; }
bin=$(realpath "$bin")  # (the workloads run in their own directories)
if [[ -z ${GITSRC:-} ]]; then
  if [[ -d /work/.mirror/git+git/repo ]]; then GITSRC=/work/.mirror/git+git/repo; else GITSRC=$repo; fi
fi
export GITSRC
mkdir -p "$work/src"
fs=$work/ext4
cleanup() { mountpoint -q "$fs" && umount "$fs"; rm -f "$work/fs.img"; }
trap cleanup EXIT
say() { echo "divergence-suite: $*" >&2; }
skipped() { say "skip $*"; [[ $strict == 0 ]] || bad=1; }  # in the main shell

fetch_source() {  # fetch_source PACKAGE: Debian's source, unpacked once under $work/src
  local pkg=$1 a="-o Dir::Etc::SourceList=$work/apt/sources.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=$work/apt/lists"
  compgen -G "$work/src/$pkg-[0-9]*/" >/dev/null && return 0
  mkdir -p "$work/apt/lists/partial"
  echo "deb-src http://deb.debian.org/debian bookworm main" > "$work/apt/sources.list"
  [[ -n $(find "$work/apt/lists" -mindepth 1 -maxdepth 1 ! -name '.*' ! -name '*partial*' 2>/dev/null) ]] || apt-get $a -qq update >/dev/null 2>&1 || return 1
  (cd "$work/src" && apt-get $a -qq source --download-only "$pkg" >/dev/null 2>&1 &&
    for t in "$pkg"_*.orig.tar.*; do tar xf "$t"; done) || return 1
}
src_dir() { compgen -G "$work/src/$1-[0-9]*/" | head -1; }
vite_app() {  # vite_app DIR: a React app of 30 components and its node_modules, made once
  local d=$1 i
  [[ -x $d/node_modules/.bin/vite ]] && return 0
  rm -rf "$d" && mkdir -p "$d/src" || return 1
  echo '{ "name": "app", "private": true, "version": "0.0.0", "type": "module" }' > "$d/package.json"
  printf '%s\n' "import { defineConfig } from 'vite'" "import react from '@vitejs/plugin-react'" \
    "export default defineConfig({ plugins: [react()] })" > "$d/vite.config.js"
  echo '<!doctype html><html><body><div id="root"></div><script type="module" src="/src/main.jsx"></script></body></html>' > "$d/index.html"
  {
    echo "import { createRoot } from 'react-dom/client';"
    for i in $(seq 1 30); do
      echo "export default function C$i() { return <p>component $i</p> }" > "$d/src/C$i.jsx"
      echo "import C$i from './C$i.jsx';"
    done
    echo "createRoot(document.getElementById('root')).render(<div>$(for i in $(seq 1 30); do printf '<C%d/>' "$i"; done)</div>);"
  } > "$d/src/main.jsx"
  (cd "$d" && timeout 300 npm install --no-audit --no-fund --loglevel=error vite@5 react@18 react-dom@18 @vitejs/plugin-react@4 >/dev/null 2>&1)
}

pnpm_store() {  # pnpm and a store holding the npm workload's packages, made once
  local p=$work/pnpm-tool/node_modules/.bin/pnpm
  [[ -x $p && -f $work/pnpm-warm/pnpm-lock.yaml ]] && return 0
  (rm -rf "$work/pnpm-tool" "$work/pnpm-warm" "$work/pnpm-store" &&
    timeout 120 npm install -q --no-audit --no-fund --prefix "$work/pnpm-tool" pnpm@9 >/dev/null 2>&1 &&
    mkdir "$work/pnpm-warm" && cp "$repo"/tests/workloads/npm/package.json "$work/pnpm-warm/" && cd "$work/pnpm-warm" &&
    timeout 300 "$p" install --store-dir "$work/pnpm-store" --reporter=silent >/dev/null 2>&1)
}

# setup_of W: prints the shell that makes W's starting tree (in the tree), or
# fails with a reason; run_of W: the recorded command (in the tree).
setup_of() {
  case $1 in
    zlib|sed|bzip2)
      fetch_source "$1" || { say "skip $1: cannot fetch Debian's $1 source"; return 1; }
      echo "cp -a '$(src_dir "$1")'. ." ;;
    venv) python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || { say "skip venv: python3 has no venv or ensurepip module (Debian: python3-venv)"; return 1; }
      echo true ;;
    python) command -v python3 >/dev/null || { say "skip python: python3 missing"; return 1; }
      echo "cp '$here/workloads/python-fs.py' ." ;;
    node) command -v node >/dev/null || { say "skip node: node missing"; return 1; }
      echo "cp '$here/workloads/node-fs.js' ." ;;
    shell) echo "cp '$here/workloads/shell-mix.sh' ." ;;
    git) command -v git >/dev/null && command -v perl >/dev/null || { say "skip git: git or perl missing"; return 1; }
      echo "cp '$here/workloads/git-mix.sh' ." ;;
    npm) command -v npm >/dev/null || { say "skip npm: npm missing"; return 1; }
      # npm's cache warmed unrecorded (offline afterwards)
      (cd "$work" && rm -rf npm-warm && mkdir npm-warm && cp "$repo"/tests/workloads/npm/package*.json npm-warm/ &&
        cd npm-warm && { npm ci --offline --no-audit --no-fund >/dev/null 2>&1 || timeout 120 npm ci --no-audit --no-fund >/dev/null 2>&1; }) ||
        { say "skip npm: npm ci fails offline and the registry is unreachable"; return 1; }
      echo "cp '$repo'/tests/workloads/npm/package*.json ." ;;
    cargo) [[ -x /usr/bin/cargo && -d /usr/share/cargo/registry ]] ||
        { say "skip cargo: Debian's cargo or librust-*-dev missing (tools/install-deps)"; return 1; }
      echo "cp -r '$repo/tests/workloads/cargo/.' ." ;;
    clone) command -v git >/dev/null || { say "skip clone: git missing"; return 1; }
      echo true ;;
    vite) command -v npm >/dev/null || { say "skip vite: npm missing"; return 1; }
      vite_app "$work/vite-src" || { say "skip vite: cannot install vite and react from the npm registry"; return 1; }
      echo "cp -a '$work/vite-src/.' ." ;;
    pnpm) command -v npm >/dev/null || { say "skip pnpm: npm missing"; return 1; }
      pnpm_store || { say "skip pnpm: cannot install pnpm and fill its store from the npm registry"; return 1; }
      # the store beside the tree on its file system (outside the root: the
      # replay's scratch tree), so that pnpm hard-links from it
      echo "cp '$work/pnpm-warm/package.json' '$work/pnpm-warm/pnpm-lock.yaml' . && cp -a '$work/pnpm-store' ../.pnpm-store" ;;
    xdev) echo "cp '$here/workloads/xdev-mix.sh' ." ;;
    sqlite) python3 -c 'import sqlite3' >/dev/null 2>&1 || { say "skip sqlite: python3 has no sqlite3 module"; return 1; }
      echo "cp '$here/workloads/sqlite-mix.py' ." ;;
    java) command -v javac >/dev/null && command -v jar >/dev/null && command -v java >/dev/null ||
        { say "skip java: javac, jar or java missing (Debian: default-jdk-headless)"; return 1; }
      echo "cp '$here/workloads/java-build.sh' ." ;;
    cmake) command -v cmake >/dev/null && command -v ninja >/dev/null && command -v cc >/dev/null ||
        { say "skip cmake: cmake, ninja or cc missing"; return 1; }
      echo "cp '$here/workloads/cmake-ninja.sh' ." ;;
    *) say "unknown workload $1"; return 1 ;;
  esac
}
run_of() {
  case $1 in
    zlib) echo './configure >/dev/null && make -s -j2 >/dev/null && make -s test >/dev/null' ;;
    sed) echo './configure -q >/dev/null 2>&1 && make -s -j2 >/dev/null 2>&1' ;;
    bzip2) echo 'make -s -j2 >/dev/null 2>&1' ;;
    venv) echo 'python3 -m venv v >/dev/null 2>&1 && v/bin/python -c "import json, sqlite3, email"' ;;
    python) echo 'python3 python-fs.py' ;;
    node) echo 'node node-fs.js >/dev/null' ;;
    shell) echo 'bash shell-mix.sh' ;;
    git) echo 'bash git-mix.sh' ;;
    npm) echo 'npm ci --offline --no-audit --no-fund --loglevel=error >/dev/null' ;;
    cargo) echo "env CARGO_HOME=$work/cargo-home RUSTC=/usr/bin/rustc /usr/bin/cargo build --offline --locked -q" ;;
    clone) echo "git clone -q --no-hardlinks '$GITSRC' c && git -C c status >/dev/null" ;;
    vite) echo 'npx vite build >/dev/null' ;;
    pnpm) echo "'$work/pnpm-tool/node_modules/.bin/pnpm' install --offline --frozen-lockfile --store-dir ../.pnpm-store --reporter=silent" ;;
    xdev) echo 'bash xdev-mix.sh' ;;
    sqlite) echo 'python3 sqlite-mix.py' ;;
    java) echo 'bash java-build.sh' ;;
    cmake) echo 'bash cmake-ninja.sh' ;;
  esac
}

bad=0
printf '%-7s %10s %10s %10s %8s %s\n' workload events replayed divergent short "record exit"
for w in ${workloads//,/ }; do
  setup=$(setup_of "$w") || { [[ $strict == 0 ]] || bad=1; continue; }
  cleanup
  truncate -s 4G "$work/fs.img"
  mkfs.ext4 -q -F "$work/fs.img"
  mkdir -p "$fs" && mount -o loop "$work/fs.img" "$fs"
  mkdir "$fs/w" "$fs/t"
  # xdev records in /tmp, on the file system of the /tmp it moves files
  # from (the replay's scratch tree, under $TMPDIR, and its target on the
  # loop ext4 are two)
  wd=$fs/w
  [[ $w != xdev ]] || { rm -rf /tmp/fsr-xdev-w && mkdir /tmp/fsr-xdev-w && wd=/tmp/fsr-xdev-w; }
  (cd "$wd" && eval "$setup") > "$work/$w.setup.log" 2>&1 || { skipped "$w: its setup failed ($work/$w.setup.log)"; continue; }
  sync
  t=$work/$w.trace
  rc=0
  (cd "$wd" && "$bin" record -o "$t" --root "$wd" -- bash -c "$(run_of "$w")") > "$work/$w.record.log" 2>&1 || rc=$?
  events=$(grep -o '[0-9]* events' "$work/$w.record.log" | tail -1 | cut -d' ' -f1)
  [[ -n $events ]] || { skipped "$w: the record failed ($work/$w.record.log)"; continue; }
  "$bin" replay "$t" --target "$fs/t" --timing afap -q --json --max-divergence 100 -o "$t.result" > "$work/$w.replay.json" 2> "$work/$w.replay.log" ||
    { say "$w: the replay failed ($work/$w.replay.log)"; bad=1; continue; }
  read -r ops div short < <(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j.get("ops",0), j.get("divergences",0), j.get("short_reads",0))' "$work/$w.replay.json")
  printf '%-7s %10s %10s %10s %8s %s\n' "$w" "$events" "$ops" "$div" "$short" "$rc"
  [[ $short == 0 ]] || bad=1
  [[ $strict == 0 || $rc == 0 ]] || { say "$w: the workload itself failed (exit $rc; $work/$w.record.log)"; bad=1; }
  [[ $w != xdev ]] || rm -rf /tmp/fsr-xdev-w
  if [[ $div != 0 ]]; then
    bad=1
    "$bin" dump "$t.result" | grep DIVERGENT | head -"$show" | sed 's/^/          /'
  fi
done
exit "$bad"

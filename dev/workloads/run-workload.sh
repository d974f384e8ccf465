#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Record one of the three workloads fsreplay is for, end to end.
#
#   run-workload.sh [--no-record] NAME OUTDIR        NAME: npm | cargo | git-clone | c-build | git-build
#
# Prepares the workload's inputs in a fresh temporary directory, runs it under
# `fsreplay record` with --root = the workload's working directory, writes
# OUTDIR/NAME.trace and OUTDIR/NAME.facts (key=value lines measured on the
# result before clean-up: files installed, crates, ...), prints the `inspect`
# summary, and removes everything else. Run as root (the recorder needs it).
#
#   npm        `npm ci --prefer-offline --no-audit --no-fund` of tests/workloads/npm
#              (fixed lockfile) with UV_USE_IO_URING=0. The npm cache (~/.npm) is
#              warmed first, unrecorded, if it lacks a tarball of the lockfile,
#              so the recorded run is offline. Exit 77 if the cache is cold
#              and the registry unreachable.
#   cargo      `cargo build --offline --locked` of tests/workloads/cargo, whose
#              dependencies come from Debian's librust-*-dev packages
#              (/usr/share/cargo/registry as a directory source). Debian's
#              /usr/bin/cargo and /usr/bin/rustc are preferred when present.
#   git-clone  `git clone --no-hardlinks` of a generated local repository of
#              4,200 files (dev/workloads/make-git-repo.py; the source repository
#              is outside the recorded root, the clone lands inside it).
#   c-build    `make -jC_BUILD_JOBS -C proj` of a generated C project of C_BUILD_FILES
#              translation units (dev/workloads/make-c-project.py): one
#              `gcc $C_BUILD_CFLAGS -c` per file (gcc, cc1 and as: three processes
#              mapping their shared libraries), then one `ar rcs`.
#   git-build  `make -jC_BUILD_JOBS` of git itself (NO_CURL, NO_OPENSSL, NO_EXPAT,
#              NO_GETTEXT, NO_TCLTK, NO_PERL, NO_PYTHON), checked out from
#              GIT_BUILD_SRC (a clone or bare mirror of git/git; required). Benches
#              only: the tests never fetch or build third-party code.
#
# --no-record runs the workload exactly the same way but without the recorder
# (for benches: the untraced baseline). OUTDIR then gets only NAME.facts.
#
# Environment: FSREPLAY (default: <repo>/build/cli/fsreplay),
#   WORKLOAD_TMPDIR (default /var/tmp: where the workload runs; should be a
#   local ext4 disk), FSREPLAY_RECORD_ARGS (extra arguments to `record`),
#   GIT_CLONE_FILES (default 4200), C_BUILD_FILES (default 1500), C_BUILD_CFLAGS
#   (default -O1), C_BUILD_JOBS (default 2), GIT_BUILD_SRC, GIT_BUILD_REF (default HEAD).
# Exit status: 0 ok, 77 skipped (reason printed), else the failure's status
#   (the recorder's distinct status for drops is passed through).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
fixtures="$repo/tests/workloads"

record=1
if [ "${1:-}" = "--no-record" ]; then record=0; shift; fi
if [ $# -ne 2 ]; then
  echo "usage: run-workload.sh [--no-record] npm|cargo|git-clone|c-build|git-build OUTDIR" >&2
  exit 2
fi
name=$1
outdir=$2
case "$name" in npm|cargo|git-clone|c-build|git-build) ;; *)
  echo "run-workload: unknown workload '$name' (npm, cargo, git-clone, c-build, git-build)" >&2; exit 2 ;;
esac

fsreplay=${FSREPLAY:-$repo/build/cli/fsreplay}
if [ "$record" = 1 ]; then
  [ -x "$fsreplay" ] || { echo "run-workload: $fsreplay not found (build first, or set FSREPLAY)" >&2; exit 1; }
  [ "$(id -u)" -eq 0 ] || { echo "run-workload: must run as root (the recorder needs CAP_BPF)" >&2; exit 1; }
fi
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
trace="$outdir/$name.trace"
facts="$outdir/$name.facts"
rm -f "$trace" "$facts"

work=$(mktemp -d "${WORKLOAD_TMPDIR:-/var/tmp}/fsreplay-wl-$name.XXXXXX")
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
root="$work/root"   # the recorded root: the workload's working directory
aux="$work/aux"     # inputs and homes kept outside the recorded root
mkdir -p "$root" "$aux"

# Under sudo, `fsreplay record` runs the workload as $SUDO_USER: so does
# --no-record, the work directory is theirs, and the npm cache checked and
# warmed is theirs (~/.npm).
invoker=
if [ "$(id -u)" -eq 0 ] && [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ] && [ -n "${SUDO_UID:-}" ]; then
  invoker=$SUDO_USER
fi
as_invoker() { if [ -n "$invoker" ]; then runuser -u "$invoker" -- "$@"; else "$@"; fi; }

skip() { echo "run-workload: SKIP $name: $*" >&2; exit 77; }
fact() { echo "$1=$2" >> "$facts"; }

# Runs CMD in $root, recorded or not. Returns the command's (or recorder's) status.
run() {
  local st=0
  if [ "$record" = 1 ]; then
    # shellcheck disable=SC2086
    (cd "$root" && "$fsreplay" record -o "$trace" --root "$root" ${FSREPLAY_RECORD_ARGS:-} -- "$@") || st=$?
  else
    (cd "$root" && as_invoker "$@") || st=$?
  fi
  return $st
}

# --- npm ---------------------------------------------------------------------
npm_prepare() {
  command -v npm >/dev/null || skip "npm not installed"
  cp "$fixtures/npm/package.json" "$fixtures/npm/package-lock.json" "$root/"
  # Tarballs the lockfile needs, and how many of them the npm cache lacks.
  local urls missing
  # (The lockfile may omit "resolved": npm then fetches from the configured
  # registry, at <registry>/<name>/-/<basename>-<version>.tgz.)
  urls=$(node -e '
    const l = require(process.argv[1]);
    const reg = process.argv[2].replace(/\/*$/, "/");
    for (const [k, v] of Object.entries(l.packages || {})) {
      if (!k || v.link) continue;
      const name = k.split("node_modules/").pop();
      console.log(v.resolved || `${reg}${name}/-/${name.split("/").pop()}-${v.version}.tgz`);
    }
  ' "$root/package-lock.json" "$(as_invoker npm config get registry)")
  missing=$(comm -23 <(sort -u <<<"$urls") \
    <(as_invoker npm cache ls 2>/dev/null | sed -n 's/^make-fetch-happen:request-cache://p' | sort -u) | wc -l)
  fact tarballs "$(wc -l <<<"$urls")"
  if [ "$missing" -gt 0 ]; then
    if ! as_invoker timeout 30 npm ping >/dev/null 2>&1; then
      skip "npm cache lacks $missing of $(wc -l <<<"$urls") tarballs and the npm registry is unreachable"
    fi
    echo "run-workload: warming the npm cache ($missing tarballs missing), not recorded" >&2
    mkdir "$aux/warm"
    cp "$root/package.json" "$root/package-lock.json" "$aux/warm/"
    [ -z "$invoker" ] || chown -R "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$aux/warm"
    (cd "$aux/warm" && as_invoker env UV_USE_IO_URING=0 npm ci --no-audit --no-fund --ignore-scripts >/dev/null)
    rm -rf "$aux/warm"
  fi
}
npm_run() {
  run env UV_USE_IO_URING=0 npm_config_update_notifier=false \
    npm ci --prefer-offline --no-audit --no-fund
}
npm_facts() {
  fact files "$(find "$root/node_modules" -type f | wc -l)"
  fact dirs "$(find "$root/node_modules" -type d | wc -l)"
  fact packages "$(node -e '
    const l = require(process.argv[1]), fs = require("fs"), path = require("path");
    let n = 0;
    for (const k of Object.keys(l.packages || {}))
      if (k && fs.existsSync(path.join(process.argv[2], k, "package.json"))) n++;
    console.log(n);
  ' "$root/package-lock.json" "$root")"
}

# --- cargo -------------------------------------------------------------------
cargo_prepare() {
  cargo_bin=/usr/bin/cargo; rustc_bin=/usr/bin/rustc
  [ -x "$cargo_bin" ] || cargo_bin=$(command -v cargo || true)
  [ -x "$rustc_bin" ] || rustc_bin=$(command -v rustc || true)
  [ -n "$cargo_bin" ] && [ -n "$rustc_bin" ] || { echo "run-workload: cargo/rustc not installed (apt-get install cargo rustc)" >&2; exit 1; }
  [ -d /usr/share/cargo/registry ] || { echo "run-workload: /usr/share/cargo/registry missing (apt-get install the librust-*-dev packages, see tools/install-deps)" >&2; exit 1; }
  cp -r "$fixtures/cargo/." "$root/"
  export CARGO_HOME="$aux/cargo-home" RUSTC="$rustc_bin" CARGO_TERM_COLOR=never
  mkdir -p "$CARGO_HOME"
  cargo_locked=--locked
  if ! (cd "$root" && "$cargo_bin" metadata --offline --locked --format-version 1 >/dev/null 2>"$aux/metadata.err"); then
    # Debian point releases may update a librust-*-dev package: re-resolve
    # against what is installed rather than fail.
    echo "run-workload: Cargo.lock does not match /usr/share/cargo/registry, regenerating offline:" >&2
    cat "$aux/metadata.err" >&2
    (cd "$root" && "$cargo_bin" generate-lockfile --offline)
    cargo_locked=
  fi
  fact cargo "$cargo_bin"
  fact rustc "$rustc_bin"
  fact crates "$(grep -c '^\[\[package\]\]' "$root/Cargo.lock")"
  fact registry_crates "$(grep -c '^source = "registry' "$root/Cargo.lock")"
  # name-version of every registry crate, as laid out in the directory source.
  fact registry_crate_dirs "$(awk '/^name = /{gsub(/"/,"",$3); n=$3} /^version = /{gsub(/"/,"",$3); v=$3}
    /^source = "registry/{printf "%s%s-%s", sep, n, v; sep=","}' "$root/Cargo.lock")"
}
cargo_run() {
  run "$cargo_bin" build --offline $cargo_locked
}
cargo_facts() {
  fact binary_built "$([ -x "$root/target/debug/fsreplay-cargo-fixture" ] && echo 1 || echo 0)"
  fact rlibs "$(find "$root/target/debug/deps" -name '*.rlib' | wc -l)"
}

# --- git clone ---------------------------------------------------------------
git_prepare() {
  command -v git >/dev/null || { echo "run-workload: git not installed" >&2; exit 1; }
  "$here/make-git-repo.py" "$aux/src" --files "${GIT_CLONE_FILES:-4200}" >/dev/null
  fact files "$(git -C "$aux/src" ls-files | wc -l)"
  fact dirs "$(find "$aux/src" -mindepth 1 -path "$aux/src/.git" -prune -o -type d -print | wc -l)"
  fact objects "$(find "$aux/src/.git/objects" -type f -path '*/objects/??/*' | wc -l)"
  fact source "$aux/src"
}
git_run() {
  run env GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
    git clone -q --no-hardlinks "$aux/src" "$root/clone"
}
git_facts() {
  fact cloned_files "$(git -C "$root/clone" ls-files | wc -l)"
  fact checked_out "$(find "$root/clone" -path "$root/clone/.git" -prune -o -type f -print | wc -l)"
}

# --- c-build -----------------------------------------------------------------
c_prepare() {
  local t
  for t in gcc make ar; do command -v $t >/dev/null || { echo "run-workload: $t not installed (apt-get install build-essential)" >&2; exit 1; }; done
  "$here/make-c-project.py" "$root/proj" --files "${C_BUILD_FILES:-1500}" >/dev/null
  fact files "${C_BUILD_FILES:-1500}"
  fact cflags "${C_BUILD_CFLAGS:--O1}"
  fact jobs "${C_BUILD_JOBS:-2}"
}
c_run() {
  run make -j"${C_BUILD_JOBS:-2}" -s -C proj CC=gcc "CFLAGS=${C_BUILD_CFLAGS:--O1}"
}
c_facts() {
  fact objects "$(find "$root/proj/obj" -name '*.o' | wc -l)"
  fact members "$(ar t "$root/proj/libproject.a" 2>/dev/null | wc -l)"
}

# --- git-build (benches only) -------------------------------------------------
git_build_flags=(NO_CURL=1 NO_OPENSSL=1 NO_EXPAT=1 NO_GETTEXT=1 NO_TCLTK=1 NO_PERL=1 NO_PYTHON=1)
git_build_prepare() {
  [ -n "${GIT_BUILD_SRC:-}" ] || { echo "run-workload: git-build needs GIT_BUILD_SRC (a clone or mirror of git/git)" >&2; exit 2; }
  git clone -q --no-hardlinks "$GIT_BUILD_SRC" "$root/git"
  git -C "$root/git" checkout -q "${GIT_BUILD_REF:-HEAD}"
  fact commit "$(git -C "$root/git" rev-parse HEAD)"
  fact sources "$(git -C "$root/git" ls-files '*.c' | wc -l)"
}
git_build_run() {
  run make -j"${C_BUILD_JOBS:-2}" -s -C git "${git_build_flags[@]}" all
}
git_build_facts() {
  fact objects "$(find "$root/git" -name '*.o' | wc -l)"
  fact binary_built "$([ -x "$root/git/git" ] && echo 1 || echo 0)"
}

case "$name" in
  npm)       prep=npm_prepare;   go=npm_run;   post=npm_facts ;;
  cargo)     prep=cargo_prepare; go=cargo_run; post=cargo_facts ;;
  git-clone) prep=git_prepare;   go=git_run;   post=git_facts ;;
  c-build)   prep=c_prepare;     go=c_run;     post=c_facts ;;
  git-build) prep=git_build_prepare; go=git_build_run; post=git_build_facts ;;
esac

$prep
[ -z "$invoker" ] || chown -R "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$work"
start=$(date +%s.%N)
status=0
$go || status=$?
end=$(date +%s.%N)
fact status "$status"
fact wall_s "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')"
$post || true
if [ "$record" = 1 ] && [ -f "$trace" ]; then
  "$fsreplay" inspect "$trace" || true
fi
echo "run-workload: $name exit status $status, $(grep wall_s "$facts" | cut -d= -f2) s; facts in $facts" >&2
exit "$status"

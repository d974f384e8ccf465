#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Linker launcher for fsreplay-static (CXX_LINKER_LAUNCHER): runs the link
# command CMake gives, with -static, and with every shared library on it
# (CMake's imported targets name the .so files) replaced by its static archive:
# the one given with --lib NAME=PATH, else libNAME.a beside the .so. Deriving
# the archives from the link line keeps the static build in step with the
# dynamic one when a library gains a dependency.
#   usage: static-link.sh [--lib NAME=ARCHIVE]... -- LINK COMMAND...
set -euo pipefail
declare -A lib=()
while [[ $# -gt 0 && $1 != -- ]]; do
  case $1 in
    --lib) lib[${2%%=*}]=${2#*=}; shift 2 ;;
    *) echo "static-link: unknown option $1" >&2; exit 2 ;;
  esac
done
shift
cmd=()
for a in "$@"; do
  if [[ $a == *.so || $a == *.so.* ]] && [[ $a != -* ]]; then
    base=${a##*/}; name=${base%%.so*}; name=${name#lib}
    name=${name%-[0-9]*}   # libcapnp-0.9.2.so -> capnp
    archive=${lib[$name]:-${a%/*}/lib$name.a}
    if [[ ! -f $archive ]]; then
      echo "static-link: no static archive for $a (looked for $archive): install the -dev package" \
           "that ships lib$name.a, or build it from Debian's source as packaging/static-deps/build-fmt.sh does for fmt" >&2
      exit 1
    fi
    cmd+=("$archive")
  else
    cmd+=("$a")
  fi
done
# The compiler driver comes first; -static goes right after it. A call that
# glibc can only serve through NSS (getpwnam, getaddrinfo, ...) would dlopen
# the running machine's modules, built for another libc (it crashed in
# libnss_systemd): the link fails on glibc's warning about it, naming the call.
err=$(mktemp)
trap 'rm -f "$err"' EXIT
rc=0
"${cmd[0]}" -static "${cmd[@]:1}" 2>"$err" || rc=$?
cat "$err" >&2
if [[ $rc -eq 0 ]] && grep -q "in statically linked applications requires at runtime" "$err"; then
  echo "static-link: the static binary would call glibc's NSS or dlopen (above): give it a" \
       "replacement as packaging/static/passwd_files.cpp does for getpwent" >&2
  for ((i = 1; i < ${#cmd[@]}; i++)); do [[ ${cmd[i]} == -o ]] && rm -f "${cmd[i+1]}"; done
  exit 1
fi
exit $rc

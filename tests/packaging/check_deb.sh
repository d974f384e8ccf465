#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Makes the .deb with the build's CPack configuration (what
# `cmake --build BUILD --target package` runs) into OUTDIR and checks what
# `dpkg-deb -c` lists: the three binaries, fsreplay-static, a man page for
# fsreplay and for every verb `fsreplay --help` lists (and slowfs,
# wsl1-harness), the bash completion, README and copyright; and that Depends
# names Debian's runtime libraries, or none where the binaries are the static
# builds (then the package installs on any Debian release: distros_deb_trixie).
#   usage: check_deb.sh BUILD_DIR FSREPLAY OUTDIR
set -euo pipefail
build=$1 fsreplay=$2 out=$3
rm -rf "$out"; mkdir -p "$out"
cpack --config "$build/CPackConfig.cmake" -B "$out" >"$out/cpack.log" 2>&1 || { cat "$out/cpack.log"; exit 1; }
deb=$(ls "$out"/fsreplay_*.deb)
echo "info  $deb ($(du -h "$deb" | cut -f1))"
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$out/contents.txt"
fail=0
want() { if grep -qx "$1" "$out/contents.txt"; then echo "ok    $1"; else echo "FAIL  $1 not in the package"; fail=1; fi; }
want /usr/bin/fsreplay
want /usr/bin/slowfs
want /usr/bin/wsl1-harness
want /usr/lib/fsreplay/fsreplay-static
want /usr/share/man/man1/fsreplay.1.gz
for v in $("$fsreplay" --help | awk '/^Subcommands:/ {s=1; next} s && /^[^ ]/ {s=0} s && NF {print $1}'); do
  want "/usr/share/man/man1/fsreplay-$v.1.gz"
done
want /usr/share/man/man1/slowfs.1.gz
want /usr/share/man/man1/wsl1-harness.1.gz
want /usr/share/bash-completion/completions/fsreplay
want /usr/share/bash-completion/completions/slowfs
want /usr/share/bash-completion/completions/wsl1-harness
want /usr/share/doc/fsreplay/copyright
want /usr/share/doc/fsreplay/README.md
depends=$(dpkg-deb -f "$deb" Depends)
echo "info  Depends: $depends"
# /usr/bin/fsreplay and slowfs are the static builds when they exist: then the
# package must not depend on the libraries they carry (their sonames differ
# between Debian releases, and the .deb would not install on another one).
dpkg-deb -x "$deb" "$out/root"
if file -L "$out/root/usr/bin/fsreplay" | grep -q "statically linked"; then
  echo "ok    /usr/bin/fsreplay is the static build"
  file -L "$out/root/usr/bin/slowfs" | grep -q "statically linked" &&
    echo "ok    /usr/bin/slowfs is the static build" || { echo "FAIL  /usr/bin/slowfs is not static"; fail=1; }
  for lib in libcapnp libzstd libfmt libfuse3 libbpf libelf; do
    if [[ $depends == *"$lib"* ]]; then echo "FAIL  Depends names $lib, which the static binaries carry"; fail=1
    else echo "ok    Depends does not name $lib"; fi
  done
  file -L "$out/root/usr/bin/wsl1-harness" | grep -q "statically linked" &&
    echo "ok    /usr/bin/wsl1-harness is the static build" || { echo "FAIL  /usr/bin/wsl1-harness is not static"; fail=1; }
  want_libs=""
else
  want_libs="libc6 libstdc++6 libcapnp libzstd1 libfmt9 libfuse3 libseccomp2"
fi
for lib in $want_libs; do
  if [[ $depends == *"$lib"* ]]; then echo "ok    Depends names $lib"; else echo "FAIL  Depends lacks $lib"; fail=1; fi
done
rm -rf "$out/root"
other=$(grep -vE '^/usr/(bin|lib/fsreplay|share/(man/man1|bash-completion/completions|doc/fsreplay))/|/$' "$out/contents.txt" || true)
if [[ -z $other ]]; then echo "ok    nothing else in the package"; else echo "FAIL  unexpected files: $other"; fail=1; fi
cp "$deb" "$out/fsreplay.deb"   # a fixed name for the chroot test
exit $fail

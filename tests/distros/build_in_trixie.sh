#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's build from source, word for word, on Debian 13 (trixie: newer
# gcc, libbpf, Cap'n Proto and fmt than Debian 12's): the source tree (git's
# tracked and untracked files, not build/) is copied into a trixie chroot and
# each command of the README's Install block (tools/install-deps, cmake, cmake
# --build --target package, apt install of the .deb, man) runs there as
# written, from the copy; then `ctest -L unit` there. The tree is made by
# dev/distros/tree.sh with the packages trixie-build-packages.txt names (what
# `tools/install-deps --list` named when it was written: fixed, so that the
# cache stays warm), so install-deps finds them present and installs only
# what it has gained since (cold: the tree's ~2 GB of packages; warm: the
# build itself, printed per step). apt answers yes (apt.conf.d in the
# chroot), as a user at the prompt would.
#   usage: build_in_trixie.sh REPO
# Exit 77 with the reason when no trixie tree is cached and the mirror is unreachable.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$1" && pwd)
# shellcheck source=tests/distros/chroot-lib.sh
. "$here/chroot-lib.sh"
mapfile -t packages < <(grep -v '^#' "$here/trixie-build-packages.txt")
rc=0; tree=$("$repo/dev/distros/tree.sh" trixie "${packages[@]}") || rc=$?
[[ $rc -eq 77 ]] && { echo "skip: no trixie tree with the build's packages (see above)"; exit 77; }
[[ $rc -ne 0 ]] && exit "$rc"
distros_work
distros_overlay "$tree"
distros_mount_api --dev
cp /etc/resolv.conf "$root/etc/resolv.conf"
echo 'APT::Get::Assume-Yes "true";' >"$root/etc/apt/apt.conf.d/90distros-assume-yes"
mkdir -p "$root/src/fsreplay"
(cd "$repo" && git ls-files -co --exclude-standard -z | grep -zv '^build' |
  tar --null -T - -cf -) | tar -C "$root/src/fsreplay" -xf -
echo "info  $(inroot sh -c '. /etc/os-release; echo "$PRETTY_NAME"'), $(inroot gcc --version | head -1)"
echo "info  $(inroot dpkg-query -W -f '${Package} ${Version}, ' libbpf-dev libcapnp-dev libfmt-dev cmake)"

# The source build: the ```sh block of README's "## Install" section that runs
# tools/install-deps, comments cut.
mapfile -t steps < <(python3 - "$repo/README.md" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
section = re.search(r"^## Install\n(.*?)(?=^## )", text, re.S | re.M).group(1)
for block in re.findall(r"^```sh\n(.*?)^```", section, re.S | re.M):
    if "tools/install-deps" in block:
        for line in block.splitlines():
            line = re.sub(r"\s*#.*$", "", line)
            if line.strip():
                print(line)
        break
PY
)
[[ ${#steps[@]} -ge 3 ]] || { echo "FAIL  no Install block with commands found in README.md"; exit 1; }
fail=0
for step in "${steps[@]}"; do
  echo "== $step"
  t0=$SECONDS
  rc=0
  inroot sh -c "cd /src/fsreplay && $step" >"$work/step.log" 2>&1 </dev/null || rc=$?
  tail -5 "$work/step.log"
  if [[ $rc -eq 0 ]]; then echo "ok    $step ($((SECONDS - t0)) s)"; else
    tail -40 "$work/step.log"; echo "FAIL  $step exited $rc ($((SECONDS - t0)) s)"; fail=1; break
  fi
done
if [[ $fail -eq 0 ]]; then
  echo "== ctest --test-dir build -L unit"
  t0=$SECONDS
  rc=0
  inroot sh -c "cd /src/fsreplay && ctest --test-dir build -L unit --output-on-failure" >"$work/ctest.log" 2>&1 || rc=$?
  grep -E 'tests passed|tests failed|Failed|\*\*\*' "$work/ctest.log" | head -40
  if [[ $rc -eq 0 ]]; then echo "ok    unit tests pass on trixie ($((SECONDS - t0)) s)"; else
    echo "FAIL  unit tests on trixie exited $rc"; fail=1; fi
  echo "info  the .deb apt installed: $(inroot fsreplay --version 2>&1)"
  if inroot fsreplay inspect /src/fsreplay/tests/traces/fixtures/v2.trace | grep -q events; then
    echo "ok    the installed fsreplay inspects a trace on trixie"
  else echo "FAIL  the installed fsreplay cannot inspect a trace on trixie"; fail=1; fi
fi
exit $fail

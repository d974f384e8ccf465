#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Records tools/demo's workload, scaled down, into OUT: a generated git
# repository cloned with --no-hardlinks, `git status` twice, find, du, small
# files created, listed and removed. Used by the packaging tests for a real
# recorded trace to replay. Needs root and the recorder (eBPF).
#   usage: record-demo-trace.sh FSREPLAY OUT [FILES] [SMALL]   (defaults 120, 60)
# Exit 77 (with the reason) when this build has no recorder.
set -euo pipefail
fsreplay=$1 out=$2 files=${3:-120} small=${4:-60}
work=$(mktemp -d "${WORKLOAD_TMPDIR:-/var/tmp}/fsr-pkg-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 - "$work/src" "$files" <<'PY'
import os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(7)
for i in range(n):
    d = os.path.join(root, "pkg%02d" % (i % 40), "sub%d" % (i % 7))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "file%05d.c" % i), "w") as f:
        f.write("/* generated */\n" + "int v%d = %d;\n" % (i, i) * rng.randint(1, 120))
PY
git -C "$work/src" init -q && git -C "$work/src" add -A &&
  git -C "$work/src" -c user.email=demo@fsreplay -c user.name=demo commit -qm demo
mkdir "$work/rec"
rc=0
(cd "$work/rec" && "$fsreplay" record -o "$out" --root "$work/rec" -- sh -c "
  git clone -q --no-hardlinks '$work/src' clone && cd clone &&
  git status >/dev/null && git status >/dev/null &&
  find . -type f | wc -l >/dev/null && du -sh . >/dev/null &&
  mkdir small && i=0 && while [ \$i -lt $small ]; do echo x > small/f\$i; i=\$((i+1)); done &&
  ls -l small >/dev/null && rm -rf small") || rc=$?
if [[ $rc -eq 5 ]]; then echo "record-demo-trace: the recorder cannot run here (exit 5: no privilege or BPF)" >&2; exit 77; fi
exit $rc

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The static fsreplay on Debian 12's stock 6.1 kernel: the vm lab's guest
# (dev/vmlab, QEMU; ~2.5 min here under TCG, the kernel fetched once into
# CACHE_DIR) runs guest_static.sh; here: record exited 0 with 0 drops, the
# replay 0 divergences, report printed its per-class table.
#   usage: static_in_vm.sh VMLAB FSREPLAY_STATIC CACHE_DIR
# Exit 77 with the reason where the lab cannot run (no QEMU, no kernel package).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
vmlab=$1 static=$(readlink -f "$2")
export VMLAB_CACHE=$3
command -v qemu-system-x86_64 >/dev/null || { echo "skip: qemu-system-x86_64 missing (tools/install-deps)"; exit 77; }
out=$(mktemp -d /var/tmp/fsr-distros-vm.XXXXXX)
trap 'rm -rf "$out"' EXIT
"$vmlab" run --timeout 600 --share "$out" -- bash "$here/guest_static.sh" "$static"
rc=$?
[[ $rc -eq 77 ]] && { echo "skip: the vm lab cannot run here (the line above says why)"; exit 77; }
[[ $rc -eq 0 ]] || { echo "FAIL  the guest's run exited $rc"; exit 1; }
python3 - "$out" <<'PY'
import json, re, sys
out = sys.argv[1]
i = json.load(open(f"{out}/inspect.json"))
r = json.load(open(f"{out}/replay.json"))
report = open(f"{out}/report.txt").read()
checks = [(f"record on 6.1: 0 drops ({i['events']} events, {i['drops']} drops)", i["drops"] == 0 and i["events"] > 1000),
          (f"replay on 6.1: 0 divergences ({r['ops']} ops, {r['divergences']} divergences)",
           r["ops"] > 1000 and r["divergences"] == 0),
          ("report prints the per-class table", bool(re.search(r"^open ", report, re.M)))]
for what, ok in checks:
    print(("ok    " if ok else "FAIL  ") + what)
sys.exit(0 if all(ok for _, ok in checks) else 1)
PY

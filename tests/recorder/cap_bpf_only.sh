#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The recorder with the least privilege its errors ask for: a user that is
# not root and holds CAP_BPF and CAP_PERFMON only (a container run with
# --cap-add BPF --cap-add PERFMON, no CAP_SYS_ADMIN). The workload is
# recorded with no drop and the fault programs' cost is measured (until
# 2026-12-03 it was measured through the kernel's BPF run-time stats, which
# need CAP_SYS_ADMIN: without it the calibration left the cost out).
# Usage: cap_bpf_only.sh FSREPLAY   (root, to drop to that user; 77 = skipped)
set -uo pipefail
fsreplay=$(realpath "$1")
[[ $(id -u) -eq 0 ]] || { echo "SKIP: needs root (to become a user with CAP_BPF and CAP_PERFMON only)"; exit 77; }
setpriv --inh-caps=-all,+bpf,+perfmon true 2> /dev/null \
  || { echo "SKIP: this setpriv or kernel does not know CAP_BPF/CAP_PERFMON (Linux 5.8, util-linux 2.36)"; exit 77; }
work=$(mktemp -d /var/tmp/fsr-capbpf.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir "$work/root" && chown -R 65534:65534 "$work" && chmod 755 "$work"
as_bpf_user() {
  setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,+bpf,+perfmon \
    --ambient-caps=-all,+bpf,+perfmon --bounding-set=-all,+bpf,+perfmon -- "$@"
}
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }
caps=$(as_bpf_user grep CapEff /proc/self/status)
check "the user's capabilities are not CAP_BPF and CAP_PERFMON only: $caps" '[[ $caps == *000000c000000000 ]]'
as_bpf_user "$fsreplay" record -o "$work/t.trace" --root "$work/root" -- \
  sh -c 'cd "$1" && echo x > f && cat f > /dev/null && mkdir d && ls > /dev/null' _ "$work/root" > /dev/null 2> "$work/rec.err"
rc=$?
check "record exit $rc: $(tail -1 "$work/rec.err")" '[ $rc -eq 0 ]'
"$fsreplay" inspect "$work/t.trace" > "$work/inspect.txt"
cat "$work/inspect.txt"
check "drops" 'grep -Eq "^drops +0$" "$work/inspect.txt"'
check "the fault programs' cost was not measured" \
  'grep -Eq "user fault [1-9][0-9]* \(file recorded [1-9][0-9]*, skipped [1-9][0-9]*\)" "$work/inspect.txt"'
"$fsreplay" dump "$work/t.trace" > "$work/dump.txt"
for call in 'openat("'"$work"'/root/f"' 'mkdir("'"$work"'/root/d"' 'getdents64("'"$work"'/root"'; do
  check "the trace lacks $call" 'grep -qF "$call" "$work/dump.txt"'
done
[[ $fail -eq 0 ]] && echo "ok: recorded as uid 65534 with CAP_BPF and CAP_PERFMON only, the fault cost measured"
exit $fail

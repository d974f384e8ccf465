#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# probe's fitted server model on slowfs recovers what slowfs was configured
# with (issue 45): 1 and 4 server slots exactly, the read and write bandwidth
# limits (O_DIRECT and buffered) within 10%. Runs dev/bench/probe-server.sh
# --check, which mounts slowfs, probes it and compares.
# Usage: probe_server_e2e.sh FSREPLAY SLOWFS   (root; exit 77 to skip)
set -euo pipefail
skip() { echo "SKIP: $*"; exit 77; }
[[ $(id -u) == 0 ]] || skip "needs root (a FUSE mount with allow_other)"
[[ -e /dev/fuse ]] || skip "no /dev/fuse"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FSREPLAY=$(realpath "$1") SLOWFS=$(realpath "$2") "$here/../../dev/bench/probe-server.sh" -s "1 4" -d 15 --check

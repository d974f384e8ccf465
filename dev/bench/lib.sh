# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# lib.sh — helpers the bench scripts share (sourced, not run):
#   warm_npm_cache NAME DIR ROOT   npm's cache (~/.npm, on the local disk as a
#                                  user's is) holding tests/workloads/npm's
#                                  packages: `npm ci` once in DIR (offline,
#                                  else from the registry); NAME prefixes the
#                                  error when neither works.

warm_npm_cache() {
  local name=$1 dir=$2 root=$3
  [[ -d $dir/node_modules ]] && return 0
  mkdir -p "$dir" && cp "$root"/tests/workloads/npm/package*.json "$dir/"
  (cd "$dir" && { npm ci --offline --no-audit --no-fund >/dev/null 2>&1 ||
    timeout 300 npm ci --no-audit --no-fund >/dev/null 2>&1; }) ||
    { echo "$name: npm ci fails offline and the registry is unreachable" >&2; exit 1; }
}

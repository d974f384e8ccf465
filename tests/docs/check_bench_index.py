#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every bench in dev/bench (each script, program source and folder) is named
in docs/benchmarks.md, the benches' index. Usage: check_bench_index.py SOURCE_DIR"""
import os
import sys

NOT_BENCHES = {"CMakeLists.txt", "README.md"}


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1]
    bench_dir = os.path.join(root, "dev", "bench")
    with open(os.path.join(root, "docs", "benchmarks.md"), encoding="utf-8") as fh:
        index = fh.read()
    names = sorted(n for n in os.listdir(bench_dir) if n not in NOT_BENCHES)
    missing = [n for n in names if n not in index]
    for n in missing:
        print(f"dev/bench/{n}: not in docs/benchmarks.md (say what it measures and its command there)")
    if missing:
        return 1
    print(f"check_bench_index: all {len(names)} entries of dev/bench are in docs/benchmarks.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

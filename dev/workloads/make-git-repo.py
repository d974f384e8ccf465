#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generate, deterministically, a local git repository of many small files.

Used as the source of the `git clone --no-hardlinks` workload of fsreplay.
Same arguments give the same tree and the same commit id on every machine
(fixed author, committer, dates and content).

usage: make-git-repo.py DIR [--files N]   (default N = 4200; DIR must not exist)
"""
import argparse
import os
import subprocess
import sys

WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo "
         "lima mike november oscar papa quebec romeo sierra tango uniform "
         "victor whiskey xray yankee zulu").split()


def content(i):
    # A few hundred bytes of text, varying per file so that every blob differs.
    lines = [f"// file {i:05d}: fixture for fsreplay git clone workload"]
    n = 3 + i % 17
    for k in range(n):
        w = [WORDS[(i * 7 + k * 3 + j) % len(WORDS)] for j in range(6)]
        lines.append(f"{k:3d} " + " ".join(w))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("dir")
    ap.add_argument("--files", type=int, default=4200)
    args = ap.parse_args()
    if args.files < 1:
        sys.exit("make-git-repo: --files must be >= 1")
    if os.path.exists(args.dir):
        sys.exit(f"make-git-repo: {args.dir} already exists")
    os.makedirs(args.dir)
    # Layout: top/NN/sub/MM/file_XXXXX.txt, 21 files per leaf directory,
    # 10 leaf directories per top directory, plus a README at the top.
    per_leaf, leaves_per_top = 21, 10
    written = 0
    with open(os.path.join(args.dir, "README"), "w") as f:
        f.write("fsreplay git clone fixture\n")
    written += 1
    i = 0
    while written < args.files:
        leaf = i // per_leaf
        top, sub = leaf // leaves_per_top, leaf % leaves_per_top
        d = os.path.join(args.dir, f"top{top:02d}", f"sub{sub:02d}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"file_{i:05d}.txt"), "w") as f:
            f.write(content(i))
        i += 1
        written += 1
    env = dict(os.environ,
               GIT_AUTHOR_NAME="fsreplay", GIT_AUTHOR_EMAIL="fsreplay@example.invalid",
               GIT_COMMITTER_NAME="fsreplay", GIT_COMMITTER_EMAIL="fsreplay@example.invalid",
               GIT_AUTHOR_DATE="2026-01-01T00:00:00Z", GIT_COMMITTER_DATE="2026-01-01T00:00:00Z",
               GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null")

    def git(*a):
        subprocess.run(["git", "-C", args.dir, *a], env=env, check=True,
                       stdout=subprocess.DEVNULL)

    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "-m", f"fixture: {args.files} files")
    print(written)


if __name__ == "__main__":
    main()

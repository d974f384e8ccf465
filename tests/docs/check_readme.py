#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The README stays a page a user reads in five minutes: at most 250 lines,
and no line over 200 characters outside code blocks (tables included: the
reference is docs/commands.md). Usage: check_readme.py SOURCE_DIR"""
import os
import sys

MAX_LINES, MAX_WIDTH = 250, 200


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    path = os.path.join(argv[1], "README.md")
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    bad, code = [], False
    for n, line in enumerate(lines, 1):
        if line.startswith("```"):
            code = not code
            continue
        if not code and len(line) > MAX_WIDTH:
            bad.append(f"README.md:{n}: {len(line)} characters (at most {MAX_WIDTH} outside code blocks)")
    if len(lines) > MAX_LINES:
        bad.append(f"README.md: {len(lines)} lines (at most {MAX_LINES}: move reference into docs/)")
    for b in bad:
        print(b)
    if bad:
        return 1
    print(f"check_readme: {len(lines)} lines, none over {MAX_WIDTH} characters outside code blocks")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

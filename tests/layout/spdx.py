#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every source file names its licence on an SPDX line near its top (LICENSE):
Apache-2.0 for the user-space code, (BSD-2-Clause OR GPL-2.0-only) for the
BPF programs under bpf/, whose licence section must then say "Dual BSD/GPL"
so that the kernel lends them its GPL-only helpers.

  spdx.py [ROOT]          list the offences, exit 1 if any
  spdx.py --fix [ROOT]    add the missing lines (after a shebang), then check

A source file: C, C++, shell, Python, Cap'n Proto, Rust, CMake, a .in
template, or an executable with a shebang. Tracked files only when ROOT is a
git checkout (what a clean clone holds), else every file under ROOT."""
import os
import re
import subprocess
import sys

APACHE = "Apache-2.0"
DUAL = "(BSD-2-Clause OR GPL-2.0-only)"
SLASH_EXT = (".cpp", ".h", ".c", ".cc", ".rs", ".cpp.in", ".h.in", ".capnp")
HASH_EXT = (".sh", ".py", ".cmake", ".toml")
LINE_RE = re.compile(r"SPDX-License-Identifier: (.+?)\s*(\*/)?$")


def files_of(root):
    if os.path.isdir(os.path.join(root, ".git")) or os.path.isfile(os.path.join(root, ".git")):
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True)
        return [f for f in out.stdout.decode().split("\0") if f]
    # A copy without git (the distros build test's): its build directories
    # (any holding CMakeCache.txt) and dot directories are not sources.
    found = []
    for d, dirs, names in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(".")
                   and not os.path.isfile(os.path.join(d, x, "CMakeCache.txt"))]
        found += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return found


def comment_style(root, rel):
    """'//', '#' or None (not a source file, or a fixture whose line numbers a test reads)."""
    name = os.path.basename(rel)
    if "/fixture" in rel:
        return None
    if rel.endswith(".capnp"):
        return "#"
    if rel.endswith(SLASH_EXT):
        return "//"
    if rel.endswith(HASH_EXT) or name == "CMakeLists.txt":
        return "#"
    path = os.path.join(root, rel)
    if os.access(path, os.X_OK) and os.path.isfile(path):
        with open(path, "rb") as f:
            if f.read(2) == b"#!":
                return "#"
    return None


def wanted(rel):
    return DUAL if rel.startswith("bpf/") else APACHE


def check_file(root, rel, fix):
    style = comment_style(root, rel)
    if style is None:
        return []
    path = os.path.join(root, rel)
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    want = wanted(rel)
    offences = []
    found = None
    for line in lines[:3]:
        m = LINE_RE.search(line)
        if m:
            found = m.group(1)
    if found is None and fix:
        at = 1 if lines and lines[0].startswith("#!") else 0
        lines.insert(at, f"{style} SPDX-License-Identifier: {want}")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        found = want
    if found is None:
        offences.append(f"{rel}:1: no SPDX-License-Identifier line in its first 3 lines "
                        f"(add '{style} SPDX-License-Identifier: {want}', or run tests/layout/spdx.py --fix)")
    elif found != want:
        offences.append(f"{rel}:1: SPDX-License-Identifier is {found}, this room's code is {want}")
    if rel.startswith("bpf/") and rel.endswith(".bpf.c"):
        for n, line in enumerate(lines, 1):
            if 'SEC("license")' in line and '"Dual BSD/GPL"' not in line:
                offences.append(f'{rel}:{n}: the licence section must say "Dual BSD/GPL", as its SPDX line does')
    return offences


def check(root, fix=False):
    offences = []
    for rel in sorted(files_of(root)):
        if os.path.isfile(os.path.join(root, rel)) and not os.path.islink(os.path.join(root, rel)):
            offences += check_file(root, rel, fix)
    return offences


def main(argv):
    fix = "--fix" in argv
    args = [a for a in argv if a != "--fix"]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    offences = check(os.path.abspath(root), fix)
    for o in offences:
        print(o)
    if offences:
        print(f"spdx: {len(offences)} offence(s)")
        return 1
    print("spdx: every source file names its licence")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

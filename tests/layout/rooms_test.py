#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The rooms check catches every kind of offence in its fixture (and nothing
else there), and passes on the source tree."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import rooms  # noqa: E402

WANT = [
    ("base/reaches_up.h:3:", "against the arrows"),
    ("cli/strange.cpp:2:", "which is in no room"),
    ("misc/stray.cpp:", "in no room"),
    ("replayer/loose.cpp:", "only holds rooms"),
    ("replayer/plan/uses_detect.cpp:2:", "includes detect/"),
    ("replayer/plan/uses_detect.cpp:3:", "includes recorder/bpf/"),
    ("replayer/CMakeLists.txt:2:", "links fsreplay_detect"),
]

offences, _, _ = rooms.check(os.path.join(HERE, "fixture_bad"))
failed = False
for where, what in WANT:
    if not any(o.startswith(where) and what in o for o in offences):
        print(f"FAIL: the fixture's offence at {where} ({what}) was not reported")
        failed = True
extra = [o for o in offences if not any(o.startswith(w) and t in o for w, t in WANT)]
for o in extra:
    print(f"FAIL: reported what the fixture does not hold: {o}")
if any("clean.h" in o for o in offences):
    print("FAIL: the clean file was reported")
if failed or extra:
    sys.exit(1)
tree, _, count = rooms.check(os.path.normpath(os.path.join(HERE, "..", "..")))
for o in tree:
    print("FAIL (tree):", o)
if tree:
    sys.exit(1)
print(f"rooms: the fixture's {len(WANT)} offences caught; the tree's {count} files clean")

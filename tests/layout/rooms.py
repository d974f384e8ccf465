#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The house's rooms and the arrows between them.

Every C/C++ source under the tree belongs to exactly one room (the longest
room path that contains it), and each #include "room/..." it makes must point
into its own room or into a room its arrows allow. A source in a folder that
is no room, an include of a folder that is no room, or an include against the
arrows fails the check, one line per offence.

Usage: rooms.py ROOT            check a tree (exit 1 on any offence)
       rooms.py ROOT --matrix   print which room includes which (to review)
"""
import os
import re
import sys

# room -> the rooms it may include. Product rooms first, floor to roof.
ARROWS = {
    "base": set(),
    "traces": {"base"},
    "traces/synthetic": {"traces", "base"},
    "bpf": set(),
    # bpf/fsreplay_record.h is the record layout the kernel side writes.
    "recorder/core": {"bpf", "traces", "base"},
    "recorder/bpf": {"recorder/core", "bpf", "traces", "base"},
    "replayer/plan": {"traces", "base"},
    "replayer/exec": {"replayer/plan", "traces", "base"},
    "replayer/engine": {"replayer/exec", "replayer/plan", "traces", "base"},
    "replayer/session": {"replayer/engine", "replayer/exec", "replayer/plan", "traces", "base"},
    "detect": {"traces", "base"},
    "report": {"traces", "base"},
    # predict simulates the replayer's plan with the engine's timing rules.
    "predict": {"report", "detect", "replayer/session", "replayer/engine", "replayer/plan", "traces", "base"},
    # advise searches placements with predict's placement columns.
    "advise": {"predict", "report", "replayer/session", "replayer/plan", "traces", "base"},
    # probe runs its cases through the replayer's executor on the mount.
    "probe": {"detect", "replayer/session", "replayer/engine", "replayer/exec", "replayer/plan", "traces", "base"},
    "cli/progress": {"base"},
    "emulators/slowfs": {"base"},
    "emulators/wsl1": {"base"},
    "cli": {"cli/progress", "detect", "report", "predict", "advise", "probe", "recorder/core", "recorder/bpf",
            "replayer/session", "replayer/engine", "replayer/exec", "replayer/plan", "traces", "base"},
    # the static binary is the CLI built again without the recorder
    "packaging": {"cli", "cli/progress", "detect", "report", "predict", "advise", "probe", "recorder/core", "recorder/bpf",
                  "replayer/session", "replayer/engine", "replayer/exec", "replayer/plan", "traces", "base"},
}
# Development rooms stand on the whole product; they are never included by it.
PRODUCT = set(ARROWS)
for dev_room in ("dev/bench", "dev/vmlab", "dev/mountlab", "dev/workloads", "tests"):
    ARROWS[dev_room] = PRODUCT | {"traces/synthetic", "tests"}
ARROWS["dev/bench"] |= {"dev/bench"}

# Folders that hold rooms and a CMakeLists.txt, never a source of their own.
CONTAINERS = {"replayer": ["replayer/plan", "replayer/exec", "replayer/engine", "replayer/session"],
              "recorder": ["recorder/core", "recorder/bpf"]}
# The project's libraries and the room each is built from; a CMakeLists.txt
# links along the same arrows as its sources include.
LIBRARIES = {
    "fsreplay_base": "base", "fsreplay_traces": "traces", "fsreplay_synthetic": "traces/synthetic",
    "fsreplay_bpf": "bpf", "fsreplay_floor_bpf": "bpf", "fsreplay_recorder_core": "recorder/core",
    "fsreplay_recorder": "recorder/bpf", "fsreplay_replayer": "replayer/session", "fsreplay_detect": "detect",
    "fsreplay_report": "report", "fsreplay_predict": "predict", "fsreplay_advise": "advise", "fsreplay_probe": "probe",
    "fsreplay_progress": "cli/progress", "fsreplay_slowfs": "emulators/slowfs", "fsreplay_wsl1": "emulators/wsl1",
}
LINK = re.compile(r"\b(fsreplay_[a-z0-9_]+)\b")

# Headers made by the build (capnp, bpftool), found beside the includer's
# generated sources rather than under a room.
GENERATED = re.compile(r"^(vmlinux\.h|[\w.]+\.capnp\.h|[\w]+\.skel\.h)$")
SOURCE = re.compile(r"\.(c|cc|cpp|h|hpp)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
SKIP_DIRS = {".git", "fixture_bad", "fixtures", "golden", "node_modules", "replay-seeds"}


def room_of(rel):
    best = None
    for room in ARROWS:
        if rel == room or rel.startswith(room + "/"):
            if best is None or len(room) > len(best):
                best = room
    return best


def arrows_of(room):
    if room in CONTAINERS:
        out = set(CONTAINERS[room])
        for r in CONTAINERS[room]:
            out |= ARROWS[r]
        return out
    return ARROWS[room]


def check_links(root, offences):
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("build"))
        if "CMakeLists.txt" not in files:
            continue
        rel_dir = os.path.relpath(top, root)
        room = rel_dir if rel_dir in CONTAINERS else room_of(rel_dir)
        if room is None:
            continue
        with open(os.path.join(top, "CMakeLists.txt"), errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                if "target_link_libraries" not in line and not line.startswith(" "):
                    continue
                for lib in LINK.findall(line.split("#")[0]):
                    to = LIBRARIES.get(lib)
                    if to and to != room and to not in arrows_of(room) and not to.startswith(room + "/"):
                        offences.append(f"{os.path.join(rel_dir, 'CMakeLists.txt')}:{n}: {room}/ links {lib} "
                                        f"({to}/), against the arrows")


def sources(root):
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("build"))
        for f in sorted(files):
            if SOURCE.search(f):
                yield os.path.relpath(os.path.join(top, f), root)


def check(root):
    offences, matrix, count = [], {}, 0
    for rel in sources(root):
        count += 1
        room = room_of(rel)
        if os.path.dirname(rel) in CONTAINERS:
            offences.append(f"{rel}: directly in {os.path.dirname(rel)}/, which only holds rooms "
                            f"({', '.join(CONTAINERS[os.path.dirname(rel)])}): put it in one")
            continue
        if room is None:
            offences.append(f"{rel}: in no room (add its folder to tests/layout/rooms.py with its arrows)")
            continue
        with open(os.path.join(root, rel), errors="replace") as fh:
            for n, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(1)
                if "/" not in target:
                    here = os.path.join(root, os.path.dirname(rel), target)
                    # bpf/'s headers reach the recorder through its include directory
                    via_bpf = "bpf" in ARROWS[room] and os.path.exists(os.path.join(root, "bpf", target))
                    if not (os.path.exists(here) or via_bpf or GENERATED.match(target)):
                        offences.append(f"{rel}:{n}: includes \"{target}\", neither beside it nor generated")
                    continue
                to = room_of(target)
                if to is None:
                    offences.append(f"{rel}:{n}: includes \"{target}\", which is in no room")
                    continue
                matrix.setdefault(room, set()).add(to)
                if to != room and to not in ARROWS[room]:
                    offences.append(f"{rel}:{n}: {room}/ includes {to}/ (\"{target}\"), against the arrows "
                                    f"{room} -> {', '.join(sorted(ARROWS[room])) or 'nothing'}")
    check_links(root, offences)
    return offences, matrix, count


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = argv[1]
    offences, matrix, count = check(root)
    if "--matrix" in argv:
        for room in sorted(matrix):
            print(f"{room:18} -> {', '.join(sorted(matrix[room] - {room}))}")
        return 0
    if count == 0:
        print(f"rooms.py: no sources under {root}: wrong ROOT?", file=sys.stderr)
        return 2
    for o in offences:
        print(o)
    if offences:
        print(f"rooms: {len(offences)} offences in {count} files", file=sys.stderr)
        return 1
    print(f"rooms: {count} files in {len(set(room_of(r) for r in sources(root)))} rooms, every include along the arrows")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The SPDX check fails on a source file without its line, with the wrong
licence for its room, or a BPF licence section that is not dual; --fix adds
the line after a shebang; and the source tree passes."""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import spdx  # noqa: E402

FILES = {
    "ok.cpp": "// SPDX-License-Identifier: Apache-2.0\nint x;\n",
    "bare.cpp": "// no licence here\nint y;\n",
    "tool.sh": "#!/bin/sh\necho hi\n",
    "CMakeLists.txt": "project(x)\n",
    "bpf/prog.bpf.c": "// SPDX-License-Identifier: (BSD-2-Clause OR GPL-2.0-only)\n"
                      'char LICENSE[] SEC("license") = "GPL";\n',
    "bpf/wrong.h": "// SPDX-License-Identifier: Apache-2.0\n",
    "notes.txt": "not a source file\n",
}
WANT = [
    ("bare.cpp:1:", "no SPDX"),
    ("tool.sh:1:", "no SPDX"),
    ("CMakeLists.txt:1:", "no SPDX"),
    ("bpf/prog.bpf.c:2:", "Dual BSD/GPL"),
    ("bpf/wrong.h:1:", "is Apache-2.0"),
]
failed = False
with tempfile.TemporaryDirectory() as root:
    for rel, text in FILES.items():
        os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
        with open(os.path.join(root, rel), "w") as f:
            f.write(text)
    os.chmod(os.path.join(root, "tool.sh"), 0o755)
    offences = spdx.check(root)
    for where, what in WANT:
        if not any(o.startswith(where) and what in o for o in offences):
            print(f"FAIL: {where} ({what}) was not reported; got {offences}")
            failed = True
    if len(offences) != len(WANT):
        print(f"FAIL: {len(offences)} offences reported, {len(WANT)} expected: {offences}")
        failed = True
    spdx.check(root, fix=True)
    with open(os.path.join(root, "tool.sh")) as f:
        if f.read().split("\n")[:2] != ["#!/bin/sh", "# SPDX-License-Identifier: Apache-2.0"]:
            print("FAIL: --fix did not put the line right after the shebang")
            failed = True
    left = spdx.check(root)
    if len(left) != 2:  # --fix adds missing lines only: the two wrong licences stay
        print(f"FAIL: after --fix, {left}")
        failed = True
tree = spdx.check(os.path.join(HERE, "..", ".."))
for o in tree:
    print(f"FAIL: {o}")
sys.exit(1 if failed or tree else 0)

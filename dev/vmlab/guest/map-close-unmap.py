# SPDX-License-Identifier: Apache-2.0
# Maps each of the files f1..fN in the current directory, closes its fd,
# touches the mapping and unmaps it: the munmap drops the file's last
# reference, so the kernel releases the file on the call's way back to user
# space (deferred release: bpf/record_release.bpf.h). With --read and
# --write, then reads each through open/read/close and writes N files h1..hN.
#   python3 map-close-unmap.py N [--read] [--write]
import mmap
import os
import sys

n = int(sys.argv[1])
for i in range(1, n + 1):
    fd = os.open("f%d" % i, os.O_RDONLY)
    m = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
    os.close(fd)
    m[0]
    m.close()
if "--read" in sys.argv:
    for i in range(1, n + 1):
        with open("f%d" % i) as f:
            f.read()
if "--write" in sys.argv:
    for i in range(1, n + 1):
        with open("h%d" % i, "w") as f:
            f.write("x")

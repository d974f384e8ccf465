# SPDX-License-Identifier: Apache-2.0
"""The table of dev/bench/server-fio.sh: fio's medians against what slowfs was told.

stdin: one line per row, "SLOTS CASE PROBE_MBPS PROBE_IOPS" ("-" when none).
env: WORK (the runs, WORK/SLOTS-CASE-ROUND/{fio.json,server.txt}), ROUNDS,
LAT (e.g. 500us) and BW (read=40MB,write=20MB) as given to slowfs.
"""
import json
import os
import re
import sys

CASES = {  # case: (bytes per request, jobs, direction)
    "seqwrite": (1 << 20, 1, "write"),
    "seqread": (1 << 20, 1, "read"),
    "randread4": (4096, 4, "read"),
    "randread1": (4096, 1, "read"),
}
UNITS = {"": 1e6, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1024.0, "MiB": 1048576.0, "GiB": 1073741824.0}


def seconds(text):
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s)", text)
    return float(m.group(1)) * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[m.group(2)]


def rates(text):
    out = {"read": 0.0, "write": 0.0}
    for item in text.split(","):
        key, value = item.split("=")
        m = re.fullmatch(r"([0-9.]+)([A-Za-z]*)(/s)?", value)
        bps = float(m.group(1)) * UNITS[m.group(2)] if m else 0.0
        for d in ("read", "write") if key == "all" else (key,):
            out[d] = bps
    return out


def implied(slots, case, lat, bw):
    size, jobs, direction = CASES[case]
    if slots == "floor":
        lat, bw, slots = 0.0, {"read": 0.0, "write": 0.0}, jobs
    slots = int(slots)
    pipe = size / bw[direction] if bw[direction] else 0.0
    iops = min(jobs, slots) / (lat + pipe)
    if pipe:
        iops = min(iops, 1 / pipe)
    return iops * size / 1e6, iops, jobs / iops * 1e6


def fio_figures(path, direction):
    job = json.load(open(path))["jobs"][0][direction]
    return job["bw_bytes"] / 1e6, job["iops"], job["lat_ns"]["mean"] / 1e3


def server_stats(path):
    stats = {}
    for line in open(path).read().splitlines()[1:]:
        name, value = line.split()
        stats[name] = int(value)
    return stats


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def spread(values):
    m = median(values)
    return (max(values) - min(values)) / m * 100 if m else 0.0


def main():
    work, rounds = os.environ["WORK"], int(os.environ["ROUNDS"])
    lat, bw = seconds(os.environ["LAT"]), rates(os.environ["BW"])
    head = ("slots", "case", "MB/s", "spread", "IOPS", "spread", "lat us", "impl MB/s", "impl IOPS", "impl lat",
            "fio/impl", "lat-impl", "peak", "waited", "probe MB/s", "probe IOPS", "probe/fio")
    print("%-5s %-9s %8s %6s %8s %6s %8s %9s %9s %8s %8s %8s %4s %7s %10s %10s %9s" % head)
    for line in sys.stdin:
        slots, case, probe_mb, probe_iops = line.split()
        direction = CASES[case][2]
        runs = [f"{work}/{slots}-{case}-{r}" for r in range(1, rounds + 1)]
        figs = [fio_figures(f"{d}/fio.json", direction) for d in runs]
        mbs, iops, lats = ([f[i] for f in figs] for i in range(3))
        mid = min(range(rounds), key=lambda i: abs(iops[i] - median(iops)))
        stats = server_stats(f"{runs[mid]}/server.txt")
        cells = (slots, case, median(mbs), spread(mbs), median(iops), spread(iops), median(lats))
        print("%-5s %-9s %8.1f %5.1f%% %8.0f %5.1f%% %8.0f" % cells, end=" ")
        if slots == "floor":  # no server: its implied figures are unbounded
            print("%9s %9s %8.0f %8s %8.0f" % ("-", "-", 0, "-", median(lats)), end=" ")
        else:
            imb, iiops, ilat = implied(slots, case, lat, bw)
            print("%9.1f %9.0f %8.0f %8.2f %8.0f" % (imb, iiops, ilat, median(iops) / iiops, median(lats) - ilat), end=" ")
        ratio = "%.2f" % (float(probe_iops) / median(iops)) if probe_iops != "-" else "-"
        print("%4d %7d %10s %10s %9s" % (stats["peak_in_service"], stats["waited"], probe_mb, probe_iops, ratio))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The benches' one statistics helper (issue 42 item 6): a figure measured in
several rounds is its median with the median's 95% interval, a percentile
bootstrap (10,000 resamples from a fixed seed, so a rerun of the summary reads
the same), as `fsreplay compare --runs` computes it; fewer than 3 rounds get
no interval. `within(xs, ref, pct)` decides "within +-pct% of ref" by the
interval, not by one median: yes only if the whole interval is inside, no only
if it is wholly outside, else undecided.

As a module: spread(xs), ratio(num, den), within(xs, ref, pct), fmt(xs, unit).
As a command: benchstats.py X1 X2 ... prints the summary of the numbers."""
import random
import statistics
import sys

MIN_RUNS = 3
RESAMPLES = 10000
CONFIDENCE = 0.95
SEED = 0x66737265706C6179  # "fsreplay"


def _quantile(sorted_xs, q):
    at = q * (len(sorted_xs) - 1)
    i = int(at)
    if i + 1 >= len(sorted_xs):
        return sorted_xs[-1]
    return sorted_xs[i] + (at - i) * (sorted_xs[i + 1] - sorted_xs[i])


def _boot(stat, samples):
    rng = random.Random(SEED)
    out = []
    for _ in range(RESAMPLES):
        v = stat(*[[s[rng.randrange(len(s))] for _ in s] for s in samples])
        if v is not None:
            out.append(v)
    out.sort()
    tail = (1 - CONFIDENCE) / 2
    return (_quantile(out, tail), _quantile(out, 1 - tail)) if out else None


def spread(xs):
    """median, lo, hi (None without an interval), mean, sd, min, max, n."""
    xs = [float(x) for x in xs]
    s = {"n": len(xs), "median": statistics.median(xs), "mean": statistics.fmean(xs),
         "sd": statistics.stdev(xs) if len(xs) > 1 else 0.0, "min": min(xs), "max": max(xs), "lo": None, "hi": None}
    if len(xs) >= MIN_RUNS:
        s["lo"], s["hi"] = _boot(statistics.median, [xs])
    return s


def ratio(num, den):
    """median(num)/median(den), its interval (None with < 3 of either), and
    whether the interval excludes 1."""
    r = {"ratio": statistics.median(num) / statistics.median(den), "lo": None, "hi": None, "significant": False}
    if len(num) >= MIN_RUNS and len(den) >= MIN_RUNS:
        iv = _boot(lambda a, b: statistics.median(a) / statistics.median(b) if statistics.median(b) else None,
                   [list(map(float, num)), list(map(float, den))])
        if iv:
            r["lo"], r["hi"] = iv
            r["significant"] = iv[0] > 1 or iv[1] < 1
    return r


def within(xs, ref, pct):
    """'yes', 'no' or 'undecided': is the figure within +-pct% of ref?"""
    s = spread(xs)
    if s["lo"] is None:
        return "undecided"
    lo, hi = ref * (1 - pct / 100), ref * (1 + pct / 100)
    if lo <= s["lo"] and s["hi"] <= hi:
        return "yes"
    if s["hi"] < lo or s["lo"] > hi:
        return "no"
    return "undecided"


def fmt(xs, unit=""):
    """'12.3 [11.9, 12.8]' (median [interval]), or '12.3 (2 runs: no interval)'."""
    s = spread(xs)
    if s["lo"] is None:
        return "%.4g%s (%d run%s: no interval)" % (s["median"], unit, s["n"], "" if s["n"] == 1 else "s")
    return "%.4g%s [%.4g, %.4g]" % (s["median"], unit, s["lo"], s["hi"])


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    vals = [float(a) for a in sys.argv[1:]]
    s = spread(vals)
    print("n %d  median %s  mean %.4g  sd %.4g  min %.4g  max %.4g" % (s["n"], fmt(vals), s["mean"], s["sd"], s["min"], s["max"]))

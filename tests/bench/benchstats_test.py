#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""dev/bench/benchstats.py: the benches' statistics on fixed samples."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(sys.argv.pop(1) if len(sys.argv) > 1 else ".", "dev", "bench"))
import benchstats as b  # noqa: E402


class BenchStats(unittest.TestCase):
    def test_three_runs_interval_is_their_range(self):
        # A resample's median is 1 with probability 7/27, 3 likewise.
        s = b.spread([2, 3, 1])
        self.assertEqual((s["median"], s["lo"], s["hi"]), (2, 1, 3))

    def test_two_runs_have_no_interval(self):
        s = b.spread([5, 7])
        self.assertIsNone(s["lo"])
        self.assertIn("2 runs: no interval", b.fmt([5, 7]))

    def test_twofold_is_significant_and_one_percent_on_noise_is_not(self):
        r = b.ratio([2.0, 2.1, 1.95, 2.04, 1.98], [1.0, 1.04, 0.97, 1.02, 0.99])
        self.assertTrue(r["significant"])
        self.assertAlmostEqual(r["ratio"], 2.0)
        noisy = [1.00, 1.10, 0.91, 1.05, 0.95]
        r = b.ratio([1.01 * x for x in [0.96, 1.08, 0.93, 1.12, 1.01]], noisy)
        self.assertFalse(r["significant"])
        self.assertLess(r["lo"], 1)
        self.assertGreater(r["hi"], 1)

    def test_within_decides_by_the_interval(self):
        self.assertEqual(b.within([1.0, 1.02, 0.99, 1.01, 1.0], 1.0, 5), "yes")
        self.assertEqual(b.within([1.3, 1.35, 1.32], 1.0, 5), "no")
        self.assertEqual(b.within([0.9, 1.1, 1.0], 1.0, 5), "undecided")
        self.assertEqual(b.within([1.0, 1.0], 1.0, 5), "undecided")

    def test_reproducible(self):
        xs = [10.2, 9.8, 10.5, 10.1, 9.9, 10.0, 10.3]
        self.assertEqual(b.spread(xs), b.spread(xs))


if __name__ == "__main__":
    unittest.main()

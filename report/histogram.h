// SPDX-License-Identifier: Apache-2.0
// LogHistogram: a small HDR-style latency histogram. Values (ns) are bucketed
// logarithmically with 64 linear sub-buckets per power of two, so any value
// read back (quantile) is within 1% of a recorded value; histograms of the same
// shape merge by adding counts. Exact count, sum, min and max are kept beside
// the buckets. Never allocates more than ~30 KiB (3,776 buckets).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fsr {

class LogHistogram {
 public:
  // Values below kExact are stored exactly; above, the bucket width is at most
  // 1/64 of its lower bound and the midpoint is reported (error <= 1/128).
  static constexpr uint64_t kExact = 128;
  static constexpr double kMaxRelativeError = 1.0 / 128;

  void record(uint64_t value, uint64_t n = 1);
  void merge(const LogHistogram& other);

  uint64_t count() const { return count_; }
  uint64_t sum() const { return sum_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  double mean() const { return count_ ? double(sum_) / double(count_) : 0.0; }
  // The mean rounded to the nearest ns, in integers: `uint64_t(mean() + 0.5)`
  // is undefined for a mean within 1024 of 2^64 (a trace's duration near it).
  uint64_t rounded_mean() const {
    if (!count_) return 0;
    const uint64_t q = sum_ / count_, r = sum_ % count_;
    return q + (r >= count_ - r ? 1 : 0);
  }

  // The value at quantile q in [0, 1] (nearest rank), within kMaxRelativeError
  // of a recorded value, clamped to [min, max]. 0 for an empty histogram.
  uint64_t quantile(double q) const;

  // Non-empty buckets in increasing order: (representative value, count).
  // For CDF plots.
  struct Bucket {
    uint64_t value;
    uint64_t count;
  };
  std::vector<Bucket> buckets() const;

  static size_t bucket_index(uint64_t value);
  static uint64_t bucket_low(size_t index);   // smallest value in the bucket
  static uint64_t bucket_high(size_t index);  // largest value in the bucket

 private:
  uint64_t representative(size_t index) const;

  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  uint64_t sum_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
};

}  // namespace fsr

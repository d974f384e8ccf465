// SPDX-License-Identifier: Apache-2.0
#include "report/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace fsr {
namespace {
constexpr unsigned kSubBits = 6;  // 64 sub-buckets per octave
constexpr uint64_t kSub = uint64_t{1} << kSubBits;
}  // namespace

size_t LogHistogram::bucket_index(uint64_t v) {
  if (v < kExact) return static_cast<size_t>(v);
  const unsigned e = 63u - static_cast<unsigned>(std::countl_zero(v));  // >= 7
  const unsigned shift = e - kSubBits;
  const uint64_t sub = (v >> shift) - kSub;  // [0, 64)
  return static_cast<size_t>(kExact + (e - 7) * kSub + sub);
}

uint64_t LogHistogram::bucket_low(size_t i) {
  if (i < kExact) return i;
  const uint64_t k = i - kExact;
  const unsigned e = static_cast<unsigned>(k / kSub) + 7;
  const uint64_t sub = k % kSub + kSub;
  return sub << (e - kSubBits);
}

uint64_t LogHistogram::bucket_high(size_t i) {
  if (i < kExact) return i;
  const uint64_t k = i - kExact;
  const unsigned e = static_cast<unsigned>(k / kSub) + 7;
  return bucket_low(i) + ((uint64_t{1} << (e - kSubBits)) - 1);
}

void LogHistogram::record(uint64_t value, uint64_t n) {
  if (n == 0) return;
  const size_t i = bucket_index(value);
  if (counts_.size() <= i) counts_.resize(i + 1, 0);
  counts_[i] += n;
  count_ += n;
  sum_ += value * n;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
}

void LogHistogram::merge(const LogHistogram& o) {
  if (o.count_ == 0) return;
  if (counts_.size() < o.counts_.size()) counts_.resize(o.counts_.size(), 0);
  for (size_t i = 0; i < o.counts_.size(); ++i) counts_[i] += o.counts_[i];
  count_ += o.count_;
  sum_ += o.sum_;
  min_ = std::min(min_, o.min_);
  max_ = std::max(max_, o.max_);
}

uint64_t LogHistogram::representative(size_t i) const {
  const uint64_t lo = bucket_low(i), hi = bucket_high(i);
  const uint64_t mid = lo + (hi - lo) / 2;
  return std::clamp(mid, min_, max_);
}

uint64_t LogHistogram::quantile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  uint64_t rank = static_cast<uint64_t>(std::ceil(q * double(count_)));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) return representative(i);
  }
  return max_;
}

std::vector<LogHistogram::Bucket> LogHistogram::buckets() const {
  std::vector<Bucket> out;
  for (size_t i = 0; i < counts_.size(); ++i)
    if (counts_[i]) out.push_back({representative(i), counts_[i]});
  return out;
}

}  // namespace fsr

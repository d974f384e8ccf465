// SPDX-License-Identifier: Apache-2.0
// Kernel and file-system features the replayer uses where they exist, probed
// once at start against the replay roots (WSL1 answers ENOSYS or EINVAL for
// several of them; some file systems refuse fallocate or O_TMPFILE). Each has
// a fallback; the result lists the fallbacks actually used. Probes can be
// forced off by name so that every fallback is testable without that kernel.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace fsr {

enum class Feature : uint8_t {
  kStatx,
  kOpenat2,
  kRenameat2Flags,
  kCopyFileRange,
  kSyncFileRange,
  kOTmpfile,
  kFallocate,
  kXattrAt,
  kCount
};
inline constexpr int kFeatureCount = static_cast<int>(Feature::kCount);

std::string_view feature_name(Feature f);
// "statx -> fstatat" and so on: what the result lists when the fallback was used.
std::string_view fallback_description(Feature f);
Result<Feature> feature_from_name(std::string_view name);

class Features {
 public:
  // Probes in directory `dirfd` (creates and removes ".fsreplay-probe-*" there).
  // Features named in `force_off` are treated as missing without probing.
  static Features probe(int dirfd, const std::vector<Feature>& force_off);
  static Features all();  // everything available (tests)
  Features() = default;
  Features(const Features& o) { *this = o; }
  Features& operator=(const Features& o) {
    for (int i = 0; i < kFeatureCount; ++i) have_[i] = o.have_[i];
    used_.store(o.used_.load());
    return *this;
  }

  bool has(Feature f) const { return have_[static_cast<int>(f)]; }
  void set(Feature f, bool on) { have_[static_cast<int>(f)] = on; }
  // Notes that a fallback for `f` was taken (thread-safe, cheap after the first time).
  void used_fallback(Feature f) const;
  std::vector<std::string> fallbacks_used() const;

 private:
  bool have_[kFeatureCount] = {};
  mutable std::atomic<uint32_t> used_{0};
};

}  // namespace fsr

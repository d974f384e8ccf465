// SPDX-License-Identifier: Apache-2.0
// A profile turned into a lookup the simulator can afford per op: for each
// (kind, temperature) the measured parameter points (depths, sizes) with
// their equal-probability bins, sampled by bin index and interpolated
// linearly between the measured parameters (extrapolated beyond the largest
// from the last two: a per-byte or per-component cost; a call that moves
// bytes never from the 0-byte point; an idle gap longer than probed as the
// longest). Also the path-walk
// cost per component, fitted on the stat cases at several depths, which
// moves every other path op from the probe's depth to the op's own. It
// carries the profile's server model for the simulator's queue.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "traces/profile.h"

namespace fsr {

class LatencyModel {
 public:
  explicit LatencyModel(const Profile& p);

  bool has(ProbeKind k, Temp t) const { return !points(k, t).empty(); }
  // Its cases are measured at several depths: an op is priced at its walk's depth (the param).
  static bool is_depth_kind(ProbeKind k) { return k == ProbeKind::kStat || k == ProbeKind::kStatMissing; }
  // Latency (ns) of bin `bin` (< kProfileBins) of case (k, t) at `param`.
  // The case must exist (has()).
  uint64_t sample(ProbeKind k, Temp t, uint64_t param, uint32_t bin) const;
  // Added cost (ns, may be negative) of a path op `depth` components deep
  // against the probe's own depth.
  int64_t walk_adjust(Temp t, uint32_t depth) const;

  uint32_t ref_depth() const { return ref_depth_; }
  // Components above the probed target on its mount (Profile::target_depth_on_mount).
  uint32_t anchor_depth() const { return anchor_depth_; }
  // The mount never asks its server again for a directory entry the kernel
  // holds (a mount point, a cwd and every ancestor of either): the kernel's
  // 9p client (WSL2's /mnt/c), which revalidates no cached dentry with
  // cache=mmap. A FUSE mount with a short entry timeout asks for each again.
  bool held_entries_free() const { return held_entries_free_; }
  uint64_t cache_lifetime_ns() const { return lifetime_; }
  uint64_t syscall_overhead_ns() const { return syscall_; }
  double walk_ns_per_component(Temp t) const { return walk_[t == Temp::kCold]; }
  // The mount as a server (server_queue.h); slots 0: not measured.
  const ServerModel& server() const { return server_; }

 private:
  struct Point {
    uint64_t param;
    uint32_t offset;  // into bins_
  };
  const std::vector<Point>& points(ProbeKind k, Temp t) const {
    return table_[static_cast<size_t>(k) * 2 + (t == Temp::kCold)];
  }
  static bool is_bytes_kind(ProbeKind k) {
    return k == ProbeKind::kRead || k == ProbeKind::kReadSeq || k == ProbeKind::kReaddir;
  }
  double fit_walk(Temp t) const;

  std::array<std::vector<Point>, kProbeKindCount * 2> table_;  // [kind][warm, cold]
  std::vector<uint64_t> bins_;
  double walk_[2] = {0, 0};
  uint32_t ref_depth_ = 2;
  uint32_t anchor_depth_ = 0;
  bool held_entries_free_ = false;
  uint64_t lifetime_ = kNoExpiry;
  uint64_t syscall_ = 0;
  ServerModel server_;
};

}  // namespace fsr

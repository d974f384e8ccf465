// SPDX-License-Identifier: Apache-2.0
// What one issued op costs on the predicted mount. Classifies the op as the
// probe measured it (kind, size, path depth, hit or miss as the trace shows
// them: a stat that failed is a miss, a read's size is its recorded return)
// and picks its temperature from the mount state the replay would have
// built up: a path is warm while the mount last answered for it (a create,
// a change, a cold lookup; not a cached hit) within the profile's cache
// lifetime (the prestate counts as answered at the start: prepare made it),
// a write through an open file makes its next lookup ask the mount again
// (where the mount's cache expires at all; with a kStatWritten case in the
// profile, that stat is priced from it at the mount's idle gap before the
// call, however long the cache lives), data stays cached once written
// or read. Ops that the replay runs outside
// the target (scratch paths, devices) and ops of a kind the profile never
// measured take their recorded duration, and are counted so that predict
// can name what it assumed. With no model, every op takes its recorded
// duration (the "recorded" column). An op priced from the mount's cases
// then queues at the mount as a server (server_queue.h), where the profile
// has a model of it. Non-virtual; state is per path and per
// open file (an OFD slot the planner reuses starts clean), never per event:
// it reads op i from the window while op i is simulated, nothing older.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "predict/latency_model.h"
#include "predict/placed_models.h"
#include "predict/server_queue.h"
#include "predict/window_view.h"
#include "traces/profile.h"
#include "traces/syscalls.h"

namespace fsr {

struct CostNotes {
  uint64_t modeled = 0;                                  // ops priced from the profile
  uint64_t local = 0;                                    // scratch or device ops: recorded duration
  std::array<uint64_t, kClassCount> unmeasured{};        // per class: no case in the profile, recorded duration
  std::array<uint64_t, kProbeKindCount> missing_kind{};  // which cases were missing, per kind
  uint64_t cold_as_warm = 0;                             // cold ops priced as warm (no cold case)
  uint64_t copy_as_read_write = 0;                       // copy_file_range/sendfile priced as a read plus a write
  uint64_t stat_written_unprobed = 0;  // stats of just-written files, no kStatWritten case (old profile)
};

class OpCost {
 public:
  // `model` null: every issued op costs its recorded duration.
  OpCost(const WindowView& view, const LatencyModel* model, uint64_t seed, bool cold_start);
  // A placement: each op priced by the model of the mount its path lands on
  // (placed_models.h); `model` is then the rest's. `placed` outlives this.
  OpCost(const WindowView& view, const PlacedModels* placed, uint64_t seed, bool cold_start);

  // ns the issued op `i` takes when it starts at simulated time `now`.
  uint64_t latency(uint32_t i, uint64_t now);
  // Paid back from later gaps per issued op, as the replay does (engine.h).
  uint64_t syscall_overhead_ns() const { return model_ ? model_->syscall_overhead_ns() : 0; }
  const CostNotes& notes() const { return notes_; }
  // With a placement: ops per mount and crossing renames (none without one).
  PlacedCounts placed_counts() const { return placed_ ? placed_->counts() : PlacedCounts{}; }
  // The server's queue: what the last latency() included of waiting, totals.
  uint64_t last_wait() const { return last_wait_; }
  const ServerQueue& server() const { return server_; }

 private:
  struct Priced {
    ProbeKind kind;
    uint64_t param;
    uint8_t meta;  // temperature from: 0 none (always warm), 1 the path's metadata state, 2 its data state
    bool walk;     // path op: move from the probe's depth to the op's
  };
  bool classify(uint32_t i, Priced& out);
  Temp temperature(uint32_t path, bool meta, bool ok, bool creates, uint64_t now);
  uint32_t depth(uint32_t path);  // components below its root, cached
  // Components op's path k walks: from its dirfd's or cwd's directory under
  // walks as passed (PlanOp::walk), else from its root (depth()).
  uint32_t walk_depth(const PlanOp& op, int k);
  // What a written file adds to its fstat (an fstat walks no path).
  uint64_t fstat_written_extra(uint64_t idle_us);
  // With a placement: what path k's walk looks up on the rest's mount before its SUBDIR.
  uint32_t outer_components(const PlanOp& op, int k);
  bool in_scratch(uint32_t path);  // mapped beneath the scratch directory, cached
  void after(uint32_t i, const Priced& pr, uint64_t now, bool fetched);
  Transfer transfer_of(const PlanOp& op, const Priced& pr) const;
  uint32_t path_of(uint32_t i) const;
  uint32_t next_bin() {
    rng_ ^= rng_ >> 12, rng_ ^= rng_ << 25, rng_ ^= rng_ >> 27;
    return static_cast<uint32_t>((rng_ * 0x2545F4914F6CDD1Dull) >> 57);  // 0 .. 127
  }

  const WindowView& v_;
  const LatencyModel* model_;  // the current op's (with a placement, its mount's)
  const LatencyModel* base_;   // the rest's
  std::unique_ptr<PlacedPricer> placed_;
  bool cold_start_;
  uint64_t rng_;
  std::vector<uint64_t> touched_;   // per plan path: sim time of its last touch + 1 (0: never)
  std::vector<uint8_t> path_bits_;  // per plan path: kExists, kData
  std::vector<uint8_t> ofd_bits_;   // per OFD: kDirty, kReadStarted
  std::vector<uint8_t> depth_;      // per plan path: components below its root (255: not computed)
  std::vector<uint8_t> root_;       // per plan path: 1 + in_scratch() (0: not looked up)
  uint64_t idle_from_ = 0;          // sim time the mount's last priced op completed (its idle gap starts)
  CostNotes notes_;
  ServerQueue server_;  // the rest's mount (without a placement: the mount's)
  // With a placement: per slot (0 the rest) its mount's queue; rules on one profile share one.
  std::vector<std::unique_ptr<ServerQueue>> mount_queues_;
  std::vector<ServerQueue*> slot_queue_;
  uint64_t last_wait_ = 0;
};

static_assert(kProfileBins == 128, "OpCost::next_bin draws 7 bits");

}  // namespace fsr

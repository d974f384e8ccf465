// SPDX-License-Identifier: Apache-2.0
// A placement priced: per rule the latency model of the mount its SUBDIR is
// placed on, and the model of the rest. PlacedPricer is one simulator's view
// of it: which model prices an op's path (the plan path's mapped place
// beneath the target, looked up once per path), and how many ops each model
// priced. Ops with two paths (rename, link) are priced by the mount of the
// first; when the two land on different mounts the op is counted as crossing
// (a real rename or link across mounts fails with EXDEV). Paths outside the
// recorded root (scratch) are never placed. With `attribute`, it also sums
// the priced latency per directory 1-3 deep that holds the op's path (an fd
// op's: its open file's; a directory op counts for the directory itself):
// advise's candidates, which report's per-directory table (by the event's
// own path only) would miss for reads, writes and getdents through an fd.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "replayer/plan/placement.h"
#include "replayer/plan/plan.h"
#include "predict/latency_model.h"

namespace fsr {

struct PlacedModels {
  Placement placement;
  std::vector<const LatencyModel*> rule_model;  // per placement rule
  std::vector<std::string> rule_name;           // per rule: its profile's name
  const LatencyModel* rest = nullptr;
  std::string rest_name;
  bool attribute = false;  // sum the priced ns per directory (PlacedCounts::dir_ns)
};

struct PlacedCounts {
  std::vector<uint64_t> ops;               // per slot: 0 the rest, k + 1 rule k; ops priced by its model
  uint64_t crossing = 0;                   // renames and links whose two paths land on different mounts
  uint64_t priced_ns = 0;                  // the latency priced from the models, every mount
  std::map<std::string, uint64_t> dir_ns;  // with attribute: per directory 1-3 deep, the ns priced under it
};

class PlacedPricer {
 public:
  explicit PlacedPricer(const PlacedModels& m);

  // The slot of plan path q (0: the rest), looked up once per path.
  uint32_t slot(const Plan& plan, uint32_t q) {
    if (q == kNoPath) return 0;
    if (q >= slot_.size()) slot_.resize(q + 1, 0);
    if (slot_[q] == 0) {
      const MappedPath& mp = plan.paths[q].mapped;
      const int k = mp.root == Root::kTarget ? m_.placement.match(mp.rel) : -1;
      slot_[q] = static_cast<uint8_t>(k + 2);
    }
    return slot_[q] - 1u;
  }
  // The model that prices an op on path p, its second path p2 (kNoPath: none).
  const LatencyModel* model_for(const Plan& plan, uint32_t p, uint32_t p2) {
    const uint32_t s = slot(plan, p);
    if (p2 != kNoPath && slot(plan, p2) != s) ++counts_.crossing;
    last_ = p;
    ++counts_.ops[s];
    last_slot_ = s;
    return s == 0 ? m_.rest : m_.rule_model[s - 1];
  }
  // The latency of the op model_for() was last asked for; `dir_op`: its path is a directory.
  void priced(const Plan& plan, uint64_t ns, bool dir_op);
  PlacedCounts counts() const;
  uint32_t last_slot() const { return last_slot_; }  // of the op model_for() priced
  // Components of slot s's SUBDIR below the recorded root ("clone/.git": 2; 0 the rest).
  uint32_t subdir_depth(uint32_t s) const { return s == 0 ? 0 : subdir_depth_[s - 1]; }
  bool on_rest_model(uint32_t s) const { return s == 0 || m_.rule_model[s - 1] == m_.rest; }

 private:
  static constexpr int kDepth = 3;
  const PlacedModels& m_;
  std::vector<uint8_t> slot_;           // per plan path: 0 not looked up, 1 the rest, k + 2 rule k
  std::vector<uint32_t> subdir_depth_;  // per rule
  PlacedCounts counts_;
  uint32_t last_ = kNoPath;  // the path model_for() priced
  uint32_t last_slot_ = 0;
  // With attribute: per plan path its directories' keys (+1; 0 none), the
  // path itself last; per key its name and sum.
  std::vector<std::array<uint32_t, kDepth + 1>> keys_;
  std::vector<std::string> key_name_;
  std::vector<uint64_t> key_ns_;
  std::map<std::string, uint32_t> key_of_;
};

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
#include "predict/placed_models.h"

#include <algorithm>

namespace fsr {

PlacedPricer::PlacedPricer(const PlacedModels& m) : m_(m) {
  counts_.ops.assign(m.rule_model.size() + 1, 0);
  for (const PlaceRule& r : m.placement.rules)
    subdir_depth_.push_back(1 + static_cast<uint32_t>(std::count(r.subdir.begin(), r.subdir.end(), '/')));
}

void PlacedPricer::priced(const Plan& plan, uint64_t ns, bool dir_op) {
  counts_.priced_ns += ns;
  if (!m_.attribute || last_ == kNoPath) return;
  if (last_ >= keys_.size()) keys_.resize(last_ + 1, {UINT32_MAX, 0, 0, 0});
  auto& k = keys_[last_];
  if (k[0] == UINT32_MAX) {  // once per path: its directories 1-3 deep, and itself if one of them
    k = {0, 0, 0, 0};
    const MappedPath& mp = plan.paths[last_].mapped;
    if (mp.root != Root::kTarget || mp.rel.empty()) return;
    size_t at = 0;
    for (int d = 0; d <= kDepth; ++d) {
      if (d == kDepth) break;  // (a directory 4 deep is no candidate)
      const size_t slash = mp.rel.find('/', at);
      const bool whole = slash == std::string::npos;
      const std::string key = mp.rel.substr(0, slash);
      auto [it, fresh] = key_of_.emplace(key, static_cast<uint32_t>(key_name_.size()));
      if (fresh) key_name_.push_back(key), key_ns_.push_back(0);
      k[whole ? kDepth : size_t(d)] = it->second + 1;
      if (whole) break;
      at = slash + 1;
    }
  }
  for (int d = 0; d < kDepth; ++d)
    if (k[d]) key_ns_[k[d] - 1] += ns;
  if (dir_op && k[kDepth]) key_ns_[k[kDepth] - 1] += ns;
}

PlacedCounts PlacedPricer::counts() const {
  PlacedCounts c = counts_;
  for (size_t i = 0; i < key_name_.size(); ++i)
    if (key_ns_[i]) c.dir_ns[key_name_[i]] = key_ns_[i];
  return c;
}

}  // namespace fsr

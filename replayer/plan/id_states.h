// SPDX-License-Identifier: Apache-2.0
// State kept per dense id (a plan path, an OFD) for the ids in use lately,
// as the dependency tracker keeps it (dep_tracker.h): found by an index
// array (4 bytes an id) instead of a hash, held in a pool of live entries
// that a sweep walks and gives back. An entry is default-constructed when
// its id is first met and again after the sweep dropped it, as a map's
// operator[] and erase_if would do. References stay valid until the entry
// is dropped (the pool never moves its entries).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

namespace fsr {

template <typename T>
class IdStates {
 public:
  T& operator[](uint32_t id) {
    if (id >= slot_.size()) slot_.resize(std::max<size_t>(size_t{id} + 1, slot_.size() * 2), kFree);
    uint32_t& s = slot_[id];
    if (s == kFree) {
      if (free_.empty()) {
        s = static_cast<uint32_t>(pool_.size());
        pool_.push_back({id, T{}});
      } else {
        s = free_.back();
        free_.pop_back();
        pool_[s].id = id;
      }
    }
    return pool_[s].value;
  }

  // Drops every entry whose state `gone(state)` says is no longer needed.
  template <typename Gone>
  void erase_if(Gone gone) {
    for (uint32_t s = 0; s < pool_.size(); ++s) {
      Entry& e = pool_[s];
      if (e.id == kFree || !gone(static_cast<const T&>(e.value))) continue;
      slot_[e.id] = kFree;
      e.id = kFree;
      e.value = T{};
      free_.push_back(s);
    }
  }

  size_t size() const { return pool_.size() - free_.size(); }

 private:
  static constexpr uint32_t kFree = UINT32_MAX;
  struct Entry {
    uint32_t id;
    T value;
  };
  std::vector<uint32_t> slot_;  // per id: its entry in pool_, kFree if none
  std::deque<Entry> pool_;
  std::vector<uint32_t> free_;
};

}  // namespace fsr

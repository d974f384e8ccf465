// SPDX-License-Identifier: Apache-2.0
#include "recorder/core/string_interner.h"

#include <algorithm>
#include <cstring>

namespace fsr {

StrId StringInterner::intern(std::string_view s) {
  const uint64_t h = std::hash<std::string_view>{}(s);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Slot& x = slots_[i];
    if (x.id == kNoStr) break;
    if (x.hash == h && x.len == s.size() && std::memcmp(x.data, s.data(), s.size()) == 0) return x.id;
  }
  StrId id = fn_(s);
  if (id == kNoStr) return kNoStr;  // (the writer gives no id to an empty string)
  std::string_view stored = store(s);
  auto place = [this](const Slot& x) {
    const size_t m = slots_.size() - 1;
    size_t i = x.hash & m;
    while (slots_[i].id != kNoStr) i = (i + 1) & m;
    slots_[i] = x;
  };
  if (2 * (interned_ + 1) > slots_.size()) {  // keep the table at most half full
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& x : old)
      if (x.id != kNoStr) place(x);
  }
  place({h, stored.data(), static_cast<uint32_t>(stored.size()), id});
  ++interned_;
  if (id >= by_id_.size()) by_id_.resize(std::max<size_t>(id + 1, by_id_.size() * 2));
  by_id_[id] = stored;
  return id;
}

std::string_view StringInterner::store(std::string_view s) {
  if (arena_left_ < s.size()) {
    const size_t block = std::max<size_t>(kArenaBlock, s.size());
    arena_.push_back(std::make_unique_for_overwrite<char[]>(block));
    arena_next_ = arena_.back().get();
    arena_left_ = block;
  }
  char* at = arena_next_;
  std::memcpy(at, s.data(), s.size());
  arena_next_ += s.size();
  arena_left_ -= s.size();
  return {at, s.size()};
}

}  // namespace fsr

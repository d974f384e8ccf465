// SPDX-License-Identifier: Apache-2.0
// StringInterner: the decoder's table of the strings (paths) it has given
// ids to. Each distinct string is handed to the trace writer once (its id
// comes from there) and kept here, packed in blocks, so that a lookup is one
// hash, one probe line and the string's bytes: no allocation per event, only
// per new string (and per 256 KiB of them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "traces/event.h"

namespace fsr {

class StringInterner {
 public:
  // Called once per distinct string; returns its id in the trace
  // (TraceWriter::add_string), kNoStr for none.
  using InternFn = std::function<StrId(std::string_view)>;
  explicit StringInterner(InternFn fn) : fn_(std::move(fn)) {}

  StrId intern(std::string_view s);
  // The string behind an id this interner gave ("" when unknown).
  std::string_view str(StrId id) const { return id < by_id_.size() ? by_id_[id] : std::string_view(); }

 private:
  std::string_view store(std::string_view s);
  InternFn fn_;
  static constexpr size_t kArenaBlock = 256 * 1024;
  std::vector<std::unique_ptr<char[]>> arena_;
  char* arena_next_ = nullptr;
  size_t arena_left_ = 0;
  // Open addressing over flat slots (a node-based map cost several cache
  // misses per lookup). id == kNoStr marks an empty slot.
  struct Slot {
    uint64_t hash = 0;
    const char* data = nullptr;
    uint32_t len = 0;
    StrId id = kNoStr;
  };
  std::vector<Slot> slots_ = std::vector<Slot>(1u << 16);
  size_t interned_ = 0;
  std::vector<std::string_view> by_id_;  // index: StrId
};

}  // namespace fsr

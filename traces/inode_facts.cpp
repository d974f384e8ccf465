// SPDX-License-Identifier: Apache-2.0
#include "traces/inode_facts.h"

#include <algorithm>

namespace fsr {
namespace {

// The slot of `e`'s path, grown on demand; null for an event without a path.
InodeFacts* path_slot(std::vector<InodeFacts>& by_path, const Event& e) {
  if (e.path[0] == kNoStr) return nullptr;
  if (e.path[0] >= by_path.size()) by_path.resize(std::max<size_t>(e.path[0] + 1, by_path.size() * 2));
  return &by_path[e.path[0]];
}

}  // namespace

FactsCode FactsEncoder::code_facts(const Event& e, InodeFacts& thread) {
  InodeFacts* path = path_slot(by_path_, e);
  InodeFacts ref;
  if (path && path->gen == gen_) {
    ref = *path;
  } else {
    ref = thread.gen != 0 ? thread : last_;
    ref.size = 0;
  }
  const InodeFacts now{gen_, e.mode, e.dev, e.ino, e.size};
  if (path) *path = now;
  thread = last_ = now;
  return {true, e.dev ^ ref.dev, static_cast<int64_t>(e.ino - ref.ino), static_cast<int64_t>(e.size - ref.size),
          e.mode ^ ref.mode};
}

void FactsEncoder::next_chunk() {
  ++gen_;
  last_ = {};
}

FactsDecoder::FactsDecoder(FactsScratch& s, FactsCoding coding, bool ino_delta, size_t threads)
    : s_(s), gen_(++s.gen), coding_(coding), ino_delta_(ino_delta) {
  s_.threads.assign(coding == FactsCoding::kThread ? threads : 0, InodeFacts{});
}

void FactsDecoder::decode(Event& e, size_t thread) {
  InodeFacts* path = path_slot(s_.by_path, e);
  const bool by_thread = coding_ == FactsCoding::kThread;
  if (!path && !by_thread) return;  // versions 1 and 2 code only events with a path
  InodeFacts ref;
  if (path && path->gen == gen_) {
    ref = *path;
  } else if (by_thread) {
    ref = s_.threads[thread].gen != 0 ? s_.threads[thread] : last_;
    ref.size = 0;
  } else if (ino_delta_) {
    ref.ino = last_.ino;  // versions 1 and 2: the inode alone, against the previous coded event's
  }
  e.dev ^= ref.dev;
  e.ino = ino_delta_ ? e.ino + ref.ino : e.ino ^ ref.ino;
  e.size += ref.size;
  e.mode ^= ref.mode;
  const InodeFacts now{gen_, e.mode, e.dev, e.ino, e.size};
  if (path) *path = now;
  if (by_thread) s_.threads[thread] = now;
  last_ = now;
}

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// Reference coding of the inode facts (dev, ino, size, mode) that open and
// stat-family events carry (schema.capnp "Inode facts"). The encoder and the
// decoder walk a chunk's events in order and keep the same references, so
// that the columns hold differences that are mostly zero. References never
// cross a chunk: chunks decode on their own. Neither allocates per event once
// the per-path table has grown to the largest path id.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "traces/event.h"

namespace fsr {

// One event's facts as a reference for later ones. `gen` tags the chunk a
// per-path slot belongs to (slots are never cleared); 0 = no facts yet.
struct InodeFacts {
  uint32_t gen = 0;
  uint32_t mode = 0;
  uint64_t dev = 0, ino = 0, size = 0;
};

// What the dev, ino, size and mode columns hold for one event; `coded` is
// the flag bit that says so (false: the event has no facts, all zero).
struct FactsCode {
  bool coded = false;
  uint64_t dev = 0;
  int64_t ino = 0;
  int64_t size = 0;
  uint32_t mode = 0;
};

// Writes the format-3 coding: against the facts of the event's path earlier
// in the chunk, else the thread's previous facts (size against zero: the
// sizes of different files are no closer than their magnitudes).
class FactsEncoder {
 public:
  // `thread`: the facts slot of the event's thread for this chunk.
  FactsCode code(const Event& e, InodeFacts& thread) {
    if ((e.dev | e.ino | e.size | e.mode) == 0) return {};  // most events: inline
    return code_facts(e, thread);
  }
  // The next events start a new chunk.
  void next_chunk();

 private:
  FactsCode code_facts(const Event& e, InodeFacts& thread);
  std::vector<InodeFacts> by_path_;
  uint32_t gen_ = 1;
  InodeFacts last_;  // the chunk's previous facts: a thread's first reference
};

enum class FactsCoding {
  kPrevious,  // format versions 1 and 2: a path new to the chunk against the previous coded event's inode
  kThread,    // format version 3: against the thread's previous facts (FactsEncoder)
};

// Per-reader state, reused chunk after chunk.
struct FactsScratch {
  std::vector<InodeFacts> by_path, threads;
  uint32_t gen = 0;
};

class FactsDecoder {
 public:
  // For one chunk of `threads` threads. `ino_delta`: the chunk stores the
  // inode as a difference (kEcInoDelta), else XOR-coded (kEcIno, early version 1).
  FactsDecoder(FactsScratch& s, FactsCoding coding, bool ino_delta, size_t threads);
  // `e` holds the columns' values of an event whose flag says it is coded
  // (the inode unzigzagged if a difference) and path ids below the string
  // table's size; replaces them with the facts. `thread` < `threads`.
  void decode(Event& e, size_t thread);

 private:
  FactsScratch& s_;
  const uint32_t gen_;
  const FactsCoding coding_;
  const bool ino_delta_;
  InodeFacts last_;
};

}  // namespace fsr

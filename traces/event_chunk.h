// SPDX-License-Identifier: Apache-2.0
// Encodes and decodes one chunk of recorded events (schema.capnp "Chunk",
// thread-major columns, quantised timing, inode facts by thread). The
// encoder is reused chunk after chunk: after warm-up, adding an event does
// not allocate. The decoder validates every count against the frame's limits.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "traces/chunk_message.h"
#include "traces/event.h"

namespace fsr {

class EventChunkEncoder {
 public:
  void add(const Event& e);
  uint32_t size() const { return count_; }
  // Serialises the chunk (columns compressed) as a capnp message; clears the encoder.
  void finish(Compressor& z, uint64_t first_record, std::vector<uint8_t>& out);

 private:
  // Timing state of a thread (schema.capnp "Timing quantisation"): its
  // previous end as decoded and in truth, and what its durations so far lost
  // to rounding. Carried from chunk to chunk.
  struct ThreadTiming {
    uint64_t end = 0, true_end = 0;
    int64_t dur_residual = 0;
  };
  struct ThreadSlot {
    uint32_t pid, tid;
    ThreadTiming timing;
    uint64_t prev_end;  // timing.end when the chunk started: Thread.prevEnd
    uint32_t last_path;
    bool exited;
    InodeFacts facts;     // the thread's previous facts in the chunk (FactsEncoder)
    ColumnBuilder* cols;  // its part of each thread-major column (in_use_)
  };
  // A thread's part of the thread-major columns (all but kEcThread). A thread
  // that has not exited keeps its own from chunk to chunk (parked_), so a busy
  // thread's buffers stay as large as it needs; exited threads' go to spare_
  // for new threads. (Handing them out by slot number instead made a busy
  // thread regrow 20 columns whenever it landed on a quiet thread's slot.)
  struct ThreadColumns {
    ColumnBuilder cols[kEcCount];
  };
  static constexpr size_t kMaxPooledThreads = 4096;     // parked + spare beyond this are freed
  std::vector<std::unique_ptr<ThreadColumns>> in_use_;  // by thread slot of this chunk
  std::unordered_map<uint64_t, std::unique_ptr<ThreadColumns>> parked_;
  std::vector<std::unique_ptr<ThreadColumns>> spare_;
  uint32_t thread_index(const Event& e);
  // What a thread's part of each column came to, averaged over the threads
  // that exited lately: a new thread's buffers start that large, instead of
  // doubling from 64 bytes (a chunk of short-lived threads, such as
  // `git status`'s, had spent much of the drain in malloc and copies).
  size_t len_hint_[kEcCount] = {};
  FactsEncoder facts_;
  uint32_t max_path_ = 0;   // largest path id seen so far: ids are interned in order
  uint32_t base_path_ = 0;  // max_path_ when the chunk started
  ColumnBuilder cols_[kEcCount];
  std::vector<ThreadSlot> threads_;
  std::unordered_map<uint64_t, uint32_t> thread_map_;
  // Timing state of the threads of earlier chunks that have not exited.
  // Bounded: past kMaxCarriedThreads it is cleared, and a thread then starts
  // again from its exact enter time (only a thread that enters within 768 ns
  // of its previous end can then appear to overlap it).
  static constexpr size_t kMaxCarriedThreads = 1u << 18;
  std::unordered_map<uint64_t, ThreadTiming> carried_;
  uint32_t last_thread_ = UINT32_MAX;
  uint64_t base_ts_ = 0;
  uint32_t count_ = 0;
  std::vector<uint8_t> zbuf_;
  std::vector<uint64_t> segment_;
};

// `string_count`: path ids must be below it (the reader's string table size).
Status decode_event_chunk(std::span<const capnp::word> msg, Decompressor& z, ChunkScratch& s, std::vector<Event>& out,
                          uint64_t* first_record, size_t string_count);

}  // namespace fsr

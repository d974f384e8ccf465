// SPDX-License-Identifier: Apache-2.0
// What the chunk kinds share (schema.capnp "Chunk"): the message built from
// column builders, its serialisation into a reused buffer, and the reading
// of its columns back, validated against the frame's limits. The kinds
// themselves: event_chunk.h (recorded events), op_chunk.h (replayed ops).
#pragma once

#include <capnp/common.h>
#include <capnp/message.h>

#include <cstdint>
#include <vector>

#include "schema.capnp.h"
#include "traces/columns.h"
#include "traces/inode_facts.h"
#include "base/status.h"

namespace fsr {

// Decoding state reused chunk after chunk (decoders take the capnp message as
// words; the frame's limits bound allocation).
struct ChunkScratch {
  std::vector<uint8_t> raw;
  std::vector<std::vector<uint64_t>> cols;  // decoded columns, reused chunk after chunk
  std::vector<bool> present;                // which columns the chunk stored
  FactsScratch facts;
  std::vector<uint32_t> event_at, cursor;  // thread-major columns back in event order
};

// Reader options for untrusted messages of `words` words.
capnp::ReaderOptions untrusted_options(size_t words);

// Builds the Chunk message from the column builders (column 0 is never stored).
void build_chunk(capnp::MallocMessageBuilder& mb, ColumnBuilder* cols, int ncols, uint32_t count, uint64_t first_record,
                 uint64_t base_ts, Compressor& z, std::vector<uint8_t>& zbuf);
// Serialises into `out` (reused) without a temporary flat array.
void serialise(capnp::MallocMessageBuilder& mb, std::vector<uint8_t>& out);
// A first segment that is reused chunk after chunk, so that building a chunk
// message does not map and fault in fresh pages every time.
kj::ArrayPtr<capnp::word> first_segment(std::vector<uint64_t>& buf, size_t want_words);
// A first segment's size in words for these columns.
size_t estimate_words(const ColumnBuilder* cols, int ncols);

// Reads the columns of a chunk into `s.cols[id]` (absent = all zeros), in
// record order. With `thread_major` (event chunks of format 3), every column
// but kEcThread holds each thread's values together (columns.h): the thread
// column is read first, and the others are put back in event order as they
// are decoded, so that decoding then reads every column front to back.
Status read_columns(wire::Chunk::Reader chunk, int ncols, Decompressor& z, ChunkScratch& s, bool thread_major,
                    size_t threads);

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// Encodes and decodes one chunk of replayed ops (schema.capnp "Chunk", op
// columns). The encoder is reused chunk after chunk; the decoder validates
// every count against the frame's limits.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "traces/chunk_message.h"
#include "traces/event.h"

namespace fsr {

class OpChunkEncoder {
 public:
  void add(const OpRecord& op);
  uint32_t size() const { return count_; }
  void finish(Compressor& z, uint64_t first_record, std::vector<uint8_t>& out);

 private:
  ColumnBuilder cols_[kOcCount];
  uint64_t prev_index_ = 0, prev_start_ = 0;
  uint32_t count_ = 0;
  std::vector<uint8_t> zbuf_;
  std::vector<uint64_t> segment_;
};

Status decode_op_chunk(std::span<const capnp::word> msg, Decompressor& z, ChunkScratch& s, std::vector<OpRecord>& out,
                       uint64_t* first_record);

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// One fsreplay file opened for reading by frame: positioned reads, one
// frame's payload checked (CRC-32C) and decompressed into capnp words, and a
// resync that finds the next valid frame header after damage. TraceReader
// (trace_reader.h) walks the frames; this holds the bytes.
#pragma once

#include <capnp/common.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "traces/chunk_message.h"
#include "traces/columns.h"
#include "traces/frame.h"
#include "base/unique_fd.h"

namespace fsr {

struct FrameFile {
  std::string path;
  UniqueFd fd;
  uint64_t size = 0;
  Decompressor z;
  ChunkScratch scratch;
  std::vector<uint8_t> payload;
  std::vector<uint64_t> words;  // capnp words (capnp::word is not movable under clang's libstdc++ checks)

  void refresh_size();
  bool pread_all(void* buf, size_t n, uint64_t off);

  enum class Got { kFrame, kEnd, kPartial, kBadHeader, kBadPayload };
  // Reads the frame at `off` into `words` (decompressed capnp message).
  Got read_frame(uint64_t off, FrameHeader& h, std::string& why);
  // The next offset after `off` holding a valid frame header, or 0.
  uint64_t resync(uint64_t off);

  std::span<const capnp::word> msg() const {
    static_assert(sizeof(capnp::word) == sizeof(uint64_t));
    return {reinterpret_cast<const capnp::word*>(words.data()), words.size()};
  }
};

}  // namespace fsr

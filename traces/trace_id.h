// SPDX-License-Identifier: Apache-2.0
// A trace's content id: 64 bits that name one recording, so that a replay
// result can say which trace it replayed and `compare`/`report` can refuse
// to set results of different workloads side by side. The reader computes it
// from the stored bytes (trace_reader.h trace_id()): the file header, the
// whole header frame (host, clock pair at start, command: what tells two
// recordings of one workload apart) and every other frame's type, length,
// record count and stored CRC-32C (what tells their contents apart). The
// same bytes give the same id in every format version the reader reads; a
// copy of a file keeps its id. Not a security measure: it catches mix-ups,
// not forgeries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fsr {

// 0 means "no id" (a result written before results carried one).
inline constexpr uint64_t kNoTraceId = 0;

// Order-sensitive 64-bit hash of words and byte strings (each step a
// bijective mix of the state, so that no input is lost to the next).
class TraceIdHasher {
 public:
  void add(uint64_t word);
  void add_bytes(const void* data, size_t len);
  // Never kNoTraceId.
  uint64_t value() const;

 private:
  uint64_t state_ = 0x6673726570696431ull;  // "fsrepid1"
};

// 16 lowercase hex digits; "none" for kNoTraceId.
std::string format_trace_id(uint64_t id);
// The inverse (16 hex digits, either case); nullopt otherwise.
std::optional<uint64_t> parse_trace_id(std::string_view text);

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// Conversions between the plain C++ model (trace_model.h) and the Cap'n Proto
// wire messages for every frame that is not a chunk. Decoders treat their
// input as untrusted: a malformed message is an error, never a crash.
#pragma once

#include <capnp/common.h>

#include <span>
#include <string>
#include <vector>

#include "traces/columns.h"
#include "base/status.h"
#include "traces/trace_model.h"

namespace fsr {

struct IndexRecord {
  uint64_t offset = 0;
  uint16_t type = 0;
  uint32_t records = 0;
  uint64_t first_record = 0;
};

void encode_header(const TraceHeader& h, std::vector<uint8_t>& out);
void encode_footer(const TraceFooter& f, std::vector<uint8_t>& out);
// String blocks in sorted coding (schema.capnp "StringBlock"), columns compressed with `z`:
// the frame itself need not be.
void encode_strings(uint32_t first_id, std::span<const std::string_view> strings, Compressor& z,
                    std::vector<uint8_t>& out);
void encode_prestate(std::span<const PrestateEntry> entries, std::vector<uint8_t>& out);
void encode_index(std::span<const IndexRecord> entries, uint64_t total_records, std::vector<uint8_t>& out);

Status decode_header(std::span<const capnp::word> msg, TraceHeader& h);
Status decode_footer(std::span<const capnp::word> msg, TraceFooter& f);
// Appends the strings of a block in any of the codings; checks that they
// continue the table (first id == size). `z` decompresses sorted-coded columns.
Status decode_strings(std::span<const capnp::word> msg, Decompressor& z, std::vector<std::string>& table);
Status decode_prestate(std::span<const capnp::word> msg, std::vector<PrestateEntry>& out);
Status decode_index(std::span<const capnp::word> msg, std::vector<IndexRecord>& out, uint64_t* total);

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
#include "traces/chunk_message.h"

#include <capnp/serialize.h>

#include <algorithm>
#include <string>

#include "traces/frame.h"

namespace fsr {

capnp::ReaderOptions untrusted_options(size_t words) {
  capnp::ReaderOptions o;
  o.traversalLimitInWords = words * 4 + 1024;
  o.nestingLimit = 16;
  return o;
}

void build_chunk(capnp::MallocMessageBuilder& mb, ColumnBuilder* cols, int ncols, uint32_t count, uint64_t first_record,
                 uint64_t base_ts, Compressor& z, std::vector<uint8_t>& zbuf) {
  auto chunk = mb.initRoot<wire::Chunk>();
  chunk.setCount(count);
  chunk.setFirstRecord(first_record);
  chunk.setBaseTs(base_ts);
  int used = 0;
  for (int c = 1; c < ncols; ++c)
    if (!cols[c].all_zero()) ++used;
  auto list = chunk.initColumns(used);
  int i = 0;
  for (int c = 1; c < ncols; ++c) {
    if (cols[c].all_zero()) continue;
    z.compress(cols[c].bytes(), zbuf);
    auto col = list[i++];
    col.setId(static_cast<uint16_t>(c));
    col.setRawBytes(static_cast<uint32_t>(cols[c].bytes().size()));
    col.setData(kj::arrayPtr(zbuf.data(), zbuf.size()));
  }
}

void serialise(capnp::MallocMessageBuilder& mb, std::vector<uint8_t>& out) {
  size_t words = capnp::computeSerializedSizeInWords(mb);
  out.resize(words * sizeof(capnp::word));
  kj::ArrayOutputStream os(kj::arrayPtr(out.data(), out.size()));
  capnp::writeMessage(os, mb);
}

kj::ArrayPtr<capnp::word> first_segment(std::vector<uint64_t>& buf, size_t want_words) {
  if (buf.size() < want_words) buf.resize(want_words);
  std::fill(buf.begin(), buf.begin() + static_cast<long>(want_words), 0);  // capnp requires zeroed segments
  return kj::arrayPtr(reinterpret_cast<capnp::word*>(buf.data()), want_words);
}

size_t estimate_words(const ColumnBuilder* cols, int ncols) {
  size_t bytes = 4096;
  for (int c = 1; c < ncols; ++c) bytes += cols[c].bytes().size() / 2 + 64;
  return bytes / 8;
}

Status read_columns(wire::Chunk::Reader chunk, int ncols, Decompressor& z, ChunkScratch& s, bool thread_major,
                    size_t threads) {
  auto& cols = s.cols;
  const uint32_t count = chunk.getCount();
  if (count > kMaxChunkRecords)
    return Status::error("chunk claims " + std::to_string(count) + " records (limit " +
                         std::to_string(kMaxChunkRecords) + ")");
  cols.resize(ncols);
  for (auto& c : cols) c.clear();
  auto& present = s.present;
  present.assign(ncols, false);
  auto read = [&](wire::Column::Reader col, uint16_t id, const uint32_t* to) {
    uint64_t raw = col.getRawBytes();
    if (raw > static_cast<uint64_t>(count) * 10)
      return Status::error("column " + std::to_string(id) + " claims " + std::to_string(raw) + " bytes for " +
                           std::to_string(count) + " values");
    auto data = col.getData();
    if (Status st = z.decompress({data.begin(), data.size()}, raw, s.raw); !st)
      return Status::error("column " + std::to_string(id) + ": " + st.message());
    if (present[id]) return Status::error("column " + std::to_string(id) + " appears twice");
    present[id] = true;
    if (Status st = decode_column(s.raw, count, cols[id], to); !st)
      return Status::error("column " + std::to_string(id) + ": " + st.message());
    return Status::ok();
  };
  const uint32_t* to = nullptr;
  if (thread_major) {
    for (auto col : chunk.getColumns())
      if (col.getId() == kEcThread) FSR_RETURN_IF_ERROR(read(col, kEcThread, nullptr));
    if (!present[kEcThread]) cols[kEcThread].assign(count, 0);
    if (!thread_major_events(cols[kEcThread], threads, s.event_at, s.cursor))
      return Status::error("an event names a thread beyond the chunk's " + std::to_string(threads));
    to = s.event_at.data();
  }
  for (auto col : chunk.getColumns()) {
    uint16_t id = col.getId();
    if (id == 0 || id >= ncols) continue;           // unknown column from a newer writer: ignore
    if (thread_major && id == kEcThread) continue;  // read above
    FSR_RETURN_IF_ERROR(read(col, id, to));
  }
  // Omitted columns are all zeros: materialise them so decoding never branches per value.
  for (int c = 1; c < ncols; ++c)
    if (!present[c]) cols[c].assign(count, 0);
  return Status::ok();
}

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// TraceReader's random access (trace_reader.h): the frame index (from the
// trailer, or a scan of a file without one), and what is read through it:
// chunks by number, the prestate, frames of a type, the content id. The
// sequential read is trace_reader.cpp.
#include "traces/trace_reader.h"

#include <cstring>

#include "traces/event_chunk.h"
#include "traces/model_codec.h"
#include "traces/op_chunk.h"
#include "traces/trace_id.h"
#include "traces/trace_reader_impl.h"

namespace fsr {

// Builds `index` from the trailer's index frame, or by scanning frame headers.
Status TraceReader::Impl::build_index() {
  if (index_built) return Status::ok();
  refresh_size();
  index.clear();
  if (size >= kFileHeaderSize + kTrailerSize) {
    uint8_t tr[kTrailerSize];
    uint64_t idx_off = 0;
    if (pread_all(tr, sizeof tr, size - kTrailerSize) && std::memcmp(tr + 8, kTrailerMagic, 8) == 0) {
      std::memcpy(&idx_off, tr, 8);
      FrameHeader h;
      std::string why;
      if (idx_off < size && read_frame(idx_off, h, why) == Got::kFrame && h.type == FrameType::kIndex) {
        uint64_t total = 0;
        if (decode_index(msg(), index, &total)) {
          index_built = true;
          return Status::ok();
        }
        index.clear();
      }
    }
  }
  // No usable index: scan headers (payloads are checked when read).
  for (uint64_t off = kFileHeaderSize; off + kFrameHeaderSize <= size;) {
    uint8_t hb[kFrameHeaderSize];
    if (!pread_all(hb, sizeof hb, off)) break;
    auto h = decode_frame_header(hb);
    if (!h) {
      uint64_t n = resync(off);
      if (!n) break;
      off = n;
      continue;
    }
    if (off + kFrameHeaderSize + h->payload_len > size) {
      cut_type = static_cast<uint16_t>(h->type);
      cut_offset = off;
      break;
    }
    index.push_back({off, static_cast<uint16_t>(h->type), h->records, 0});
    off += kFrameHeaderSize + h->payload_len;
  }
  index_built = true;
  return Status::ok();
}

Status TraceReader::Impl::load_all_strings() {
  FSR_RETURN_IF_ERROR(build_index());
  for (const auto& e : index) {
    if (e.type != static_cast<uint16_t>(FrameType::kStrings)) continue;
    FrameHeader h;
    std::string why;
    if (read_frame(e.offset, h, why) != Got::kFrame) {
      problems.messages.push_back(path + ": string block at offset " + std::to_string(e.offset) +
                                  " unreadable: " + why);
      return Status::error(problems.messages.back());
    }
    if (Status st = decode_strings(msg(), z, strings); !st) return Status::error(path + ": " + st.message());
  }
  return Status::ok();
}

std::vector<size_t> TraceReader::Impl::chunk_frames() const {
  std::vector<size_t> v;
  for (size_t i = 0; i < index.size(); ++i)
    if (index[i].type == static_cast<uint16_t>(FrameType::kEvents) ||
        index[i].type == static_cast<uint16_t>(FrameType::kOps))
      v.push_back(i);
  return v;
}

template <typename Rec>
Result<bool> TraceReader::Impl::read_chunk(size_t i, std::vector<Rec>& out) {
  out.clear();
  FSR_RETURN_IF_ERROR(load_all_strings());
  auto chunks = chunk_frames();
  if (i >= chunks.size()) return false;
  FrameHeader h;
  std::string why;
  const IndexRecord& e = index[chunks[i]];
  std::string where = path + ": chunk " + std::to_string(i) + " (offset " + std::to_string(e.offset) + ")";
  if (read_frame(e.offset, h, why) != Got::kFrame)
    return Status::error(where + ": " + (why.empty() ? "unreadable" : why));
  Status st;
  if constexpr (std::is_same_v<Rec, Event>) {
    if (h.type != FrameType::kEvents) return Status::error(where + ": not a trace chunk");
    st = decode_event_chunk(msg(), z, scratch, out, nullptr, strings.size());
    if (st) clamp_times(out);
  } else {
    if (h.type != FrameType::kOps) return Status::error(where + ": not a result chunk");
    st = decode_op_chunk(msg(), z, scratch, out, nullptr);
  }
  if (!st) return Status::error(where + ": " + st.message());
  return true;
}

uint64_t TraceReader::Impl::compute_id() {
  if (id != kNoTraceId) return id;
  TraceIdHasher h;
  uint8_t fh[kFileHeaderSize];
  if (pread_all(fh, sizeof fh, 0)) h.add_bytes(fh, sizeof fh);
  (void)build_index();
  std::vector<uint8_t> bytes;
  for (const IndexRecord& e : index) {
    if (e.type == static_cast<uint16_t>(FrameType::kIndex)) continue;  // derived from the others
    uint8_t hb[kFrameHeaderSize];
    std::optional<FrameHeader> fr;
    if (pread_all(hb, sizeof hb, e.offset)) fr = decode_frame_header(hb);
    if (!fr) {
      h.add(UINT64_MAX);
      continue;
    }
    h.add(static_cast<uint64_t>(fr->type) << 48 | static_cast<uint64_t>(fr->encoding) << 32 | fr->records);
    h.add(static_cast<uint64_t>(fr->payload_len) << 32 | fr->payload_crc);
    if (fr->type == FrameType::kHeader) {  // the recording's identity: host, start times, command
      bytes.resize(fr->payload_len);
      if (pread_all(bytes.data(), bytes.size(), e.offset + kFrameHeaderSize)) h.add_bytes(bytes.data(), bytes.size());
    }
  }
  id = h.value();
  return id;
}

Result<std::vector<PrestateEntry>> TraceReader::prestate() {
  std::vector<PrestateEntry> out;
  FSR_RETURN_IF_ERROR(for_each_prestate([&](std::span<const PrestateEntry> block) {
    out.insert(out.end(), block.begin(), block.end());
    return Status::ok();
  }));
  return out;
}

Result<uint64_t> TraceReader::for_each_prestate(const std::function<Status(std::span<const PrestateEntry>)>& fn) {
  Impl& m = *impl_;
  FSR_RETURN_IF_ERROR(m.build_index());
  std::vector<PrestateEntry> block;
  uint64_t n = 0, blocks = 0;
  for (const auto& e : m.index) {
    if (e.type != static_cast<uint16_t>(FrameType::kPrestate)) continue;
    FrameHeader h;
    std::string why;
    const std::string where =
        m.path + ": prestate block " + std::to_string(blocks) + " at offset " + std::to_string(e.offset);
    if (m.read_frame(e.offset, h, why) != FrameFile::Got::kFrame)
      return Status::error(where + " unreadable" + (why.empty() ? "" : ": " + why) + " (" + std::to_string(n) +
                           " entries read before it); the tree cannot be made whole: check it with "
                           "'fsreplay inspect' or record the trace again");
    block.clear();
    if (Status st = decode_prestate(m.msg(), block); !st) return Status::error(where + ": " + st.message());
    FSR_RETURN_IF_ERROR(fn(std::span<const PrestateEntry>(block)));
    n += block.size();
    ++blocks;
  }
  if (m.cut_type == static_cast<uint16_t>(FrameType::kPrestate))
    return Status::error(m.path + ": the file ends inside its prestate (block " + std::to_string(blocks) +
                         " at offset " + std::to_string(m.cut_offset) + " is cut short at byte " +
                         std::to_string(m.size) + "; writer killed or disk full): only " + std::to_string(n) +
                         " entries of the initial tree are readable, and no events; check it with "
                         "'fsreplay inspect' or record the trace again");
  return n;
}

Result<uint64_t> TraceReader::prestate_count() {
  FSR_RETURN_IF_ERROR(impl_->build_index());
  uint64_t n = 0;
  for (const auto& e : impl_->index)
    if (e.type == static_cast<uint16_t>(FrameType::kPrestate)) n += e.records;
  return n;
}

Result<size_t> TraceReader::chunk_count() {
  FSR_RETURN_IF_ERROR(impl_->build_index());
  return impl_->chunk_frames().size();
}
Result<uint64_t> TraceReader::record_count() {
  FSR_RETURN_IF_ERROR(impl_->build_index());
  uint64_t n = 0;
  for (size_t i : impl_->chunk_frames()) n += impl_->index[i].records;
  return n;
}
Result<bool> TraceReader::read_chunk(size_t i, std::vector<Event>& out) { return impl_->read_chunk(i, out); }
Result<bool> TraceReader::read_chunk(size_t i, std::vector<OpRecord>& out) { return impl_->read_chunk(i, out); }

Result<size_t> TraceReader::for_each_frame(FrameType type, const std::function<Status(std::span<const uint64_t>)>& fn) {
  Impl& m = *impl_;
  FSR_RETURN_IF_ERROR(m.build_index());
  size_t n = 0;
  for (const auto& e : m.index) {
    if (e.type != static_cast<uint16_t>(type)) continue;
    FrameHeader h;
    std::string why;
    if (m.read_frame(e.offset, h, why) != FrameFile::Got::kFrame)
      return Status::error(m.path + ": " + frame_type_name(type) + " frame at offset " + std::to_string(e.offset) +
                           " unreadable" + (why.empty() ? " (cut short)" : ": " + why));
    FSR_RETURN_IF_ERROR(fn(std::span<const uint64_t>(m.words.data(), m.words.size())));
    ++n;
  }
  return n;
}

uint64_t TraceReader::trace_id() { return impl_->compute_id(); }

}  // namespace fsr

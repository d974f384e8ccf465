// SPDX-License-Identifier: Apache-2.0
#include "traces/trace_writer.h"

#include <algorithm>
#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <unordered_map>

#include "base/crc32c.h"
#include "traces/event_chunk.h"
#include "traces/frame.h"
#include "traces/model_codec.h"
#include "traces/op_chunk.h"
#include "traces/string_coding.h"

namespace fsr {

namespace {
constexpr size_t kPrestateBlock = 4096;                           // entries per prestate frame
constexpr size_t kStringBlockBytes = 4u << 20;                    // flush strings before they get large
constexpr uint64_t kStringBlockSplit = kMaxStringBlockBytes / 4;  // strings interned without events between flushes
static_assert(kStringBlockBytes < kStringBlockSplit);
// The header and footer frames: written once and small (the header's mount
// table is ~5 KB raw; at level 1 its frame is 0.3 B/event of a git status trace).
constexpr int kOnceLevel = 19;
}  // namespace

struct TraceWriter::Impl {
  explicit Impl(int zstd_level) : z(zstd_level) {}
  std::string path;
  int fd = -1;
  TraceHeader header;
  WriterOptions opt;
  Compressor z;
  uint64_t offset = 0;
  uint64_t records = 0;
  std::vector<IndexRecord> index;
  Status error;  // first write error: every later call returns it

  // Strings: storage is stable (deque), the map keys view into it.
  std::deque<std::string> strings{""};  // id 0 = none
  std::unordered_map<std::string_view, StrId> string_ids;
  size_t strings_flushed = 1;
  size_t pending_string_bytes = 0;
  std::vector<std::string_view> string_views;  // one block being written

  std::vector<PrestateEntry> prestate;
  EventChunkEncoder events;
  OpChunkEncoder ops;
  std::vector<uint8_t> msg, payload;

  ~Impl() {
    if (fd >= 0) ::close(fd);
  }

  Status write_all(const void* a, size_t na, const void* b, size_t nb) {
    iovec iov[2] = {{const_cast<void*>(a), na}, {const_cast<void*>(b), nb}};
    size_t total = na + nb, done = 0;
    while (done < total) {
      ssize_t w = ::writev(fd, iov, 2);
      if (w < 0) {
        if (errno == EINTR) continue;
        return Status::error(path + ": write failed: " + std::strerror(errno) +
                             " (disk full? the file holds every frame before this one)");
      }
      done += static_cast<size_t>(w);
      for (auto& v : iov) {
        size_t take = std::min(v.iov_len, static_cast<size_t>(w));
        v.iov_base = static_cast<char*>(v.iov_base) + take;
        v.iov_len -= take;
        w -= static_cast<ssize_t>(take);
      }
    }
    offset += total;
    return Status::ok();
  }

  // Writes one frame, zstd(capnp) with `compress`, else plain capnp.
  Status write_frame(FrameType type, const std::vector<uint8_t>& raw, uint32_t nrecords, Compressor* compress,
                     uint64_t first_record = 0) {
    if (!error.is_ok()) return error;
    FrameHeader h;
    h.type = type;
    h.raw_len = static_cast<uint32_t>(raw.size());
    h.records = nrecords;
    const std::vector<uint8_t>* body = &raw;
    if (compress) {
      compress->compress(raw, payload);
      body = &payload;
      h.encoding = FrameEncoding::kZstdCapnp;
    } else {
      h.encoding = FrameEncoding::kCapnp;
    }
    if (raw.size() > kMaxFrameRaw || body->size() > kMaxFramePayload)
      throw std::logic_error("frame over the container limit: writer bug");
    h.payload_len = static_cast<uint32_t>(body->size());
    h.payload_crc = crc32c(body->data(), body->size());
    uint8_t hdr[kFrameHeaderSize];
    encode_frame_header(h, hdr);
    index.push_back({offset, static_cast<uint16_t>(type), nrecords, first_record});
    Status st = write_all(hdr, sizeof hdr, body->data(), body->size());
    if (!st) error = st;
    return st;
  }

  // Writes the strings interned since the last flush, in blocks that stay far
  // below what a reader accepts (kMaxStringBlockBytes, counted the same way).
  Status flush_strings() {
    while (strings_flushed < strings.size()) {
      string_views.clear();
      uint64_t bytes = 0;
      for (size_t i = strings_flushed; i < strings.size(); ++i) {
        bytes += strings[i].size() + kStringOverhead;
        if ((bytes > kStringBlockSplit || string_views.size() == kMaxStringBlockStrings) && !string_views.empty())
          break;
        string_views.push_back(strings[i]);
      }
      encode_strings(static_cast<uint32_t>(strings_flushed), string_views, z, msg);
      Status st = write_frame(FrameType::kStrings, msg, static_cast<uint32_t>(string_views.size()), nullptr);
      strings_flushed += string_views.size();
      FSR_RETURN_IF_ERROR(st);
    }
    pending_string_bytes = 0;
    return Status::ok();
  }

  Status flush_prestate() {
    if (prestate.empty()) return Status::ok();
    encode_prestate(prestate, msg);
    Status st = write_frame(FrameType::kPrestate, msg, static_cast<uint32_t>(prestate.size()), &z);
    prestate.clear();
    return st;
  }

  Status flush_chunk() {
    FSR_RETURN_IF_ERROR(flush_prestate());
    FSR_RETURN_IF_ERROR(flush_strings());
    if (events.size() > 0) {
      uint32_t n = events.size();
      events.finish(z, records - n, msg);
      return write_frame(FrameType::kEvents, msg, n, nullptr, records - n);
    }
    if (ops.size() > 0) {
      uint32_t n = ops.size();
      ops.finish(z, records - n, msg);
      return write_frame(FrameType::kOps, msg, n, nullptr, records - n);
    }
    return Status::ok();
  }
};

TraceWriter::TraceWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TraceWriter::~TraceWriter() = default;

Result<std::unique_ptr<TraceWriter>> TraceWriter::create(const std::string& path, const TraceHeader& header,
                                                         WriterOptions options) {
  if (options.chunk_events == 0 || options.chunk_events > kMaxChunkRecords)
    return Status::error("chunk size must be 1.." + std::to_string(kMaxChunkRecords) + " records");
  auto impl = std::make_unique<Impl>(options.zstd_level);
  impl->path = path;
  impl->header = header;
  impl->header.format_version = kFormatVersion;
  impl->opt = options;
  impl->string_ids.emplace(impl->strings.front(), 0);
  impl->fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (impl->fd < 0)
    return Status::error(path + ": cannot create: " + std::strerror(errno) +
                         " (check the directory exists and is writable)");
  uint8_t fh[kFileHeaderSize];
  encode_file_header(fh, kFormatVersion, static_cast<uint16_t>(header.kind));
  FSR_RETURN_IF_ERROR(impl->write_all(fh, sizeof fh, nullptr, 0));
  encode_header(impl->header, impl->msg);
  Compressor once(kOnceLevel);
  FSR_RETURN_IF_ERROR(impl->write_frame(FrameType::kHeader, impl->msg, 1, &once));
  return std::unique_ptr<TraceWriter>(new TraceWriter(std::move(impl)));
}

StrId TraceWriter::intern(std::string_view s) {
  Impl& m = *impl_;
  if (s.empty()) return kNoStr;
  auto it = m.string_ids.find(s);
  if (it != m.string_ids.end()) return it->second;
  StrId id = add_string(s);
  m.string_ids.emplace(m.strings.back(), id);
  return id;
}

StrId TraceWriter::add_string(std::string_view s) {
  Impl& m = *impl_;
  if (s.empty()) return kNoStr;
  StrId id = static_cast<StrId>(m.strings.size());
  m.strings.emplace_back(s);
  m.pending_string_bytes += s.size() + kStringOverhead;
  return id;
}

Status TraceWriter::add_prestate(const PrestateEntry& entry) {
  Impl& m = *impl_;
  if (!m.error.is_ok()) return m.error;
  m.prestate.push_back(entry);
  if (m.prestate.size() >= kPrestateBlock) return m.flush_prestate();
  return Status::ok();
}

Status TraceWriter::append(const Event& event) {
  Impl& m = *impl_;
  if (m.header.kind != PayloadKind::kTrace) throw std::logic_error("append(Event) on a result file");
  if (!m.error.is_ok()) return m.error;
  m.events.add(event);
  ++m.records;
  if (m.events.size() >= m.opt.chunk_events || m.pending_string_bytes > kStringBlockBytes) return m.flush_chunk();
  return Status::ok();
}

Status TraceWriter::append(const OpRecord& op) {
  Impl& m = *impl_;
  if (m.header.kind != PayloadKind::kResult) throw std::logic_error("append(OpRecord) on a trace file");
  if (!m.error.is_ok()) return m.error;
  m.ops.add(op);
  ++m.records;
  if (m.ops.size() >= m.opt.chunk_events || m.pending_string_bytes > kStringBlockBytes) return m.flush_chunk();
  return Status::ok();
}

Status TraceWriter::append_frame(FrameType type, const std::vector<uint8_t>& capnp_message, uint32_t records) {
  Impl& m = *impl_;
  FSR_RETURN_IF_ERROR(m.flush_chunk());
  return m.write_frame(type, capnp_message, records, &m.z);
}

Status TraceWriter::flush() { return impl_->flush_chunk(); }

Status TraceWriter::finish(const TraceFooter& footer) {
  Impl& m = *impl_;
  FSR_RETURN_IF_ERROR(m.flush_chunk());
  encode_footer(footer, m.msg);
  Compressor once(kOnceLevel);
  FSR_RETURN_IF_ERROR(m.write_frame(FrameType::kFooter, m.msg, 0, &once));
  uint64_t index_offset = m.offset;
  std::vector<IndexRecord> idx = m.index;  // the index frame does not list itself
  encode_index(idx, m.records, m.msg);
  FSR_RETURN_IF_ERROR(m.write_frame(FrameType::kIndex, m.msg, static_cast<uint32_t>(idx.size()), &m.z));
  uint8_t trailer[kTrailerSize];
  std::memcpy(trailer, &index_offset, 8);
  std::memcpy(trailer + 8, kTrailerMagic, 8);
  FSR_RETURN_IF_ERROR(m.write_all(trailer, sizeof trailer, nullptr, 0));
  if (::fsync(m.fd) != 0 && errno != EINVAL) return Status::error(m.path + ": fsync failed: " + std::strerror(errno));
  ::close(m.fd);
  m.fd = -1;
  m.error = Status::error(m.path + ": writer already finished");
  return Status::ok();
}

uint64_t TraceWriter::records_written() const { return impl_->records; }
uint64_t TraceWriter::bytes_written() const { return impl_->offset; }
const std::string& TraceWriter::path() const { return impl_->path; }

}  // namespace fsr

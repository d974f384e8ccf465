// SPDX-License-Identifier: Apache-2.0
// TraceReader's opening and sequential read (trace_reader.h): frame by
// frame, damage noted and skipped, impossible times clamped. Random access
// through the index is trace_reader_index.cpp.
#include "traces/trace_reader.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "traces/event_chunk.h"
#include "traces/frame.h"
#include "traces/model_codec.h"
#include "traces/op_chunk.h"
#include "traces/trace_reader_impl.h"

namespace fsr {

// A complete trace's footer (through the trailer and index) bounds its
// events' times; a trace whose writer died is bounded by when its file was
// last written (the writer flushes every second) after the wall-clock start.
void TraceReader::Impl::init_time_limit() {
  constexpr uint64_t kFooterSlackNs = 1'000'000;         // the timing quantisation is < 1 us
  constexpr uint64_t kMtimeSlackNs = 60'000'000'000ull;  // clock steps between start and the last write
  if (header.kind != PayloadKind::kTrace) return;
  refresh_size();
  uint8_t tr[kTrailerSize];
  if (size >= kFileHeaderSize + kTrailerSize && pread_all(tr, sizeof tr, size - kTrailerSize) &&
      std::memcmp(tr + 8, kTrailerMagic, 8) == 0 && build_index()) {
    for (const IndexRecord& e : index) {
      if (e.type != static_cast<uint16_t>(FrameType::kFooter)) continue;
      FrameHeader h;
      std::string why;
      TraceFooter f;
      if (read_frame(e.offset, h, why) == Got::kFrame && decode_footer(msg(), f) && f.end_ns > 0) {
        ts_clamp = f.end_ns;
        ts_limit = f.end_ns + kFooterSlackNs;
        ts_limit_why = fmt::format("the recording's length, {:.3f} s (its footer)", f.end_ns / 1e9);
        return;
      }
    }
  }
  struct stat st {};
  if (header.wall_start_ns == 0 || ::fstat(fd.get(), &st) != 0) return;
  const uint64_t mtime =
      static_cast<uint64_t>(st.st_mtim.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(st.st_mtim.tv_nsec);
  if (mtime <= header.wall_start_ns) return;
  ts_clamp = mtime - header.wall_start_ns + kMtimeSlackNs;
  ts_limit = ts_clamp;
  ts_limit_why = fmt::format("{:.3f} s, when the file was last written (it has no footer)", ts_clamp / 1e9);
}

// See TraceReader::next(): impossible times clamped and counted.
void TraceReader::Impl::clamp_times(std::vector<Event>& out) {
  uint64_t n = 0;
  for (Event& e : out) {
    bool bad = false;
    if (e.ts > ts_limit) {
      if (late_enters++ == 0) {
        first_clamped_ts = e.ts;
        first_clamped_tid = e.tid;
      }
      e.ts = ts_clamp;
      bad = true;
    }
    if (e.dur > UINT64_MAX - e.ts) {
      e.dur = UINT64_MAX - e.ts;
      bad = true;
    }
    n += bad;
  }
  if (n == 0) return;
  problems.clamped_times += n;
  const char* kMarker = "impossible event times";
  std::string m = fmt::format("{}: {} {} with impossible event times (a damaged or crafted trace): ", path,
                              problems.clamped_times, problems.clamped_times == 1 ? "event" : "events");
  if (late_enters)
    m += fmt::format(
        "{} entered after {}, the first at {:.3f} s (thread {}): clamped to that end, so that no "
        "replayed gap or offset outlasts the recording",
        late_enters, ts_limit_why, first_clamped_ts / 1e9, first_clamped_tid);
  if (late_enters < problems.clamped_times)
    m += fmt::format("{}{} lasted past the clock's range: clamped to it", late_enters ? "; " : "",
                     problems.clamped_times - late_enters);
  m += "; record the trace again";
  for (auto& s : problems.messages)  // one line, kept current
    if (s.find(kMarker) != std::string::npos) {
      s = m;
      return;
    }
  problems.messages.push_back(m);
}

std::string TraceReader::Impl::where(const FrameHeader* h, uint64_t off) const {
  if (h && (h->type == FrameType::kEvents || h->type == FrameType::kOps))
    return path + ": chunk " + std::to_string(chunks_seen) + " (" + std::to_string(h->records) + " records, offset " +
           std::to_string(off) + ")";
  return path + ": frame at offset " + std::to_string(off);
}

void TraceReader::Impl::note_truncation(const FrameHeader* partial) {
  problems.truncated = true;
  std::string m = path + ": file ends at byte " + std::to_string(size) +
                  " without its footer and index (writer killed or disk full); read " + std::to_string(chunks_seen) +
                  " chunks, " + std::to_string(records) + " records";
  if (partial) m += "; the last chunk (" + std::to_string(partial->records) + " records) is cut short and lost";
  // One truncation line, kept current (a file being written grows).
  for (auto& s : problems.messages)
    if (s.find("without its footer and index") != std::string::npos) {
      s = m;
      return;
    }
  problems.messages.push_back(m);
}

// What the sequential read does with an intact frame: strings and the
// footer are kept, the index marks the file complete, a chunk of the kind
// asked for is decoded into `out`; an error says why the frame is skipped.
template <typename Rec>
Status TraceReader::Impl::take_frame(const FrameHeader& h, std::vector<Rec>& out, FrameType want) {
  Status st;
  switch (h.type) {
    case FrameType::kStrings:
      st = decode_strings(msg(), z, strings);
      break;
    case FrameType::kFooter: {
      TraceFooter f;
      st = decode_footer(msg(), f);
      if (st) footer = f;
      break;
    }
    case FrameType::kIndex: {
      index_seen = true;  // a complete file: drop any earlier "ends without footer" note
      problems.truncated = false;
      std::erase_if(problems.messages,
                    [](const std::string& s) { return s.find("without its footer and index") != std::string::npos; });
      break;
    }
    case FrameType::kEvents:
    case FrameType::kOps: {
      if (h.type != want) {
        st = Status::error(std::string("holds ") + (h.type == FrameType::kEvents ? "trace events" : "replay ops") +
                           ", not what was asked for");
        break;
      }
      if constexpr (std::is_same_v<Rec, Event>)
        st = decode_event_chunk(msg(), z, scratch, out, nullptr, strings.size());
      else
        st = decode_op_chunk(msg(), z, scratch, out, nullptr);
      if (st && out.size() != h.records)
        st =
            Status::error("holds " + std::to_string(out.size()) + " records, header says " + std::to_string(h.records));
      if constexpr (std::is_same_v<Rec, Event>)
        if (st) clamp_times(out);
      break;
    }
    default:
      break;  // header (again) or prestate: not for sequential record reading
  }
  return st;
}

template <typename Rec>
Result<bool> TraceReader::Impl::next(std::vector<Rec>& out, FrameType want) {
  out.clear();
  while (!index_seen) {
    if (offset + kFrameHeaderSize > size) refresh_size();
    FrameHeader h;
    std::string why;
    Got g = read_frame(offset, h, why);
    if (g == Got::kEnd || g == Got::kPartial) {
      if (g == Got::kPartial) refresh_size();
      std::optional<FrameHeader> partial;
      if (g == Got::kPartial && offset + kFrameHeaderSize <= size) {
        uint8_t hb[kFrameHeaderSize];
        if (pread_all(hb, sizeof hb, offset)) partial = decode_frame_header(hb);
      }
      note_truncation(partial ? &*partial : nullptr);
      return false;
    }
    if (g == Got::kBadHeader) {
      uint64_t next_off = resync(offset);
      problems.messages.push_back(
          where(nullptr, offset) + ": " + why + "; " +
          (next_off ? "skipped to offset " + std::to_string(next_off) : std::string("no later frame found")));
      ++problems.bad_chunks;
      if (!next_off) {
        offset = size;
        note_truncation(nullptr);
        return false;
      }
      offset = next_off;
      continue;
    }
    uint64_t here = offset;
    offset += kFrameHeaderSize + h.payload_len;
    bool is_chunk = h.type == FrameType::kEvents || h.type == FrameType::kOps;
    if (g == Got::kBadPayload) {
      problems.messages.push_back(where(&h, here) + ": " + why + "; skipped");
      ++problems.bad_chunks;
      if (is_chunk) {
        problems.missing_records += h.records;
        ++chunks_seen;
      }
      continue;
    }
    const Status st = take_frame(h, out, want);
    if (!st) {
      problems.messages.push_back(where(&h, here) + ": " + st.message() + "; skipped");
      ++problems.bad_chunks;
      if (is_chunk) {
        problems.missing_records += h.records;
        ++chunks_seen;
      }
      out.clear();
      continue;
    }
    if (is_chunk) {
      ++chunks_seen;
      records += out.size();
      return true;
    }
  }
  return false;
}

TraceReader::TraceReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TraceReader::~TraceReader() = default;

Result<std::unique_ptr<TraceReader>> TraceReader::open(const std::string& path) {
  auto m = std::make_unique<Impl>();
  m->path = path;
  m->fd.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!m->fd.valid()) return Status::error(path + ": cannot open: " + std::strerror(errno));
  struct stat st;
  if (fstat(m->fd.get(), &st) == 0 && S_ISDIR(st.st_mode))
    return Status::error(path + ": is a directory, not an fsreplay file; give the trace, result or profile file in it");
  m->refresh_size();
  uint8_t fh[kFileHeaderSize];
  if (m->size < kFileHeaderSize || !m->pread_all(fh, sizeof fh, 0))
    return Status::error(path + ": too short to be an fsreplay file (" + std::to_string(m->size) + " bytes)");
  if (std::memcmp(fh, kFileMagic, 8) != 0)
    return Status::error(path + ": not an fsreplay trace or result (wrong magic)");
  uint16_t version, kind;
  std::memcpy(&version, fh + 8, 2);
  std::memcpy(&kind, fh + 10, 2);
  if (version < kOldestReadableVersion || version > kFormatVersion)
    return Status::error(path + ": format version " + std::to_string(version) +
                         " is not supported (this fsreplay reads versions " + std::to_string(kOldestReadableVersion) +
                         " to " + std::to_string(kFormatVersion) + "); use a matching fsreplay");
  if (kind < 1 || kind > 3) return Status::error(path + ": unknown payload kind " + std::to_string(kind));
  FrameHeader h;
  std::string why;
  auto g = m->read_frame(kFileHeaderSize, h, why);
  if (g != FrameFile::Got::kFrame || h.type != FrameType::kHeader)
    return Status::error(path + ": header frame is " +
                         (g == FrameFile::Got::kPartial || g == FrameFile::Got::kEnd
                              ? "missing (file cut short)"
                              : "damaged" + (why.empty() ? "" : ": " + why)));
  if (Status st = decode_header(m->msg(), m->header); !st) return Status::error(path + ": " + st.message());
  if (static_cast<uint16_t>(m->header.kind) != kind)
    return Status::error(path + ": header kind disagrees with the file header (damaged)");
  m->offset = kFileHeaderSize + kFrameHeaderSize + h.payload_len;
  m->init_time_limit();
  return std::unique_ptr<TraceReader>(new TraceReader(std::move(m)));
}

const TraceHeader& TraceReader::header() const { return impl_->header; }
PayloadKind TraceReader::kind() const { return impl_->header.kind; }
const std::string& TraceReader::path() const { return impl_->path; }

Result<bool> TraceReader::next(std::vector<Event>& out) { return impl_->next(out, FrameType::kEvents); }
Result<bool> TraceReader::next(std::vector<OpRecord>& out) { return impl_->next(out, FrameType::kOps); }

std::string_view TraceReader::str(StrId id) const {
  return id < impl_->strings.size() ? std::string_view(impl_->strings[id]) : std::string_view();
}
size_t TraceReader::string_count() const { return impl_->strings.size(); }

const std::optional<TraceFooter>& TraceReader::footer() const { return impl_->footer; }

std::optional<uint64_t> TraceReader::time_limit() const {
  if (impl_->ts_limit == UINT64_MAX) return std::nullopt;
  return impl_->ts_clamp;
}

const ReadProblems& TraceReader::problems() const { return impl_->problems; }
uint64_t TraceReader::file_size() const { return impl_->size; }
uint64_t TraceReader::records_read() const { return impl_->records; }

std::string_view payload_kind_name(PayloadKind kind) {
  switch (kind) {
    case PayloadKind::kTrace:
      return "trace";
    case PayloadKind::kResult:
      return "replay result";
    case PayloadKind::kProfile:
      return "profile";
  }
  return "file of unknown kind";
}

Status wrong_kind(const std::string& path, PayloadKind got, PayloadKind want, std::string_view what_to_do) {
  return Status::error(path + ": is a " + std::string(payload_kind_name(got)) + ", not a " +
                       std::string(payload_kind_name(want)) + "; " + std::string(what_to_do));
}

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// Reader for the fsreplay container: sequential, by chunk through the index,
// and on a file still being written (poll again for more). Bad input is
// normal: a truncated file yields every complete chunk plus a statement of
// what is missing; a corrupted chunk is reported by number and skipped; no
// length field can cause a large allocation.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "traces/event.h"
#include "traces/frame.h"
#include "base/status.h"
#include "traces/trace_model.h"

namespace fsr {

struct ReadProblems {
  std::vector<std::string> messages;  // one line each: "chunk 17 at offset 12345: checksum mismatch"
  uint64_t bad_chunks = 0;            // chunks skipped because damaged
  uint64_t missing_records = 0;       // records known (from the index) but unreadable
  bool truncated = false;             // the file ends before its footer/index
  // Trace events whose times were impossible (entered after the recording's
  // end, or ending past the clock's range) and were clamped (see next()).
  uint64_t clamped_times = 0;
  bool complete() const { return !truncated && bad_chunks == 0 && clamped_times == 0; }
};

class TraceReader {
 public:
  // Opens and validates the file header and the header message. Fails with a
  // one-line message for: not an fsreplay file, unknown version, damaged header.
  static Result<std::unique_ptr<TraceReader>> open(const std::string& path);
  ~TraceReader();
  TraceReader(const TraceReader&) = delete;
  TraceReader& operator=(const TraceReader&) = delete;

  const TraceHeader& header() const;
  PayloadKind kind() const;
  const std::string& path() const;

  // Sequential reading. Fills `out` (cleared first) with the next chunk's
  // records and returns true, or returns false at the (current) end of the
  // file. Damaged chunks are skipped and noted in problems(). On a file that
  // is still being written, call again later to get chunks appended since.
  // Trace events are checked against the recording's length (time_limit()):
  // one that entered after it is damage (a crafted time near 2^63 ns made
  // think mode sleep for centuries); its enter time is clamped to that end
  // and counted in problems(), so no gap or offset derived from the trace
  // outlasts it. A duration that would overflow the clock is clamped too.
  Result<bool> next(std::vector<Event>& out);
  Result<bool> next(std::vector<OpRecord>& out);

  // Strings interned so far (all strings of every chunk returned by next()).
  std::string_view str(StrId id) const;
  size_t string_count() const;

  // Prestate entries (all of them; read on first call).
  Result<std::vector<PrestateEntry>> prestate();
  // The same block by block (a frame of up to 4096 entries, in file order),
  // so that a caller need never hold them all: `fn` gets each block (valid
  // during the call). Returns the number of entries passed. A damaged block,
  // or a file that ends inside the prestate (writer killed while it wrote
  // it), is an error naming the block and how many entries were readable.
  Result<uint64_t> for_each_prestate(const std::function<Status(std::span<const PrestateEntry>)>& fn);
  // Entries in the prestate, from the index (no block is decoded): a total for progress.
  Result<uint64_t> prestate_count();

  // Footer, once the sequential read has reached it (or from the index).
  const std::optional<TraceFooter>& footer() const;

  // Random access through the index (needs a complete file; loads all strings).
  Result<size_t> chunk_count();
  // Records (events or ops) in all chunks, from the index: a total for progress.
  Result<uint64_t> record_count();
  Result<bool> read_chunk(size_t i, std::vector<Event>& out);
  Result<bool> read_chunk(size_t i, std::vector<OpRecord>& out);

  // Every readable frame of `type` (through the index, or a scan of a file
  // without one), in file order: `fn` gets its Cap'n Proto message as words.
  // Returns how many frames were passed to `fn`; a frame that fails its
  // checksum is an error naming its offset.
  Result<size_t> for_each_frame(FrameType type, const std::function<Status(std::span<const uint64_t> words)>& fn);

  // The latest enter time (ns since the trace's start) a trace event may
  // have, or nullopt when the file does not say: its footer's end_ns (a
  // complete trace, through the index), else for a file whose writer died,
  // the time it was last written less the header's wall-clock start (with a
  // minute's slack for clock steps). Results and profiles: nullopt.
  std::optional<uint64_t> time_limit() const;

  // The file's content id (trace_id.h), computed from its stored bytes
  // through the index (or a scan of a file without one): the same for the
  // same file and its copies, in every format version this reader reads.
  // Reads every frame header once (cached).
  uint64_t trace_id();

  // Everything found wrong so far. After a full sequential read this is final.
  const ReadProblems& problems() const;

  uint64_t file_size() const;
  uint64_t records_read() const;

 private:
  struct Impl;
  explicit TraceReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// "trace", "replay result" or "profile".
std::string_view payload_kind_name(PayloadKind kind);
// The one-line error for a file of the wrong kind, naming what it is:
// "P: is a profile, not a trace; <what_to_do>".
Status wrong_kind(const std::string& path, PayloadKind got, PayloadKind want, std::string_view what_to_do);

}  // namespace fsr

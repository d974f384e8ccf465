// SPDX-License-Identifier: Apache-2.0
// Streaming writer for the fsreplay container (traces and replay results).
// Memory is bounded by one chunk (and a few words of timing state per live
// thread): events are buffered column-wise and written
// as one self-checking frame when the chunk is full or on flush(). Each frame
// goes out in a single write, so a killed writer leaves every earlier frame
// readable. Never allocates per event once the chunk buffers have grown.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "traces/event.h"
#include "traces/frame.h"
#include "base/status.h"
#include "traces/trace_model.h"

namespace fsr {

struct WriterOptions {
  uint32_t chunk_events = 65536;  // events (or ops) per chunk
  int zstd_level = 1;             // level 3 is ~2% smaller and ~20% slower to write (dev/bench)
};

class TraceWriter {
 public:
  // Creates (truncates) `path` and writes the file header and `header`.
  static Result<std::unique_ptr<TraceWriter>> create(const std::string& path, const TraceHeader& header,
                                                     WriterOptions options = {});
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  // Interns a string (path, argv) and returns its id (>= 1). Same string, same id.
  StrId intern(std::string_view s);
  // Adds a string that the caller knows it never added before, without the
  // lookup: for a caller that keeps its own table (the recorder's decoder,
  // which interns every path of every event). Not to be mixed with intern()
  // for the same string (it would be stored twice; still a valid trace).
  StrId add_string(std::string_view s);

  // Prestate entries are written in their own frames; call before the first event.
  Status add_prestate(const PrestateEntry& entry);

  // Trace payloads take events, result payloads take ops.
  Status append(const Event& event);
  Status append(const OpRecord& op);

  // A frame of a payload that is neither events nor ops (a profile's
  // measurements): `capnp_message` is one serialised Cap'n Proto message,
  // written zstd-compressed and listed in the index.
  Status append_frame(FrameType type, const std::vector<uint8_t>& capnp_message, uint32_t records);

  // Writes the pending chunk (and new strings) now. The recorder calls this at
  // least once a second so that a killed recorder loses at most a second.
  Status flush();

  // Writes the last chunk, the footer and the index. The file is complete after this.
  Status finish(const TraceFooter& footer);

  uint64_t records_written() const;  // events or ops appended so far
  uint64_t bytes_written() const;    // bytes in the file so far
  const std::string& path() const;

 private:
  struct Impl;
  explicit TraceWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// TraceReader's state (trace_reader.h), shared by its two halves: the
// sequential read (trace_reader.cpp) and the random access through the
// frame index (trace_reader_index.cpp). Private to those two files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "traces/frame.h"
#include "traces/frame_file.h"
#include "traces/model_codec.h"
#include "base/status.h"
#include "traces/trace_id.h"
#include "traces/trace_model.h"
#include "traces/trace_reader.h"

namespace fsr {

struct TraceReader::Impl : FrameFile {
  TraceHeader header;
  std::vector<std::string> strings{""};
  std::optional<TraceFooter> footer;
  ReadProblems problems;
  uint64_t offset = 0;  // next frame (sequential)
  uint64_t chunks_seen = 0;
  uint64_t records = 0;
  bool index_seen = false;
  bool index_built = false;
  std::vector<IndexRecord> index;  // every frame (built from the index frame or a scan)
  // A scan's last frame when the file ends inside it (type 0: none, or its header is cut too).
  uint16_t cut_type = 0;
  uint64_t cut_offset = 0;
  // Trace events: the latest plausible enter time (time_limit()), what an
  // impossible one is clamped to, and where the limit came from.
  uint64_t ts_limit = UINT64_MAX, ts_clamp = UINT64_MAX;
  std::string ts_limit_why;
  uint64_t late_enters = 0, first_clamped_ts = 0;
  uint32_t first_clamped_tid = 0;
  uint64_t id = kNoTraceId;

  // Sequential reading (trace_reader.cpp).
  void init_time_limit();
  void clamp_times(std::vector<Event>& out);
  std::string where(const FrameHeader* h, uint64_t off) const;
  void note_truncation(const FrameHeader* partial);
  template <typename Rec>
  Status take_frame(const FrameHeader& h, std::vector<Rec>& out, FrameType want);
  template <typename Rec>
  Result<bool> next(std::vector<Rec>& out, FrameType want);

  // Through the index (trace_reader_index.cpp).
  Status build_index();
  Status load_all_strings();
  std::vector<size_t> chunk_frames() const;
  template <typename Rec>
  Result<bool> read_chunk(size_t i, std::vector<Rec>& out);
  uint64_t compute_id();
};

}  // namespace fsr

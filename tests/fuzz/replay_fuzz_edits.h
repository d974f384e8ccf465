// SPDX-License-Identifier: Apache-2.0
// The replay fuzzer's traces as it edits them: decoded from a file, edited by
// the input read as a program (edit_program) -- events, prestate entries,
// strings and header -- and written again by the real writer, which
// replay_fuzz.cpp then runs through the verbs. The edits read the input in a
// fixed order, which the checked-in seeds (replay-seeds/) are written for.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <string>
#include <vector>

#include "traces/event.h"
#include "traces/trace_model.h"

namespace fsr::fuzz {

inline constexpr uint64_t kMaxFileSize = 4ull << 20;  // prestate and inode sizes (replay_fuzz.cpp says why)

// A trace, decoded: what the edits act on.
struct Decoded {
  TraceHeader header;
  std::vector<PrestateEntry> prestate;
  std::vector<Event> events;
  std::vector<std::string> strs{""};  // StrId -> text; 0 = none
  TraceFooter footer;
};

// The input, as a program: a base, a chunk size, then edits until it ends.
struct Stages {
  uint32_t chunk_events = 16;  // the writer's chunk size
  bool prepare_again = false;  // replay prepares the prepared tree again (else verifies it)
  bool predict = true;
};

// Writes `d` with the real TraceWriter (valid CRCs), chunk_events to a chunk.
bool write_trace(const Decoded& d, const std::string& path, uint32_t chunk_events);
// The base as the edits see it: written and read back, as a recording would
// be. Aborts on a file it cannot read.
Decoded decode(const std::string& path);

// A base from `bases`, the stages, then edits until the input ends.
Decoded edit_program(FuzzedDataProvider& in, const std::vector<Decoded>& bases, Stages& st);

}  // namespace fsr::fuzz

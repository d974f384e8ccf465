// SPDX-License-Identifier: Apache-2.0
// A deterministic synthetic event stream shaped like a real build, for the
// container's benchmark and size tests: module-resolution stat probes (many
// ENOENT), open/fstat/read/close sequences on source files, directory scans,
// some writes of outputs, three processes of two threads. Durations cluster
// per syscall with nanosecond noise; compute gaps are log-uniform.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "traces/event.h"

namespace fsr {

class BuildLikeStream {
 public:
  // Draws from `paths` distinct paths. Events carry path ids as a writer that
  // interns on first use would assign them; new_paths() lists the names of
  // ids first used by the last step (intern them in order before appending).
  BuildLikeStream(uint32_t paths, uint64_t seed = 42);
  static std::string path_name(uint32_t path);
  const std::vector<std::string>& new_paths() const { return new_paths_; }
  // Appends the events of one "step" (a probe, a file read, a dir scan...) to `out`.
  void step(std::vector<Event>& out);

 private:
  Event base(uint16_t nr, uint64_t dur_ns);
  uint64_t noisy(uint64_t base_ns);
  uint32_t pick_path();
  uint32_t id_of(uint32_t path);

  std::mt19937_64 rng_;
  uint32_t paths_;
  uint64_t ts_ = 1'000'000;
  uint32_t thread_ = 0;
  uint64_t thread_ts_[6] = {};
  std::vector<uint32_t> ids_;  // path -> id (0 = not yet used)
  uint32_t next_id_ = 1;
  uint32_t walk_ = 0;
  std::vector<std::string> new_paths_;
};

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// Synthetic replay results for report tests: a tiny replay simulator that
// issues ops on workers in trace order, honouring think time (gap) and
// cross-thread dependencies, and fills every OpRecord field the way the
// replayer does. Deterministic: same workload and latencies, same result.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "report/result_set.h"

namespace fsr::testdata {

struct SimOp {
  uint32_t worker = 0;
  uint32_t pid = 0;
  uint16_t nr = 0;
  uint64_t latency = 0;        // baseline latency, ns
  uint64_t gap = 0;            // think time before issue, ns
  std::vector<uint64_t> deps;  // event indices this op waits for (earlier ones)
  std::string path;            // "" = none
  uint16_t flags = 0;
  DepKind dep_kind = DepKind::kNone;  // why it waits for `deps` (kept in its flags when it waits)
};

struct SimWorkload {
  TraceHeader header;
  std::vector<SimOp> ops;  // event order
};

// Replays `w` with latency(op) per op; `overhead` ns of scheduling before each
// issue and `teardown` ns after the last op.
ResultSet simulate(const SimWorkload& w, const std::function<uint64_t(const SimOp&)>& latency, uint64_t overhead = 100,
                   uint64_t teardown = 1000);

// A small fixed workload (sh -> git, node; two workers; dirs src/, node_modules/,
// /usr/lib) used by the golden tests. slow=true is the same replay on a
// "9p-drvfs" target where stat is 10x and open 3x slower.
SimWorkload small_workload();
ResultSet small_result(bool slow);

// Writes `rs` as a result file through TraceWriter (strings re-interned).
Status write_result_file(const ResultSet& rs, const std::string& path);

}  // namespace fsr::testdata

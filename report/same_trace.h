// SPDX-License-Identifier: Apache-2.0
// Whether results set side by side replayed the same trace. A ratio between
// replays of two different recordings compares two workloads, not two
// mounts, so `compare` and `report --baseline` refuse it unless told to
// (--allow-different-traces), and then label the odd columns. Results name
// their trace by its content id (trace_id.h, in the result header);
// results written before they carried one can only be warned about. Pure:
// no I/O.
#pragma once

#include <string>
#include <vector>

#include "report/result_set.h"
#include "base/status.h"

namespace fsr {

// `results[0]` is the reference (compare's first column, report's baseline).
// Each result whose trace id differs from the reference's (the first result
// with an id) gets different_trace = true when `allow_different`; without
// it, the first such result is an error naming both files and their traces.
// A result without an id adds one line to `warnings` (no result is refused
// for lacking one).
Status check_same_trace(const std::vector<ResultMeta*>& results, bool allow_different,
                        std::vector<std::string>& warnings);

// "FILE (trace PATH, id HEX)": how messages name a result and its trace.
std::string describe_trace_of(const ResultMeta& m);

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
#include "report/same_trace.h"

#include "traces/trace_id.h"

namespace fsr {

std::string describe_trace_of(const ResultMeta& m) {
  const std::string file = m.file.empty() ? std::string("(in memory)") : m.file;
  const std::string trace = m.header.source_trace.empty() ? std::string("?") : m.header.source_trace;
  return file + " (trace " + trace + ", id " +
         (m.header.source_trace_id != kNoTraceId ? format_trace_id(m.header.source_trace_id) : std::string("unknown")) +
         ")";
}

Status check_same_trace(const std::vector<ResultMeta*>& results, bool allow_different,
                        std::vector<std::string>& warnings) {
  const ResultMeta* ref = nullptr;
  for (const ResultMeta* m : results)
    if (m->header.source_trace_id != kNoTraceId) {
      ref = m;
      break;
    }
  for (ResultMeta* m : results) {
    m->different_trace = false;
    if (m->header.source_trace_id == kNoTraceId) {
      const ResultMeta* other = ref ? ref : (results.front() != m ? results.front() : nullptr);
      if (results.size() > 1)
        warnings.push_back(describe_trace_of(*m) +
                           " does not name its trace's id (written by an fsreplay before results carried it): "
                           "cannot check that it replays the same trace as " +
                           (other ? describe_trace_of(*other) : std::string("the others")) +
                           "; replay the trace again for a result that does");
      continue;
    }
    if (m == ref || m->header.source_trace_id == ref->header.source_trace_id) continue;
    // Two recordings are two runs: of one workload, their difference is the
    // behaviour diff compare shows (compare.h), not a mix-up.
    if (m->recording && ref->recording) continue;
    if (!allow_different)
      return Status::error(describe_trace_of(*m) + " and " + describe_trace_of(*ref) +
                           " replay different traces: their ratios would compare two workloads, not two mounts; "
                           "give results of one trace, or --allow-different-traces to show them as different "
                           "workloads");
    m->different_trace = true;
  }
  return Status::ok();
}

}  // namespace fsr

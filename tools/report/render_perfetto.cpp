#include "tools/report/render_perfetto.h"

#include <map>
#include <set>
#include <string>

#include "tools/report/stats.h"
#include "traces/syscalls.h"

namespace fsr {

nlohmann::ordered_json perfetto_trace(const ResultSet& rs) {
  using J = nlohmann::ordered_json;
  const std::vector<std::string> names = process_names(rs);
  J events = J::array();
  std::map<uint32_t, std::string> pid_name;
  std::set<std::pair<uint32_t, uint32_t>> tracks;
  for (size_t i = 0; i < rs.ops.size(); ++i) {
    const OpRecord& op = rs.ops[i];
    pid_name.emplace(op.pid, names[i]);  // first name seen for the pid
    tracks.emplace(op.pid, op.worker);
    J e;
    e["name"] = syscall_name(op.nr);
    e["cat"] = std::string(class_name(class_of(op.nr)));
    e["ph"] = "X";
    // Trace-event times are microseconds; keep ns precision in the fraction.
    e["ts"] = double(op.start) / 1000.0;
    e["dur"] = double(op.latency) / 1000.0;
    e["pid"] = op.pid;
    e["tid"] = op.worker;
    J args;
    args["path"] = std::string(rs.str(op.path));
    args["ret"] = op.ret;
    args["recorded_ret"] = op.recorded_ret;
    args["event_index"] = op.event_index;
    args["gap_ns"] = op.gap;
    args["dep_wait_ns"] = op.dep_wait;
    if (op.waited_on) args["waited_on_event"] = op.waited_on - 1;
    if (op.flags & kOfSkipped) args["skipped"] = true;
    if (op.flags & kOfDivergent) args["divergent"] = true;
    e["args"] = std::move(args);
    events.push_back(std::move(e));
  }
  for (const auto& [pid, name] : pid_name)
    events.push_back(J{{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"tid", 0},
                       {"args", J{{"name", name + " (pid " + std::to_string(pid) + ")"}}}});
  for (const auto& [pid, worker] : tracks)
    events.push_back(J{{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", worker},
                       {"args", J{{"name", "worker " + std::to_string(worker)}}}});
  J out;
  out["traceEvents"] = std::move(events);
  out["displayTimeUnit"] = "ns";
  out["otherData"] = J{{"target", rs.header.target}, {"source_trace", rs.header.source_trace},
                       {"wall_ns", rs.wall_ns()}};
  return out;
}

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
#include "report/render_perfetto.h"

#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/stats.h"
#include "traces/syscalls.h"
#include "base/text_safe.h"

namespace fsr {
namespace {

std::string json_str(std::string_view s) { return json_text(nlohmann::json(std::string(s))); }

// Trace-event times are microseconds; print ns exactly as a 3-digit fraction.
void append_us(std::string& out, uint64_t ns) {
  fmt::format_to(std::back_inserter(out), "{}.{:03}", ns / 1000, ns % 1000);
}

}  // namespace

std::string perfetto_trace(const ResultSet& rs) {
  const ProcessNaming pn = name_processes(rs);
  std::unordered_map<StrId, std::string> path_json;
  std::unordered_map<uint16_t, std::pair<std::string, std::string>> nr_json;  // name, class
  std::map<uint32_t, uint32_t> pid_name;                                      // pid -> name index (first seen)
  std::set<std::pair<uint32_t, uint32_t>> tracks;
  std::string out = "{\"traceEvents\":[\n";
  bool first = true;
  for (size_t i = 0; i < rs.ops.size(); ++i) {
    const OpRecord& op = rs.ops[i];
    pid_name.emplace(op.pid, pn.op_name[i]);
    tracks.emplace(op.pid, op.worker);
    auto p = path_json.find(op.path);
    if (p == path_json.end()) p = path_json.emplace(op.path, json_str(rs.str(op.path))).first;
    auto n = nr_json.find(op.nr);
    if (n == nr_json.end())
      n = nr_json.emplace(op.nr, std::pair{json_str(syscall_name(op.nr)), json_str(class_name(class_of(op.nr)))}).first;
    if (!first) out += ",\n";
    first = false;
    auto it = std::back_inserter(out);
    fmt::format_to(it, "{{\"name\":{},\"cat\":{},\"ph\":\"X\",\"ts\":", n->second.first, n->second.second);
    append_us(out, op.start);
    out += ",\"dur\":";
    append_us(out, op.latency);
    fmt::format_to(std::back_inserter(out),
                   ",\"pid\":{},\"tid\":{},\"args\":{{\"path\":{},\"ret\":{},\"recorded_ret\":{},"
                   "\"event_index\":{},\"gap_ns\":{},\"dep_wait_ns\":{}",
                   op.pid, op.worker, p->second, op.ret, op.recorded_ret, op.event_index, op.gap, op.dep_wait);
    if (op.waited_on) fmt::format_to(std::back_inserter(out), ",\"waited_on_event\":{}", op.waited_on - 1);
    if (op.flags & kOfSkipped) out += ",\"skipped\":true";
    if (op.flags & kOfDivergent) out += ",\"divergent\":true";
    out += "}}";
  }
  for (const auto& [pid, name] : pid_name) {
    out += first ? "" : ",\n";
    first = false;
    fmt::format_to(std::back_inserter(out),
                   "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"tid\":0,\"args\":{{\"name\":{}}}}}", pid,
                   json_str(pn.names[name] + " (pid " + std::to_string(pid) + ")"));
  }
  for (const auto& [pid, worker] : tracks)
    fmt::format_to(
        std::back_inserter(out),
        ",\n{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":\"worker {}\"}}}}", pid,
        worker, worker);
  fmt::format_to(
      std::back_inserter(out),
      "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{{\"target\":{},\"source_trace\":{},\"wall_ns\":{}}}}}\n",
      json_str(rs.header.target), json_str(rs.header.source_trace), rs.wall_ns());
  return out;
}

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
#include "traces/event_format.h"

#include <fmt/core.h>
#include <string.h>

#include <nlohmann/json.hpp>

#include "base/paths.h"
#include "traces/syscalls.h"
#include "base/text_safe.h"

namespace fsr {

std::string errno_name(int64_t ret) {
  if (ret >= 0 || ret < -4095) return "";
  const char* n = strerrorname_np(static_cast<int>(-ret));
  return n ? n : fmt::format("E{}", -ret);
}

std::string format_event(const Event& e, const TraceReader& r, bool json) {
  const SyscallInfo* info = syscall_info(e.nr);
  if (json) {
    nlohmann::ordered_json j;
    j["ts"] = e.ts;
    j["dur"] = e.dur;
    j["pid"] = e.pid;
    j["tid"] = e.tid;
    j["nr"] = e.nr;
    j["name"] = syscall_name(e.nr);
    j["class"] = class_name(class_of(e.nr));
    j["ret"] = e.ret;
    j["args"] = {e.args[0], e.args[1], e.args[2], e.args[3], e.args[4], e.args[5]};
    if (e.path[0]) j["path"] = std::string(r.str(e.path[0]));
    if (e.path[1]) j["path2"] = std::string(r.str(e.path[1]));
    if (const auto t = tail_text(static_cast<PathTail>(event_tail_code(e, 0))); !t.empty()) j["path_tail"] = t;
    if (const auto t = tail_text(static_cast<PathTail>(event_tail_code(e, 1))); !t.empty()) j["path2_tail"] = t;
    if (e.ino) {
      j["dev"] = e.dev;
      j["ino"] = e.ino;
      j["size"] = e.size;
      j["mode"] = e.mode;
    }
    j["flags"] = e.flags;
    return json_text(j);
  }
  std::string args;
  for (int a = 0; a < 6; ++a) {
    if (info && (info->ptr_mask & (1u << a))) continue;
    if (e.args[a]) args += fmt::format(" a{}={:#x}", a, e.args[a]);
  }
  std::string paths;
  // A path is shown with the ending the program gave it ("x/", "x/."), which
  // the stored path normalised away.
  for (int k = 0; k < 2; ++k)
    if (e.path[k])
      paths +=
          fmt::format(" \"{}{}\"", escape_c(r.str(e.path[k])), tail_text(static_cast<PathTail>(event_tail_code(e, k))));
  std::string ret = e.ret < 0 && e.ret >= -4095 ? fmt::format("-{}", errno_name(e.ret)) : fmt::format("{}", e.ret);
  std::string ino = e.ino ? fmt::format(" [ino {} size {} mode {:o}]", e.ino, e.size, e.mode) : "";
  return fmt::format("{:>14.6f} {:>7}/{:<7} {}({}{}) = {} <{:.6f}>{}", e.ts / 1e9, e.pid, e.tid, syscall_name(e.nr),
                     paths.empty() ? "" : paths.substr(1), args, ret, e.dur / 1e9, ino);
}

std::string format_op(const OpRecord& o, const TraceReader& r, bool json) {
  if (json) {
    nlohmann::ordered_json j;
    j["event"] = o.event_index;
    j["start"] = o.start;
    j["latency"] = o.latency;
    j["lateness"] = o.lateness;
    j["dep_wait"] = o.dep_wait;
    j["gap"] = o.gap;
    j["worker"] = o.worker;
    j["pid"] = o.pid;
    j["tid"] = o.tid;
    j["nr"] = o.nr;
    j["name"] = syscall_name(o.nr);
    j["class"] = class_name(class_of(o.nr));
    j["ret"] = o.ret;
    j["recorded_ret"] = o.recorded_ret;
    j["waited_on"] = o.waited_on;
    if (o.path) j["path"] = std::string(r.str(o.path));
    j["flags"] = o.flags;
    return json_text(j);
  }
  return fmt::format("{:>14.6f} w{:<3} {:>7}/{:<7} {} \"{}\" = {} (rec {}) lat {} gap {} wait {}{}", o.start / 1e9,
                     o.worker, o.pid, o.tid, syscall_name(o.nr), escape_c(r.str(o.path)), o.ret, o.recorded_ret,
                     o.latency, o.gap, o.dep_wait, (o.flags & kOfDivergent) ? " DIVERGENT" : "");
}

std::string format_prestate(const PrestateEntry& e, bool json) {
  static const char* kinds[] = {"?", "dir", "file", "symlink", "other"};
  const char* k = kinds[static_cast<int>(e.kind) <= 4 ? static_cast<int>(e.kind) : 0];
  if (json) {
    nlohmann::ordered_json j;
    j["path"] = e.path;
    j["kind"] = k;
    j["mode"] = e.mode;
    j["size"] = e.size;
    if (!e.target.empty()) j["target"] = e.target;
    return json_text(j);
  }
  return fmt::format("{:<7} {:06o} {:>12} {}{}", k, e.mode, e.size, escape_c(e.path),
                     e.target.empty() ? "" : " -> " + escape_c(e.target));
}

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
#include "tests/report/test_results.h"

#include <algorithm>
#include <unordered_map>

#include "traces/syscalls.h"
#include "traces/trace_writer.h"

namespace fsr::testdata {

ResultSet simulate(const SimWorkload& w, const std::function<uint64_t(const SimOp&)>& latency, uint64_t overhead,
                   uint64_t teardown) {
  ResultSet rs;
  rs.header = w.header;
  rs.header.kind = PayloadKind::kResult;
  std::unordered_map<std::string, StrId> ids;
  std::unordered_map<uint32_t, uint64_t> worker_free;  // end of the worker's last op
  std::vector<uint64_t> end(w.ops.size(), 0);
  uint64_t last_end = 0;
  for (size_t i = 0; i < w.ops.size(); ++i) {
    const SimOp& s = w.ops[i];
    OpRecord op;
    op.event_index = i;
    op.pid = s.pid;
    op.tid = s.pid;
    op.worker = s.worker;
    op.nr = s.nr;
    op.flags = s.flags;
    op.gap = s.gap;
    const uint64_t ready = worker_free[s.worker] + s.gap;
    uint64_t dep_ready = 0, dep = 0;
    for (uint64_t d : s.deps)
      if (d < i && end[d] >= dep_ready) dep_ready = end[d], dep = d + 1;
    if (dep_ready > ready) {
      op.dep_wait = dep_ready - ready;
      op.waited_on = dep;
      op.flags |= static_cast<uint16_t>(static_cast<unsigned>(s.dep_kind) << kOfDepKindShift);
    }
    op.start = std::max(ready, dep_ready) + overhead;
    op.latency = (s.flags & kOfSkipped) ? 0 : latency(s);
    op.recorded_dur = s.latency;
    if (!s.path.empty()) {
      auto [it, fresh] = ids.emplace(s.path, static_cast<StrId>(ids.size() + 1));
      if (fresh) rs.strings.emplace(it->second, s.path);
      op.path = it->second;
    }
    end[i] = op.start + op.latency;
    worker_free[s.worker] = end[i];
    last_end = std::max(last_end, end[i]);
    rs.ops.push_back(op);
  }
  TraceFooter f;
  f.wall_ns = last_end + teardown;
  f.end_ns = f.wall_ns;
  for (const OpRecord& op : rs.ops) f.divergences += (op.flags & kOfDivergent) ? 1 : 0;
  rs.footer = f;
  return rs;
}

SimWorkload small_workload() {
  SimWorkload w;
  w.header.root = "/w/proj";
  w.header.command = {"/bin/sh", "-c", "build"};
  w.header.initial.pid = 100;
  const uint16_t kStat = *syscall_from_name("newfstatat");
  const uint16_t kOpen = *syscall_from_name("openat");
  const uint16_t kRead = *syscall_from_name("read");
  const uint16_t kWrite = *syscall_from_name("write");
  const uint16_t kClose = *syscall_from_name("close");
  const uint16_t kGetdents = *syscall_from_name("getdents64");
  const uint16_t kMkdir = *syscall_from_name("mkdir");
  auto add = [&](uint32_t worker, uint32_t pid, uint16_t nr, uint64_t lat, uint64_t gap, std::string path,
                 std::vector<uint64_t> deps = {}, uint16_t flags = 0) {
    w.ops.push_back({worker, pid, nr, lat, gap, std::move(deps), std::move(path), flags});
    return static_cast<uint64_t>(w.ops.size() - 1);
  };
  // sh (worker 0) starts git and node.
  add(0, 100, kStat, 2000, 0, "/w/proj");
  uint64_t git_exec = add(0, 101, kEvProcExec, 50000, 1000, "/usr/bin/git");
  uint64_t node_exec = add(1, 102, kEvProcExec, 60000, 0, "/usr/bin/node", {git_exec});
  w.ops.back().dep_kind = DepKind::kThreadStart;
  // git: stats and reads in src/.
  for (int i = 0; i < 6; ++i) {
    add(0, 101, kStat, 3000 + 100 * i, 500, "/w/proj/src/f" + std::to_string(i) + ".c");
    add(0, 101, kOpen, 8000, 200, "/w/proj/src/f" + std::to_string(i) + ".c");
    add(0, 101, kRead, 4000, 0, "");
    add(0, 101, kClose, 1000, 0, "");
  }
  add(0, 101, kGetdents, 15000, 300, "/w/proj/src");
  add(0, 101, kStat, 3000, 0, "/w/proj/src/missing.c", {}, kOfSkipped);
  // node: walks node_modules, writes the bundle; waits for git's last read.
  uint64_t git_done = w.ops.size() - 1;
  for (int i = 0; i < 5; ++i) {
    add(1, 102, kStat, 2500, 800, "/w/proj/node_modules/react/p" + std::to_string(i) + ".json");
    add(1, 102, kOpen, 7000, 100, "/w/proj/node_modules/react/p" + std::to_string(i) + ".json");
  }
  add(1, 102, kGetdents, 20000, 0, "/w/proj/node_modules/react");
  add(1, 102, kMkdir, 30000, 0, "/w/proj/dist", {}, kOfDivergent);
  add(1, 102, kOpen, 9000, 0, "/w/proj/dist/bundle.js", {git_done - 1});
  w.ops.back().dep_kind = DepKind::kPath;
  add(1, 102, kWrite, 40000, 2000, "/w/proj/dist/bundle.js");
  add(1, 102, kStat, 1500, 0, "/usr/lib/node/lib.so");
  (void)node_exec;
  return w;
}

ResultSet small_result(bool slow) {
  SimWorkload w = small_workload();
  w.header.target = slow ? "/mnt/c/proj" : "/home/u/proj";
  w.header.environment_json =
      slow ? R"({"mount":{"kind":"9p-drvfs","fs_type":"9p"}})" : R"({"mount":{"kind":"ext4","fs_type":"ext4"}})";
  w.header.source_trace = "build.trace";
  w.header.options_json = R"({"timing":"think","overlap":{"recorded":1.25}})";
  return simulate(w, [slow](const SimOp& op) {
    if (!slow) return op.latency;
    switch (class_of(op.nr)) {
      case SyscallClass::kStat:
        return op.latency * 10;
      case SyscallClass::kOpen:
        return op.latency * 3;
      default:
        return op.latency;
    }
  });
}

Status write_result_file(const ResultSet& rs, const std::string& path) {
  TraceHeader h = rs.header;
  h.kind = PayloadKind::kResult;
  const WriterOptions several_chunks{.chunk_events = 16, .zstd_level = 3};
  FSR_ASSIGN_OR_RETURN(auto w, TraceWriter::create(path, h, several_chunks));
  std::unordered_map<StrId, StrId> remap;
  for (OpRecord op : rs.ops) {
    if (op.path != kNoStr) {
      auto it = remap.find(op.path);
      if (it == remap.end()) it = remap.emplace(op.path, w->intern(rs.str(op.path))).first;
      op.path = it->second;
    }
    FSR_RETURN_IF_ERROR(w->append(op));
  }
  return w->finish(rs.footer.value_or(TraceFooter{}));
}

}  // namespace fsr::testdata

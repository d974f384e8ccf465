// SPDX-License-Identifier: Apache-2.0
// AFAP replay throughput benchmark: writes a synthetic trace of N ops (default
// 1,000,000) over a small tree, replays it as fast as possible on DIR (tmpfs:
// /dev/shm), and prints ops/s and the per-op overhead of the replayer:
// replay wall time / summed op latency of the busiest replay thread.
//   replay_afap_bench [--ops N] [--threads T] [--dir DIR]
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "replayer/session/replay.h"
#include "traces/syscalls.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

using namespace fsr;

int main(int argc, char** argv) {
  uint64_t ops = 1'000'000;
  uint32_t threads = 2;
  std::string dir = "/dev/shm";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--ops"))
      ops = strtoull(argv[i + 1], nullptr, 10);
    else if (!strcmp(argv[i], "--threads"))
      threads = static_cast<uint32_t>(atoi(argv[i + 1]));
    else if (!strcmp(argv[i], "--dir"))
      dir = argv[i + 1];
  }
  std::string base = dir + "/fsreplay-bench-XXXXXX";
  if (!mkdtemp(base.data())) return perror("mkdtemp"), 1;
  std::string target = base + "/target", scratch = base + "/scratch", trace = base + "/bench.trace";
  mkdir(target.c_str(), 0755);
  mkdir(scratch.c_str(), 0755);

  TraceHeader h;
  h.root = "/w/p";
  h.initial.cwd = "/w/p";
  h.initial.pid = 1;
  auto w = TraceWriter::create(trace, h);
  if (!w) return fprintf(stderr, "%s\n", w.message().c_str()), 1;
  TraceWriter& wr = *w.value();
  constexpr int kFiles = 64;
  std::vector<StrId> files;
  for (int f = 0; f < kFiles; ++f) {
    std::string p = "/w/p/d" + std::to_string(f % 8) + "/f" + std::to_string(f);
    files.push_back(wr.intern(p));
    PrestateEntry e;
    e.path = p;
    e.kind = PrestateKind::kFile;
    e.mode = 0100644;
    e.size = 4096;
    if (Status s = wr.add_prestate(e); !s) return fprintf(stderr, "%s\n", s.message().c_str()), 1;
  }
  // Each thread (its own process, so no cross-thread ordering beyond shared
  // paths, which are read-only here): open, fstat, read, close, stat.
  uint64_t ts = 0, n = 0;
  for (uint64_t it = 0; n < ops; ++it) {
    for (uint32_t t = 0; t < threads && n < ops; ++t) {
      uint32_t pid = 100 + t;
      StrId p = files[(it * threads + t) % kFiles];
      auto ev = [&](uint16_t nr, int64_t ret, std::initializer_list<uint64_t> args, StrId path) {
        Event e;
        e.pid = e.tid = pid;
        e.nr = nr;
        e.ts = ts++;
        e.dur = 1;
        e.ret = ret;
        int k = 0;
        for (uint64_t a : args) e.args[k++] = a;
        e.path[0] = path;
        if (Status s = wr.append(e); !s) {
          fprintf(stderr, "%s\n", s.message().c_str());
          exit(1);
        }
        ++n;
      };
      ev(SYS_openat, 3, {kAtFdcwdArg, 0, O_RDONLY}, p);
      ev(SYS_fstat, 0, {3}, kNoStr);
      ev(SYS_read, 4096, {3, 0, 4096}, kNoStr);
      ev(SYS_close, 0, {3}, kNoStr);
      ev(SYS_newfstatat, 0, {kAtFdcwdArg, 0, 0, 0}, p);
    }
  }
  if (Status s = wr.finish(TraceFooter{}); !s) return fprintf(stderr, "%s\n", s.message().c_str()), 1;

  ReplayOptions o;
  o.target = target;
  o.scratch = scratch;
  o.timing = TimingMode::kAfap;
  o.output = base + "/bench.result";
  o.progress = false;
  o.reset_after = false;
  auto r = run_replay(trace, o);
  if (!r) return fprintf(stderr, "replay failed: %s\n", r.message().c_str()), 1;
  // Summed latency per replay thread, from the result.
  std::vector<uint64_t> busy(64, 0), count(64, 0);
  auto rd = TraceReader::open(r->result_path);
  std::vector<OpRecord> chunk;
  while (rd && rd.value()->next(chunk).value())
    for (auto& op : chunk)
      if (op.worker < busy.size()) busy[op.worker] += op.latency, ++count[op.worker];
  uint64_t max_busy = 0, max_count = 0;
  for (size_t i = 0; i < busy.size(); ++i)
    if (busy[i] > max_busy) max_busy = busy[i], max_count = count[i];
  double wall = static_cast<double>(r->wall_ns);
  printf("ops             %lu (%lu issued, %lu divergent) on %s, %u threads\n", n, r->ops, r->divergences, dir.c_str(),
         threads);
  printf("wall            %.3f s\n", wall / 1e9);
  printf("throughput      %.0f ops/s\n", static_cast<double>(n) / (wall / 1e9));
  printf("busiest thread  %lu ops, %.3f s summed syscall latency\n", max_count, max_busy / 1e9);
  printf("overhead        %.2fx (wall / summed latency), %.0f ns per op\n", wall / static_cast<double>(max_busy),
         (wall - static_cast<double>(max_busy)) / static_cast<double>(max_count));
  std::string cmd = "rm -rf --one-file-system '" + base + "'";
  return system(cmd.c_str()) == 0 && r->divergences == 0 ? 0 : 1;
}

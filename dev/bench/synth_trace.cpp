// SPDX-License-Identifier: Apache-2.0
// Writes a build-shaped synthetic trace of N events (traces/synthetic/synthetic.h, the
// container bench's generator) with a prestate holding every file and
// directory it names, streaming: memory stays flat at any N. For the scale
// bench (dev/bench/scale-bench.sh). Usage:
//   fsreplay_bench_synth_trace EVENTS FILE [PATHS]   (PATHS default min(EVENTS/20+1000, 10000))
#include <fmt/core.h>

#include <set>
#include <string>
#include <vector>

#include "traces/synthetic/synthetic.h"
#include "traces/trace_writer.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    fmt::print(stderr, "usage: fsreplay_bench_synth_trace EVENTS FILE [PATHS]\n");
    return 2;
  }
  const uint64_t target = std::stoull(argv[1]);
  const uint32_t paths = argc > 3 ? static_cast<uint32_t>(std::stoul(argv[3]))
                                  : static_cast<uint32_t>(std::min<uint64_t>(target / 20 + 1000, 10000));
  fsr::TraceHeader h;
  h.command = {"synthetic-build"};
  h.root = "/home/dev/project";
  h.initial.cwd = h.root;
  h.initial.pid = 1000;
  auto w = fsr::TraceWriter::create(argv[2], h);
  if (!w) {
    fmt::print(stderr, "synth_trace: {}\n", w.message());
    return 1;
  }
  // The tree every path lies in: each file with the size its facts give.
  std::set<std::string> dirs;
  for (uint32_t p = 1; p <= paths; ++p) {
    std::string f = fsr::BuildLikeStream::path_name(p);
    for (size_t s = f.find('/', 1); s != std::string::npos; s = f.find('/', s + 1)) dirs.insert(f.substr(0, s));
    fsr::PrestateEntry e;
    e.path = f;
    e.kind = fsr::PrestateKind::kFile;
    e.mode = 0100644;
    e.size = 200 + (p * 2654435761u) % 60000;
    if (auto st = (*w)->add_prestate(e); !st) return fmt::print(stderr, "synth_trace: {}\n", st.message()), 1;
  }
  for (const std::string& d : dirs) {
    if (d.size() < h.root.size()) continue;  // the root's ancestors are not the trace's
    fsr::PrestateEntry e;
    e.path = d;
    e.kind = fsr::PrestateKind::kDir;
    e.mode = 040755;
    if (auto st = (*w)->add_prestate(e); !st) return fmt::print(stderr, "synth_trace: {}\n", st.message()), 1;
  }
  fsr::BuildLikeStream gen(paths);
  std::vector<fsr::Event> batch;
  std::vector<fsr::StrId> id_of{fsr::kNoStr};  // the stream's path ids (1, 2, ... in first use) -> the writer's
  uint64_t n = 0;
  while (n < target) {
    batch.clear();
    gen.step(batch);
    for (const auto& p : gen.new_paths()) id_of.push_back((*w)->intern(p));
    for (fsr::Event e : batch) {
      for (auto& p : e.path)
        if (p != fsr::kNoStr && p < id_of.size()) p = id_of[p];
      if (auto st = (*w)->append(e); !st) return fmt::print(stderr, "synth_trace: {}\n", st.message()), 1;
    }
    n += batch.size();
  }
  if (auto st = (*w)->finish({}); !st) return fmt::print(stderr, "synth_trace: {}\n", st.message()), 1;
  fmt::print("{}: {} events, {} paths, {} bytes\n", argv[2], n, paths, (*w)->bytes_written());
  return 0;
}

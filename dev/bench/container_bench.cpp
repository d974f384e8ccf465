// SPDX-License-Identifier: Apache-2.0
// Container benchmark: writer and reader throughput (events/s, one core) and
// compressed bytes/event on a build-shaped synthetic stream. Prints figures;
// asserts nothing. Usage: fsreplay_bench_container [EVENTS] [ZSTD_LEVEL] [FILE]
#include <fmt/core.h>
#include <time.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "base/clock.h"
#include "traces/synthetic/synthetic.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace {
double clock_s(clockid_t c) { return static_cast<double>(fsr::now_ns(c)) / 1e9; }
// CPU time of this thread: the "one core" figure, robust to other load on the machine.
double cpu_s() { return clock_s(CLOCK_THREAD_CPUTIME_ID); }
double now_s() { return clock_s(CLOCK_MONOTONIC); }
}  // namespace

int main(int argc, char** argv) {
  const uint64_t target = argc > 1 ? std::stoull(argv[1]) : 1'000'000;
  const int level = argc > 2 ? std::stoi(argv[2]) : fsr::WriterOptions{}.zstd_level;
  const std::string path = argc > 3 ? argv[3] : "/tmp/fsreplay-bench-" + std::to_string(getpid()) + ".trace";

  // Generate first so that the writer is timed alone.
  fsr::BuildLikeStream gen(static_cast<uint32_t>(target / 20 + 1000));
  std::vector<fsr::Event> events;
  std::vector<std::pair<size_t, std::string>> new_paths;  // (event index, path) in intern order
  events.reserve(target + 64);
  std::vector<fsr::Event> batch;
  while (events.size() < target) {
    batch.clear();
    gen.step(batch);
    for (const auto& p : gen.new_paths()) new_paths.emplace_back(events.size(), p);
    events.insert(events.end(), batch.begin(), batch.end());
  }

  fsr::TraceHeader h;
  h.command = {"bench"};
  double t0 = now_s(), c0 = cpu_s();
  auto w = fsr::TraceWriter::create(path, h, {.zstd_level = level});
  if (!w) {
    fmt::print(stderr, "bench: {}\n", w.message());
    return 1;
  }
  size_t np = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    while (np < new_paths.size() && new_paths[np].first == i) (*w)->intern(new_paths[np++].second);
    if (auto st = (*w)->append(events[i]); !st) {
      fmt::print(stderr, "bench: {}\n", st.message());
      return 1;
    }
  }
  if (auto st = (*w)->finish({}); !st) {
    fmt::print(stderr, "bench: {}\n", st.message());
    return 1;
  }
  double t_write = now_s() - t0, c_write = cpu_s() - c0;
  uint64_t bytes = (*w)->bytes_written();
  w = fsr::Status::error("closed");

  t0 = now_s();
  c0 = cpu_s();
  auto r = fsr::TraceReader::open(path);
  if (!r) {
    fmt::print(stderr, "bench: {}\n", r.message());
    return 1;
  }
  uint64_t read = 0, checksum = 0;
  std::vector<fsr::Event> out;
  while (true) {
    auto got = (*r)->next(out);
    if (!got || !got.value()) break;
    read += out.size();
    for (const auto& e : out) checksum += e.tid + e.path[0];  // exact fields (timings are quantised)
  }
  double t_read = now_s() - t0, c_read = cpu_s() - c0;
  uint64_t expect = 0;
  for (const auto& e : events) expect += e.tid + e.path[0];
  unlink(path.c_str());
  if (read != events.size() || checksum != expect) {
    fmt::print(stderr, "bench: read back {} events (checksum {}), wrote {} ({})\n", read, checksum, events.size(),
               expect);
    return 1;
  }
  fmt::print("container bench: {} build-shaped events, {} distinct paths, zstd level {}\n", events.size(),
             new_paths.size(), level);
  fmt::print("  writer   {:>8.2f} M events/s per CPU-second   ({:.3f} s CPU, {:.3f} s wall)\n",
             events.size() / c_write / 1e6, c_write, t_write);
  fmt::print("  reader   {:>8.2f} M events/s per CPU-second   ({:.3f} s CPU, {:.3f} s wall)\n", read / c_read / 1e6,
             c_read, t_read);
  fmt::print("  size     {:>8.2f} bytes/event  ({} bytes)\n", static_cast<double>(bytes) / events.size(), bytes);
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
// predict's speed: a build-shaped synthetic stream (traces/synthetic/synthetic.h, six
// threads of stat probes, source reads, directory scans, output writes) of N
// events, predicted on one core as `fsreplay predict` does it: the survey
// pass, then the streaming planner with the simulator on its window (one
// column, the events in memory), each phase timed; with --end-to-end, the
// whole verb (recorded column + one profile) on the same events from a file.
// Prints events/s (the acceptance figure: >= 5 M end to end). --keep DIR
// leaves the trace and profile there, for `/usr/bin/time -v fsreplay predict`
// (this process's own peak RSS holds the generated events).
//
//   predict_bench [--events N] [--profile FILE] [--rounds R] [--window W] [--end-to-end] [--keep DIR]
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "replayer/engine/engine.h"
#include "replayer/plan/plan.h"
#include "tests/predict/predict_testdata.h"
#include "predict/latency_model.h"
#include "predict/predict.h"
#include "predict/predict_stream.h"
#include "base/clock.h"
#include "traces/synthetic/synthetic.h"
#include "traces/trace_writer.h"

namespace {

using namespace fsr;

struct BenchArgs {
  uint64_t events = 3'400'000;
  int rounds = 3;
  std::string profile_file;
  bool end_to_end = false;
  uint64_t window = 1u << 17;
  std::string keep;
  uint32_t slots = 0;
};

bool parse_args(int argc, char** argv, BenchArgs& a) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--events") && i + 1 < argc)
      a.events = std::stoull(argv[++i]);
    else if (!std::strcmp(argv[i], "--profile") && i + 1 < argc)
      a.profile_file = argv[++i];
    else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc)
      a.rounds = std::stoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--slots") && i + 1 < argc)
      a.slots = static_cast<uint32_t>(std::stoul(argv[++i]));
    else if (!std::strcmp(argv[i], "--window") && i + 1 < argc)
      a.window = std::stoull(argv[++i]);
    else if (!std::strcmp(argv[i], "--keep") && i + 1 < argc)
      a.keep = argv[++i];
    else if (!std::strcmp(argv[i], "--end-to-end"))
      a.end_to_end = true;
    else
      return false;
  }
  return true;
}

long rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// The synthetic events and their path strings (names[0]: the empty string).
struct BenchStream {
  std::vector<Event> ev;
  std::vector<std::string> names{""};
};

BenchStream make_stream(uint64_t n) {
  BenchStream s;
  BuildLikeStream gen(40'000);
  s.ev.reserve(n + 16);
  while (s.ev.size() < n) {
    gen.step(s.ev);
    for (const std::string& p : gen.new_paths()) s.names.push_back(p);
  }
  return s;
}

// The survey, planner and one simulator on the events in memory, `rounds` times.
int bench_stream(const BenchArgs& a, const BenchStream& s, const PlanInputs& in, const LatencyModel& model) {
  const StringLookup str = [&](StrId id) { return std::string_view(id < s.names.size() ? s.names[id] : s.names[0]); };
  const double mev = double(s.ev.size()) / 1e6;
  for (int r = 0; r < a.rounds; ++r) {
    std::vector<StreamColumn> cols(1);
    cols[0].model = &model;
    StreamOptions so;
    so.window = a.window;
    so.seed = 42;
    const uint64_t c0 = now_ns(CLOCK_THREAD_CPUTIME_ID), w0 = mono_ns();
    auto st = simulate_stream(in, str, chunks_of(s.ev), chunks_of(s.ev), cols, so);
    const double cpu = double(now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / 1e9, wall = double(mono_ns() - w0) / 1e9;
    if (!st) {
      std::fprintf(stderr, "predict_bench: %s\n", st.message().c_str());
      return 1;
    }
    auto sec = [](uint64_t ns) { return double(ns) / 1e9; };
    std::printf(
        "predict_bench: %zu events, window %llu: %.3f s CPU (%.3f s wall), %.2f M events/s per CPU-second "
        "[survey %.3f s, plan %.3f s, simulate %.3f s, records %.3f s]; predicted wall %.3f s; "
        "simulator %.1f MiB, op lists %.2f MiB\n",
        s.ev.size(), static_cast<unsigned long long>(st->window), cpu, wall, mev / cpu, sec(st->survey_ns),
        sec(st->plan_ns), sec(st->simulate_ns), sec(st->sink_ns), sec(cols[0].sim.wall_ns),
        double(cols[0].sim.window_bytes) / 1048576.0, double(st->view_bytes) / 1048576.0);
  }
  std::printf("  peak RSS %.1f MiB (the generated events: %.0f MiB)\n", double(rss_kib()) / 1024,
              double(s.ev.size() * sizeof(Event)) / 1048576.0);
  return 0;
}

// The whole verb on the same events, from a file: load, plan, simulate,
// report. The events are let go once written.
int bench_end_to_end(const BenchArgs& a, BenchStream& s, const PlanInputs& in, const Profile& prof) {
  const double mev = double(s.ev.size()) / 1e6;
  char tmp[] = "/var/tmp/fsr-predict-bench-XXXXXX";
  const std::string dir = !a.keep.empty() ? a.keep : mkdtemp(tmp) ? std::string(tmp) : std::string();
  if (dir.empty()) return 1;
  const std::string trace = dir + "/bench.trace", pfile = dir + "/bench.profile";
  TraceHeader h;
  h.root = in.recorded_root;
  h.initial.cwd = in.initial.cwd;
  auto w = TraceWriter::create(trace, h);
  if (!w) return 1;
  for (size_t i = 1; i < s.names.size(); ++i) w.value()->add_string(s.names[i]);
  for (const Event& e : s.ev) (void)w.value()->append(e);
  (void)w.value()->finish({});
  (void)write_profile(pfile, prof);
  std::vector<Event>().swap(s.ev);
  PredictOptions po;
  po.profiles = {pfile};
  po.stream.window = a.window;
  for (int r = 0; r < a.rounds; ++r) {
    const uint64_t c0 = now_ns(CLOCK_THREAD_CPUTIME_ID), w0 = mono_ns();
    auto pr = run_predict(trace, po);
    const double cpu = double(now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / 1e9, wall = double(mono_ns() - w0) / 1e9;
    if (!pr) {
      std::fprintf(stderr, "predict_bench: %s\n", pr.message().c_str());
      return 1;
    }
    std::printf(
        "  end to end (recorded + 1 profile): %.3f s CPU (%.3f s wall), %.2f M events/s per CPU-second "
        "[CPU: survey %.2f s, plan %.2f s, simulate %.2f s (2 columns), summaries %.2f s, report %.2f s]; "
        "predicted %.3f s, queue wait %.3f s\n",
        cpu, wall, mev / cpu, double(pr->load_ns) / 1e9, double(pr->plan_ns) / 1e9, double(pr->simulate_ns) / 1e9,
        double(pr->summary_ns) / 1e9, double(pr->report_ns) / 1e9, double(pr->columns.back().sim.wall_ns) / 1e9,
        double(pr->columns.back().sim.queue_wait_ns) / 1e9);
  }
  if (!a.keep.empty()) {
    std::printf("  kept %s and %s\n", trace.c_str(), pfile.c_str());
    return 0;
  }
  unlink(trace.c_str());
  unlink(pfile.c_str());
  rmdir(dir.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  BenchArgs args;
  if (!parse_args(argc, argv, args)) {
    std::fprintf(stderr,
                 "usage: predict_bench [--events N] [--profile FILE] [--slots N] [--rounds R] [--window W] "
                 "[--end-to-end] [--keep DIR]\n");
    return 2;
  }
  BenchStream stream = make_stream(args.events);
  Profile prof = testdata::fixed_profile("bench", 20'000);
  if (!args.profile_file.empty()) {
    auto r = read_profile(args.profile_file);
    if (!r) {
      std::fprintf(stderr, "predict_bench: %s\n", r.message().c_str());
      return 1;
    }
    prof = r.value();
  }
  if (args.slots) {
    prof.server.slots = args.slots;
    prof.server.service_ns = 15'000;
    prof.server.read_bw_direct = prof.server.read_bw_buffered = 100'000'000;
    prof.server.write_bw_direct = prof.server.write_bw_buffered = 100'000'000;
  }
  PlanInputs in;
  in.recorded_root = "/home/dev/project";
  in.target_dir = "/T";
  in.scratch_dir = "/S";
  in.initial.cwd = "/home/dev/project";
  const LatencyModel model(prof);
  if (int rc = bench_stream(args, stream, in, model); rc != 0) return rc;
  if (!args.end_to_end) return 0;
  return bench_end_to_end(args, stream, in, prof);
}

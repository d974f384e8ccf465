// predict's speed: a build-shaped synthetic stream (traces/synthetic.h, six
// threads of stat probes, source reads, directory scans, output writes) of N
// events, planned once, then simulated against a profile on one core.
// Prints events/s of the simulation alone (the acceptance figure: >= 5 M)
// and of each phase of a whole `fsreplay predict` run on the same trace.
//
//   predict_bench [--events N] [--profile FILE] [--rounds R] [--end-to-end]
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "replayer/engine.h"
#include "replayer/plan.h"
#include "tests/predict/predict_testdata.h"
#include "tools/predict/latency_model.h"
#include "tools/predict/op_cost.h"
#include "tools/predict/predict.h"
#include "tools/predict/simulator.h"
#include "traces/clock.h"
#include "traces/synthetic.h"
#include "traces/trace_writer.h"

namespace {

long rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace fsr;
  uint64_t n = 3'400'000;
  int rounds = 3;
  std::string profile_file;
  bool end_to_end = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--events") && i + 1 < argc) n = std::stoull(argv[++i]);
    else if (!std::strcmp(argv[i], "--profile") && i + 1 < argc) profile_file = argv[++i];
    else if (!std::strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = std::stoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--end-to-end")) end_to_end = true;
    else {
      std::fprintf(stderr, "usage: predict_bench [--events N] [--profile FILE] [--rounds R] [--end-to-end]\n");
      return 2;
    }
  }
  BuildLikeStream gen(40'000);
  std::vector<Event> ev;
  std::vector<std::string> names{""};
  ev.reserve(n + 16);
  while (ev.size() < n) {
    gen.step(ev);
    for (const std::string& p : gen.new_paths()) names.push_back(p);
  }
  Profile prof = testdata::fixed_profile("bench", 20'000);
  if (!profile_file.empty()) {
    auto r = read_profile(profile_file);
    if (!r) {
      std::fprintf(stderr, "predict_bench: %s\n", r.message().c_str());
      return 1;
    }
    prof = r.value();
  }
  PlanInputs in;
  in.recorded_root = "/home/dev/project";
  in.target_dir = "/T";
  in.scratch_dir = "/S";
  in.initial.cwd = "/home/dev/project";
  uint64_t t0 = mono_ns();
  const Plan plan = build_plan(ev, [&](StrId id) { return std::string_view(id < names.size() ? names[id] : names[0]); }, in);
  const double plan_s = double(mono_ns() - t0) / 1e9;
  const PlanView view(plan, ev);
  LatencyModel model(prof);
  std::printf("predict_bench: %zu events, %zu workers, %zu dependency edges; plan %.2f s (%.2f M events/s)\n", ev.size(),
              size_t{plan.worker_count}, plan.deps.size(), plan_s, double(ev.size()) / plan_s / 1e6);
  std::vector<OpRecord> out;
  for (int r = 0; r < rounds; ++r) {
    for (bool records : {false, true}) {
      OpCost cost(view, &model, 42, false);
      const uint64_t c0 = now_ns(CLOCK_THREAD_CPUTIME_ID), w0 = mono_ns();
      const SimStats st = simulate(view, cost, {}, records ? &out : nullptr);
      const double cpu = double(now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / 1e9, wall = double(mono_ns() - w0) / 1e9;
      std::printf("  simulate%s: %.3f s CPU (%.3f s wall), %.2f M events/s per CPU-second; predicted wall %.3f s; "
                  "window %.1f MiB\n",
                  records ? " + OpRecords" : "           ", cpu, wall, double(ev.size()) / cpu / 1e6,
                  double(st.wall_ns) / 1e9, double(st.window_bytes) / 1048576.0);
    }
  }
  std::printf("  peak RSS %.1f MiB (events %.0f B, plan ~%.0f B, OpRecords %zu B per event)\n", double(rss_kib()) / 1024,
              double(sizeof(Event)), double(sizeof(PlanOp)), sizeof(OpRecord));
  if (!end_to_end) return 0;
  // The whole verb on the same events, from a file: load, plan, simulate, report.
  char dir[] = "/var/tmp/fsr-predict-bench-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  const std::string trace = std::string(dir) + "/bench.trace", pfile = std::string(dir) + "/bench.profile";
  TraceHeader h;
  h.root = in.recorded_root;
  h.initial.cwd = in.initial.cwd;
  auto w = TraceWriter::create(trace, h);
  if (!w) return 1;
  for (size_t i = 1; i < names.size(); ++i) w.value()->add_string(names[i]);
  for (const Event& e : ev) (void)w.value()->append(e);
  (void)w.value()->finish({});
  (void)write_profile(pfile, prof);
  PredictOptions po;
  po.profiles = {pfile};
  auto pr = run_predict(trace, po);
  if (!pr) {
    std::fprintf(stderr, "predict_bench: %s\n", pr.message().c_str());
    return 1;
  }
  std::printf("  end to end (recorded + 1 profile): load %.2f s, plan %.2f s, simulate %.2f s (2 runs, %.2f M events/s), "
              "report %.2f s; peak RSS %.1f MiB\n",
              double(pr->load_ns) / 1e9, double(pr->plan_ns) / 1e9, double(pr->simulate_ns) / 1e9,
              2.0 * double(ev.size()) / (double(pr->simulate_ns) / 1e9) / 1e6, double(pr->report_ns) / 1e9,
              double(rss_kib()) / 1024);
  unlink(trace.c_str());
  unlink(pfile.c_str());
  rmdir(dir);
  return 0;
}

#include "tools/predict/predict.h"

#include <ctime>
#include <memory>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "replayer/engine.h"
#include "replayer/plan.h"
#include "replayer/replay_summary.h"
#include "tools/detect/detect.h"
#include "tools/predict/latency_model.h"
#include "tools/predict/op_cost.h"
#include "traces/profile.h"
#include "traces/trace_reader.h"

namespace fsr {
namespace {

struct Trace {
  std::unique_ptr<TraceReader> reader;
  std::vector<Event> events;
  std::unordered_map<StrId, std::string> strings;  // the path each op is named by (as replay names it)
  std::vector<StrId> op_path;
};

Result<Trace> load_trace(const std::string& path, std::vector<std::string>& problems) {
  Trace t;
  FSR_ASSIGN_OR_RETURN(t.reader, TraceReader::open(path));
  if (t.reader->kind() != PayloadKind::kTrace)
    return Status::error(path + " is a " + (t.reader->kind() == PayloadKind::kProfile ? "profile" : "replay result") +
                         ", not a trace: predict TRACE --profile PROFILE");
  std::vector<Event> chunk;
  while (true) {
    FSR_ASSIGN_OR_RETURN(const bool more, t.reader->next(chunk));
    if (!more) break;
    t.events.insert(t.events.end(), chunk.begin(), chunk.end());
  }
  const ReadProblems& pr = t.reader->problems();
  if (t.events.empty())
    return Status::error(path + ": no readable events" + (pr.messages.empty() ? std::string() : " (" + pr.messages.front() + ")"));
  if (t.events.size() >= kNoOp) return Status::error(path + ": more than 4G events, split the trace");
  for (const std::string& m : pr.messages) problems.push_back(m + " (predicted what was readable)");
  t.op_path.resize(t.events.size(), kNoStr);
  for (size_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    StrId p = e.path[0] != kNoStr ? e.path[0] : e.path[1];
    const SyscallInfo* si = syscall_info(e.nr);
    if (si && (si->flags & kSfLiteralPath0) && e.path[1] != kNoStr) p = e.path[1];
    t.op_path[i] = p;
    if (p != kNoStr && !t.strings.count(p)) t.strings.emplace(p, std::string(t.reader->str(p)));
  }
  return t;
}

std::string recorded_kind(const TraceHeader& h) {
  const MountEntry* m = mount_for_path(h.mounts, h.root.empty() ? "/" : h.root);
  return m ? classify_mount(*m, 0, Platform::kLinux).kind : std::string("as traced");
}

ResultSet to_result(const Trace& t, std::vector<OpRecord>&& ops, const std::string& target, const std::string& kind,
                    const std::string& profile_file, const SimStats& st, double overlap) {
  ResultSet rs;
  rs.header = t.reader->header();
  rs.header.kind = PayloadKind::kResult;
  rs.header.source_trace = t.reader->path();
  rs.header.target = target;
  rs.header.environment_json = nlohmann::json{{"mount", {{"kind", kind}}}}.dump();
  // The original's overlap, as a replay's result holds it, for the dependency-wait table.
  rs.header.options_json =
      nlohmann::json{{"predicted", true}, {"profile", profile_file}, {"overlap", {{"recorded", overlap}}}}.dump();
  rs.ops = std::move(ops);
  for (size_t i = 0; i < rs.ops.size(); ++i) rs.ops[i].path = t.op_path[i];
  rs.strings = t.strings;
  TraceFooter f;
  f.wall_ns = f.end_ns = st.wall_ns;
  rs.footer = f;
  return rs;
}

std::string probed_line(const Profile& p) {
  auto env = nlohmann::json::parse(p.environment_json, nullptr, false);
  auto field = [&](const char* k) {
    return env.is_object() && env.contains(k) && env[k].is_string() ? env[k].get<std::string>() : std::string("?");
  };
  char when[32] = "?";
  if (p.started_wall_ns) {
    const time_t s = static_cast<time_t>(p.started_wall_ns / 1'000'000'000ull);
    struct tm tm{};
    gmtime_r(&s, &tm);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);
  }
  return fmt::format("{} on {} (kernel {}), {} rounds{}", when, field("hostname"), field("kernel_release"), p.rounds,
                     p.cold_measured ? "" : ", cold cases not measured");
}

std::vector<std::string> assumptions(const std::string& name, const CostNotes& n, const SimStats& st,
                                     const SimOptions& so) {
  std::vector<std::string> out;
  for (int c = 0; c < kClassCount; ++c) {
    if (!n.unmeasured[c]) continue;
    out.push_back(fmt::format("profile {} never measured {} ops of class {}: assumed their recorded duration (as on "
                              "the traced mount)",
                              name, n.unmeasured[c], class_name(static_cast<SyscallClass>(c))));
  }
  for (int k = 0; k < kProbeKindCount; ++k)
    if (n.missing_kind[k])
      out.push_back(fmt::format("profile {} has no '{}' case ({} ops)", name, probe_kind_name(static_cast<ProbeKind>(k)),
                                n.missing_kind[k]));
  if (n.cold_as_warm)
    out.push_back(fmt::format("{} ops found the mount's caches cold but profile {} has no cold case for them: "
                              "assumed warm (probe as root to measure cold)",
                              n.cold_as_warm, name));
  if (n.copy_as_read_write)
    out.push_back(fmt::format("{} copy ops priced as a read plus a write of their bytes", n.copy_as_read_write));
  if (n.local)
    out.push_back(fmt::format("{} ops outside the recorded root (scratch) or on devices: their recorded duration, as "
                              "the replay runs them on the local disk",
                              n.local));
  if (st.forced) out.push_back(fmt::format("{} ops ran before a dependency that was never simulated (damaged plan)", st.forced));
  if (st.window_lookups)
    out.push_back(fmt::format("{} dependencies lay more than {} ops back: taken as done at the latest completion "
                              "released (an upper bound)",
                              st.window_lookups, so.window_ops));
  return out;
}

}  // namespace

Result<Prediction> run_predict(const std::string& trace_path, const PredictOptions& opt) {
  Prediction pr;
  pr.trace = trace_path;
  uint64_t t0 = mono_ns();
  FSR_ASSIGN_OR_RETURN(Trace t, load_trace(trace_path, pr.problems));
  pr.events = t.events.size();
  uint64_t t1 = mono_ns();
  pr.load_ns = t1 - t0;
  const TraceHeader& h = t.reader->header();
  PlanInputs in;
  in.recorded_root = h.root.empty() ? "/" : h.root;
  in.target_dir = "/fsreplay-predict/target";
  in.scratch_dir = "/fsreplay-predict/scratch";
  in.initial = h.initial;
  TraceReader* rd = t.reader.get();
  const Plan plan = build_plan(t.events, [rd](StrId id) { return rd->str(id); }, in);
  const PlanView view(plan, t.events);
  const double overlap = recorded_overlap(plan, t.events);
  uint64_t t2 = mono_ns();
  pr.plan_ns = t2 - t1;

  std::optional<ResultSet> baseline;
  const StatsOptions so{.dir_depth = opt.report.dir_depth};
  auto add_column = [&](PredictColumn col, ResultSet rs) {
    uint64_t r0 = mono_ns();
    Comparison one = build_comparison({&rs}, so);
    pr.comparison.columns.push_back(std::move(one.columns.front()));
    if (!baseline) baseline = std::move(rs);
    else pr.reports.push_back(build_report(rs, &*baseline, opt.report));
    pr.columns.push_back(std::move(col));
    pr.report_ns += mono_ns() - r0;
  };

  if (opt.recorded_column) {
    uint64_t s0 = mono_ns();
    OpCost cost(view, nullptr, opt.seed, opt.cold_start);
    std::vector<OpRecord> ops;
    PredictColumn col;
    col.sim = simulate(view, cost, opt.sim, &ops);
    pr.simulate_ns += mono_ns() - s0;
    const std::string kind = recorded_kind(h);
    col.label = "recorded (" + kind + ")";
    col.profile_name = "recorded";
    col.probed = "the trace's own durations, simulated with the same plan";
    SimStats st = col.sim;
    add_column(std::move(col), to_result(t, std::move(ops), "recorded", kind, "", st, overlap));
  }
  for (const std::string& file : opt.profiles) {
    auto p = read_profile(file);
    if (!p) {
      pr.problems.push_back(p.message() + " (left out of the prediction)");
      continue;
    }
    const Profile& prof = p.value();
    const std::string name = !prof.name.empty() ? prof.name : !prof.mount_kind().empty() ? prof.mount_kind() : file;
    uint64_t s0 = mono_ns();
    LatencyModel model(prof);
    OpCost cost(view, &model, opt.seed, opt.cold_start);
    std::vector<OpRecord> ops;
    PredictColumn col;
    col.sim = simulate(view, cost, opt.sim, &ops);
    pr.simulate_ns += mono_ns() - s0;
    col.label = "predicted (" + name + ")";
    col.profile_file = file;
    col.profile_name = name;
    col.fingerprint_json = prof.environment_json;
    col.probed = probed_line(prof);
    col.assumptions = assumptions(name, cost.notes(), col.sim, opt.sim);
    SimStats st = col.sim;
    add_column(std::move(col), to_result(t, std::move(ops), "predicted", name, file, st, overlap));
  }
  if (pr.columns.empty() || (pr.columns.size() == 1 && opt.recorded_column && !opt.profiles.empty()))
    return Status::error(pr.problems.empty() ? std::string("nothing to predict: give --profile PROFILE")
                                             : pr.problems.back());
  for (int c = 0; c < kClassCount; ++c) {
    bool seen = false;
    for (const CompareColumn& col : pr.comparison.columns) seen = seen || col.stats.by_class[c].count() > 0;
    if (seen) pr.comparison.classes.push_back(static_cast<SyscallClass>(c));
  }
  return pr;
}

}  // namespace fsr

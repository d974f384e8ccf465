// SPDX-License-Identifier: Apache-2.0
#include "predict/predict.h"

#include <algorithm>
#include <ctime>
#include <functional>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "replayer/plan/plan.h"
#include "replayer/plan/speed_hazards.h"
#include "detect/detect.h"
#include "predict/latency_model.h"
#include "predict/predict_stream.h"
#include "report/result_summary.h"
#include "base/clock.h"
#include "traces/op_path.h"
#include "traces/profile.h"
#include "base/text_safe.h"
#include "traces/trace_reader.h"

namespace fsr {
namespace {

Result<std::unique_ptr<TraceReader>> open_trace(const std::string& path) {
  FSR_ASSIGN_OR_RETURN(std::unique_ptr<TraceReader> r, TraceReader::open(path));
  if (r->kind() != PayloadKind::kTrace)
    return wrong_kind(path, r->kind(), PayloadKind::kTrace, "predict TRACE --profile PROFILE");
  return r;
}

std::string recorded_kind(const TraceHeader& h) {
  const MountEntry* m = mount_for_path(h.mounts, h.root.empty() ? "/" : h.root);
  return m ? classify_mount(*m, 0, Platform::kLinux).kind : std::string("as traced");
}

// A column's result as a replay's would carry it: the summary's header.
ResultMeta column_meta(const TraceHeader& trace, const std::string& source, const std::string& target,
                       const std::string& kind) {
  ResultMeta m;
  m.header = trace;
  m.header.kind = PayloadKind::kResult;
  m.header.source_trace = source;
  m.header.target = target;
  m.header.environment_json = nlohmann::json{{"mount", {{"kind", kind}}}}.dump();
  return m;
}

std::string probed_line(const Profile& p) {
  auto env = nlohmann::json::parse(p.environment_json, nullptr, false);
  auto field = [&](const char* k) {
    return env.is_object() && env.contains(k) && env[k].is_string() ? env[k].get<std::string>() : std::string("?");
  };
  char when[32] = "?";
  if (p.started_wall_ns) {
    const time_t s = static_cast<time_t>(p.started_wall_ns / 1'000'000'000ull);
    struct tm tm {};
    gmtime_r(&s, &tm);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);
  }
  return fmt::format("{} on {} (kernel {}), {} rounds{}", when, field("hostname"), field("kernel_release"), p.rounds,
                     p.cold_measured ? "" : ", cold cases not measured");
}

// What the column assumed of the mount as a server.
std::vector<std::string> server_assumptions(const ServerModel& m) {
  if (!m.measured())
    return {
        "the profile has no server model: the mount is assumed to serve every request at once; probe again "
        "with this fsreplay to measure it"};
  if (!m.read_bw_direct && !m.write_bw_direct && !m.read_bw_buffered && !m.write_bw_buffered)
    return {
        "the profile has no bandwidth: large transfers are assumed to take their probed time whatever else "
        "is in flight"};
  return {};
}

std::vector<std::string> assumptions(const std::string& name, const CostNotes& n, const SimStats& st, uint64_t retained,
                                     const std::vector<std::string>& server) {
  std::vector<std::string> out;
  for (int c = 0; c < kClassCount; ++c) {
    if (!n.unmeasured[c]) continue;
    out.push_back(
        fmt::format("profile {} never measured {} ops of class {}: assumed their recorded duration (as on "
                    "the traced mount)",
                    name, n.unmeasured[c], class_name(static_cast<SyscallClass>(c))));
  }
  for (int k = 0; k < kProbeKindCount; ++k)
    if (n.missing_kind[k])
      out.push_back(fmt::format("profile {} has no '{}' case ({} ops)", name,
                                probe_kind_name(static_cast<ProbeKind>(k)), n.missing_kind[k]));
  if (n.cold_as_warm)
    out.push_back(
        fmt::format("{} ops found the mount's caches cold but profile {} has no cold case for them: "
                    "assumed warm (probe as root to measure cold)",
                    n.cold_as_warm, name));
  if (n.stat_written_unprobed)
    out.push_back(
        fmt::format("profile {} has no 'stat-written' case (profiles before version 2 lack it): {} stats of files "
                    "written since their last lookup priced as lookups (probe again to measure them)",
                    name, n.stat_written_unprobed));
  if (n.copy_as_read_write)
    out.push_back(fmt::format("{} copy ops priced as a read plus a write of their bytes", n.copy_as_read_write));
  if (n.local)
    out.push_back(
        fmt::format("{} ops outside the recorded root (scratch) or on devices: their recorded duration, as "
                    "the replay runs them on the local disk",
                    n.local));
  if (st.forced)
    out.push_back(fmt::format("{} ops ran before a dependency that was never simulated (damaged plan)", st.forced));
  out.insert(out.end(), server.begin(), server.end());
  if (st.window_lookups)
    out.push_back(
        fmt::format("{} dependencies lay more than {} ops back: taken as done at the latest completion "
                    "released (an upper bound)",
                    st.window_lookups, retained));
  return out;
}

// A column of the prediction: its figures, its latency model (none: the
// recorded durations) and the summary its records build.
struct Column {
  PredictColumn col;
  std::unique_ptr<LatencyModel> model;
  std::unique_ptr<SummaryBuilder> sum;   // (not movable)
  std::unique_ptr<PlacedModels> placed;  // a placement column's (model: a copy of its rest's)
};

using PathOf = std::function<std::string_view(StrId)>;

// A column per placement, priced with the profile columns' models.
void add_placement_columns(const TraceHeader& h, const std::string& source, const PredictOptions& opt,
                           const StatsOptions& so, std::vector<Column>& cols, std::vector<std::string>& problems) {
  std::vector<ProfileRef> refs;
  for (const Column& c : cols)
    if (c.model) refs.push_back({c.col.profile_file, c.col.profile_name, c.model.get()});
  for (const PlacementRequest& req : opt.placements) {
    auto m = resolve_placement(req, refs, problems);
    if (!m) {
      problems.push_back(m.message() + " (no placement column)");
      continue;
    }
    Column& c = cols.emplace_back();
    c.placed = std::move(m.value());
    c.model = std::make_unique<LatencyModel>(*c.placed->rest);
    c.col.placement = c.placed->placement.describe();
    c.col.profile_name = req.label.empty() ? "placed: " + c.col.placement : req.label;
    c.col.label = "predicted (" + c.col.profile_name + ")";
    c.col.profile_file = "";
    c.col.fingerprint_json = "";
    c.col.probed = "profiles " + c.col.placement;
    c.sum = std::make_unique<SummaryBuilder>(column_meta(h, source, "predicted", c.col.profile_name), so);
  }
}

// The columns: the recorded durations, then each readable profile; an
// unreadable profile is left out with a line in `problems`.
std::vector<Column> make_columns(const TraceHeader& h, const std::string& source, const PredictOptions& opt,
                                 std::vector<std::string>& problems) {
  std::vector<Column> cols;
  const StatsOptions so{.dir_depth = opt.report.dir_depth};
  if (opt.recorded_column) {
    Column& c = cols.emplace_back();
    const std::string kind = recorded_kind(h);
    c.col.label = "recorded (" + kind + ")";
    c.col.profile_name = "recorded";
    c.col.probed = "the trace's own durations, simulated with the same plan";
    c.sum = std::make_unique<SummaryBuilder>(column_meta(h, source, "recorded", kind), so);
  }
  for (const std::string& file : opt.profiles) {
    auto p = read_profile(file);
    if (!p) {
      problems.push_back(p.message() + " (left out of the prediction)");
      continue;
    }
    const Profile& prof = p.value();
    const std::string name = !prof.name.empty() ? prof.name : !prof.mount_kind().empty() ? prof.mount_kind() : file;
    Column& c = cols.emplace_back();
    c.model = std::make_unique<LatencyModel>(prof);
    c.col.label = "predicted (" + name + ")";
    c.col.profile_file = file;
    c.col.profile_name = name;
    c.col.fingerprint_json = prof.environment_json;
    c.col.probed = probed_line(prof);
    c.col.server.model = prof.server;
    c.col.server.model.sweep.clear();
    c.col.server.client_ns = ServerQueue::client_part(prof.server, prof.syscall_overhead_ns);
    c.sum = std::make_unique<SummaryBuilder>(column_meta(h, source, "predicted", name), so);
  }
  add_placement_columns(h, source, opt, so, cols, problems);
  return cols;
}

// One stream column per column, its records added to the column's summary;
// then the further draws of each profile column: the same model, other
// seeds, no records. `draw_of` gets the column of each further draw.
std::vector<StreamColumn> stream_columns(const std::vector<Column>& cols, const PathOf& path_of,
                                         const PredictOptions& opt, std::vector<size_t>& draw_of) {
  std::vector<StreamColumn> sc(cols.size());
  const PathOf* paths = &path_of;  // (the caller's: it outlives the simulation)
  for (size_t k = 0; k < cols.size(); ++k) {
    sc[k].model = cols[k].model.get();
    sc[k].placed = cols[k].placed.get();
    SummaryBuilder* b = cols[k].sum.get();
    sc[k].sink = [b, paths](const OpRecord& r, const Event& e, const PlanOp&) {
      OpRecord named = r;
      named.path = op_path(e);
      b->add(named, r.event_index, *paths);
    };
  }
  for (size_t k = 0; k < cols.size(); ++k)
    for (unsigned j = 1; cols[k].model && j < opt.draws; ++j) {
      StreamColumn& x = sc.emplace_back();
      x.model = cols[k].model.get();
      x.placed = cols[k].placed.get();
      x.seed = opt.stream.seed + j * 0x9e3779b97f4a7c15ull;
      if (x.seed == 0) x.seed = 1;
      draw_of.push_back(k);
    }
  return sc;
}

// The planner's inputs as a replay's, on directories predict never touches.
PlanInputs plan_inputs(const TraceHeader& h) {
  PlanInputs in;
  in.recorded_root = h.root.empty() ? "/" : h.root;
  // Walks as the replay makes them: a relative path priced from its base.
  in.walks_as_passed = h.has_choice(kRecorderChoiceWalks);
  in.target_dir = "/fsreplay-predict/target";
  in.scratch_dir = "/fsreplay-predict/scratch";
  in.initial = h.initial;
  return in;
}

// The plan's own approximations, as replay warns of them (replay.cpp).
void add_plan_assumptions(const StreamStats& st, std::vector<std::string>& out) {
  if (st.beyond_window)
    out.push_back(
        fmt::format("{} waits found their waker only beyond the {}-event lookahead: "
                    "simulated with an approximate dependency, as the replay runs them",
                    st.beyond_window, st.lookahead));
  if (st.moves_beyond_window)
    out.push_back(
        fmt::format("{} overlapping calls' order (by their results) came more than the "
                    "{}-event lookahead after the earlier call: simulated in the order "
                    "they returned, as the replay runs them",
                    st.moves_beyond_window, st.lookahead));
}

// Each column's figures into `pr`, in column order, and its summary (the
// same order) for the tables.
std::vector<ResultSummary> finish_columns(std::vector<Column>& cols, const std::vector<StreamColumn>& sc,
                                          const std::vector<size_t>& draw_of, const StreamStats& st,
                                          const PredictOptions& opt, Prediction& pr) {
  const size_t main_columns = cols.size();
  std::vector<ResultSummary> sums;
  sums.reserve(cols.size());
  for (size_t k = 0; k < cols.size(); ++k) {
    Column& c = cols[k];
    c.col.sim = sc[k].sim;
    if (c.model) {
      c.col.draw_walls_ns.push_back(double(sc[k].sim.wall_ns));
      for (size_t x = 0; x < draw_of.size(); ++x)
        if (draw_of[x] == k) c.col.draw_walls_ns.push_back(double(sc[main_columns + x].sim.wall_ns));
    }
    if (c.model) {
      c.col.assumptions = assumptions(c.col.profile_name, sc[k].notes, c.col.sim,
                                      opt.stream.sim.window_ops ? opt.stream.sim.window_ops : st.window,
                                      server_assumptions(c.col.server.model));
      c.col.server.totals = sc[k].server;
      add_plan_assumptions(st, c.col.assumptions);
    }
    if (c.placed) {
      c.col.placed = sc[k].placed_counts;
      for (std::string& n : placement_notes(*c.placed, c.col.placed)) c.col.assumptions.push_back(std::move(n));
    }
    // The original's overlap, as a replay's result holds it, for the dependency-wait table.
    ResultMeta& m = c.sum->meta();
    m.header.options_json = json_text(nlohmann::json{
        {"predicted", true}, {"profile", c.col.profile_file}, {"overlap", {{"recorded", st.recorded_overlap}}}});
    TraceFooter f;
    f.wall_ns = f.end_ns = c.col.sim.wall_ns;
    m.footer = f;
    sums.push_back(c.sum->finish());
    pr.columns.push_back(std::move(c.col));
  }
  return sums;
}

}  // namespace

Result<Prediction> run_predict(const std::string& trace_path, const PredictOptions& opt) {
  Prediction pr;
  pr.trace = trace_path;
  FSR_ASSIGN_OR_RETURN(std::unique_ptr<TraceReader> survey_rd, open_trace(trace_path));
  const TraceHeader h = survey_rd->header();
  const std::string source = survey_rd->path();

  std::vector<std::string> profile_problems;
  std::vector<Column> cols = make_columns(h, source, opt, profile_problems);
  if (cols.empty() || (cols.size() == 1 && opt.recorded_column && !opt.profiles.empty()))
    return Status::error(profile_problems.empty() ? std::string("nothing to predict: give --profile PROFILE")
                                                  : profile_problems.back());

  // Think time as the replay takes it (engine.h less_recording): the gaps
  // less what recording added, from the trace's header and footer (the
  // survey pass fills the footer's part in; simulate_stream makes the
  // simulators after the survey).
  StreamOptions so_run = opt.stream;
  so_run.sim.clock.recorded = h.record_cost;
  // Two passes, as replay makes them: the survey on this reader, the plan on a second one.
  TraceReader* cur = survey_rd.get();
  std::unique_ptr<TraceReader> plan_rd;
  std::vector<std::string> read_problems;
  SpeedHazards hazards(h.wall_start_ns, [&survey_rd](StrId id) { return survey_rd->str(id); });
  auto survey_pass = [&](std::vector<Event>& chunk) -> Result<bool> {
    FSR_ASSIGN_OR_RETURN(const bool more, survey_rd->next(chunk));
    if (more)
      for (const Event& e : chunk) hazards.add(e);
    if (!more) {
      pr.warnings = hazards.warnings();
      read_problems = survey_rd->problems().messages;
      // The footer follows the events: known now, before the simulators are made.
      so_run.sim.clock.stolen_ppm = stolen_share_ppm(survey_rd->footer());
    }
    return more;
  };
  auto plan_pass = [&](std::vector<Event>& chunk) -> Result<bool> {
    if (!plan_rd) {
      FSR_ASSIGN_OR_RETURN(plan_rd, open_trace(trace_path));
      cur = plan_rd.get();
      survey_rd.reset();
    }
    return plan_rd->next(chunk);
  };
  const PlanInputs in = plan_inputs(h);
  // (The summaries read an op's path string only for an exec or a string they have not met.)
  const PathOf path_of = [&cur](StrId id) { return id != kNoStr ? cur->str(id) : std::string_view(); };
  std::vector<size_t> draw_of;  // per further draw: its column
  std::vector<StreamColumn> sc = stream_columns(cols, path_of, opt, draw_of);
  FSR_ASSIGN_OR_RETURN(const StreamStats st,
                       simulate_stream(
                           in, [&cur](StrId id) { return cur->str(id); }, survey_pass, plan_pass, sc, so_run));
  if (st.events == 0 && read_problems.empty())
    return Status::error(trace_path + ": the trace holds no events: nothing to predict");
  if (st.events == 0)  // damaged past use: exit 4 like every verb on damaged input
    return Status::error(
        trace_path + ": no readable events (" + read_problems.front() + "); check it with 'fsreplay inspect'",
        StatusCode::kDamaged);
  for (const std::string& m : read_problems) pr.problems.push_back(m + " (predicted what was readable)");
  for (std::string& m : profile_problems) pr.problems.push_back(std::move(m));
  pr.events = st.events;
  pr.window = st.window;
  pr.view_bytes = st.view_bytes;
  pr.load_ns = st.survey_ns;
  pr.plan_ns = st.plan_ns;
  pr.simulate_ns = st.simulate_ns;
  pr.summary_ns = st.sink_ns;

  const uint64_t r0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
  const std::vector<ResultSummary> sums = finish_columns(cols, sc, draw_of, st, opt, pr);
  std::vector<const ResultSummary*> ptrs;
  for (const ResultSummary& s : sums) ptrs.push_back(&s);
  pr.comparison = compare_summaries(ptrs);
  for (size_t k = 1; k < sums.size(); ++k) pr.reports.push_back(build_report(sums[k], &sums[0], opt.report));
  pr.report_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - r0;
  return pr;
}

}  // namespace fsr

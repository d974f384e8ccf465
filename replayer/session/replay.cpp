// SPDX-License-Identifier: Apache-2.0
// fsreplay prepare / replay as a library (replay.h). Two streaming passes
// over the trace: the survey (session.h, survey.h: the tree, the threads'
// lives, table sizes) before anything is made, then the replay itself,
// planned into a window while it runs (plan_stream.h, engine.h), its records
// written as they come (result_writer.h).
#include "replayer/session/replay.h"

#include "replayer/session/session.h"

#include <fcntl.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "replayer/exec/features.h"
#include "replayer/engine/interrupt.h"
#include "replayer/plan/plan_stream.h"
#include "replayer/engine/replay_cost.h"
#include "replayer/session/replay_summary.h"
#include "replayer/exec/resolver.h"
#include "replayer/session/result_writer.h"
#include "replayer/session/root_policy.h"
#include "replayer/plan/speed_hazards.h"
#include "replayer/plan/survey.h"
#include "replayer/session/target_guard.h"
#include "traces/op_path.h"
#include "traces/trace_id.h"
#include "traces/trace_reader.h"
#include "base/text_safe.h"

namespace fsr {
namespace {

using namespace replay_session;

std::string fmt_pct(double p) {
  char b[32];
  snprintf(b, sizeof b, "%g%%", p);
  return b;
}

unsigned prepare_threads() { return std::max(2u, std::min(8u, std::thread::hardware_concurrency())); }

// The tree: prepared now, or verified (a fresh scratch is always prepared).
Status prepare_tree(Session& ss, const ReplayOptions& o, const std::string& scratch_note) {
  const TreeSpec& spec = ss.survey.spec;
  auto prepared = [&](const Result<PrepareStats>& m) -> Status {
    if (m || m.code() != StatusCode::kInterrupted) return m.status();
    const std::string undone = undo_prepare(ss);
    set_debris_note("");
    return Status::error(m.message() + undone, StatusCode::kInterrupted);
  };
  bool wrote = false;
  if (o.prepare) {
    ss.wrote = wrote = true;
    set_debris_note("the target " + ss.roots.target + " is partly prepared" + scratch_note);
    FSR_RETURN_IF_ERROR(prepared(materialise(spec, ss.roots.fd, ss.features, prepare_threads(),
                                             phase_progress(o, "prepare"), kBothRoots, true)));
  } else {
    if (ss.roots.scratch_is_ours) {
      ss.wrote = wrote = true;
      set_debris_note("the scratch " + ss.roots.scratch + " remains");
      FSR_RETURN_IF_ERROR(prepared(materialise(spec, ss.roots.fd, ss.features, prepare_threads(),
                                               phase_progress(o, "prepare scratch"), root_bit(Root::kScratch), true)));
      FSR_RETURN_IF_ERROR(repoint_scratch_links(spec, ss.roots.fd, ss.features).status());
    }
    if (o.verify) FSR_RETURN_IF_ERROR(verify_tree(spec, ss.roots.fd, ss.features));
  }
  // What preparing wrote is written back now, not by the kernel's writeback
  // in the middle of the measured replay.
  if (wrote)
    for (int fd : ss.roots.fd)
      if (fd >= 0) syncfs(fd);
  return Status::ok();
}

void init_env(ExecEnv& env, const Session& ss, Plan& plan) {
  env.root[0] = ss.roots.fd[0];
  env.root[1] = ss.roots.fd[1];
  env.root_path[0] = ss.roots.target;
  env.root_path[1] = ss.roots.scratch;
  env.features = &ss.features;
  env.plan = &plan;
  if (ss.in.walks_as_passed && ss.features.has(Feature::kOpenat2))
    for (int k = 0; k < 2; ++k) env.anchor[k] = mount_anchor(env.root_path[k], env.anchor_prefix[k]);
  init_exec_env(env, ss.survey.ofds, ss.survey.space_threads, ss.survey.maps);
}

// Warnings about the replay itself: said at once (on_warning) and kept for the summary.
struct Warnings {
  const ReplayOptions& o;
  std::vector<std::string> said;
  void operator()(std::string w) {
    if (w.empty()) return;
    if (o.on_warning) o.on_warning(w);
    said.push_back(std::move(w));
  }
};

// The kernel's map limit against the survey's peak (address_space.h map_limit_warning).
std::string forecast_map_warning(const PlanSurvey& sv, uint64_t own_maps, uint64_t map_limit) {
  Plan forecast;
  forecast.peak_mappings = sv.peak_mappings;
  forecast.peak_spaces = sv.peak_spaces;
  return map_limit_warning(forecast, own_maps, map_limit);
}

// The first process's files open at start (e.g. stdout redirected to a file):
// bound when its first event is planned, opened before the clock starts.
void open_initial(const Plan& plan, const Session& ss, ExecEnv& env) {
  for (uint32_t of : plan.initial_ofds) {
    const OfdInfo& info = plan.ofds[of];
    const MappedPath& m = plan.paths[info.path].mapped;
    int fd = open_beneath(
        ss.roots.fd[static_cast<int>(m.root)], m.rel,
        info.cwd ? O_PATH | O_DIRECTORY | O_CLOEXEC : static_cast<int>(info.open_flags & (O_ACCMODE | O_APPEND)), 0,
        ss.features);
    if (fd >= 0) env.ofd_fd[of] = fd;
  }
}

// Think mode's corrections: the syscall overhead, the recorder's cost, the executor's.
Result<ThinkClock> think_clock(const Session& ss, const ReplayOptions& o, IssueCost& issue_cost) {
  ThinkClock clock;
  if (o.timing != TimingMode::kThink) return clock;
  clock.syscall_ns = o.syscall_overhead_ns == kMeasureOverhead ? measure_syscall_overhead_ns() : o.syscall_overhead_ns;
  clock.spin_gaps = o.spin_gaps;
  clock.releases_in_calls = ss.header.has_choice(kRecorderChoiceReleases);
  if (o.correct_recorder) {
    clock.recorded = ss.header.record_cost;
    clock.stolen_ppm = stolen_share_ppm(ss.footer);
  }
  if (o.calibrate_issue) {
    FSR_ASSIGN_OR_RETURN(issue_cost,
                         calibrate_issue_cost(ss.roots.fd[0], ss.roots.target, ss.features, ss.survey.issued));
    clock.issue_ns = issue_cost.ns;
  }
  return clock;
}

TraceHeader result_header(const Session& ss, const std::string& trace_path, TraceReader& reader) {
  TraceHeader h = ss.header;
  h.kind = PayloadKind::kResult;
  h.source_trace = real_path(trace_path);
  h.source_trace_id = reader.trace_id();
  h.target = ss.roots.target;
  h.scratch = ss.roots.scratch;
  return h;
}

// A replay blocked in a call (a mount that stopped answering, a call that
// blocks where the original's did not) says so instead of waiting mute.
StallReport stall_report(const ReplayOptions& o, const Plan& plan, const TraceReader* rp, uint64_t events) {
  if (o.stall_warn_s <= 0 || !o.on_warning) return {};
  return [&o, &plan, rp, events](uint64_t i, uint64_t since_ns) {
    const Event& e = plan.event(i);
    const StrId p = op_path(e);
    std::string where = p != kNoStr ? " \"" + std::string(rp->str(p)) + "\"" : std::string();
    o.on_warning("no op has finished for " + std::to_string(since_ns / 1'000'000'000) +
                 " s: the oldest unfinished is op " + std::to_string(i + 1) + " of " + std::to_string(events) + ", " +
                 std::string(syscall_name(e.nr)) + where + " of pid " + std::to_string(e.pid) + ", recorded to take " +
                 std::to_string(e.dur / 1000) +
                 " us. The mount may have stopped answering, or the call blocks where the original's did not "
                 "(a FIFO, a lock). Still waiting; Ctrl-C stops the replay");
  };
}

// Stopped: no result (the spool goes with the writer), the tree reset, the
// scratch removed (with the session).
Status stopped(const Status& er, const Session& ss, const ReplayOptions& o) {
  std::string said = er.message() + ": no result was written";
  if (o.reset_after) {
    auto m = materialise(ss.survey.spec, ss.roots.fd, ss.features, prepare_threads(), nullptr);
    said += m ? "; the target " + ss.roots.target + " was reset to the trace's initial tree"
              : "; resetting the target " + ss.roots.target + " failed (" + m.message() + ")";
  }
  if (ss.roots.scratch_is_ours) said += "; the scratch " + ss.roots.scratch + " was removed";
  set_debris_note("");
  return Status::error(said, StatusCode::kInterrupted);
}

// The replay's own figures: its time, its workers, its mappings.
ReplaySummary summary_of(const Session& ss, const EngineResult& res, const MappingStats& maps, uint64_t own_maps,
                         uint64_t map_limit) {
  ReplaySummary sum;
  sum.peak_mappings = own_maps + maps.peak;
  sum.peak_spaces = maps.peak_spaces;
  sum.max_map_count = map_limit;
  sum.wall_ns = res.wall_ns;
  sum.workers = ss.survey.workers;
  sum.scratch = ss.roots.scratch_is_ours ? std::string() : ss.roots.scratch;
  for (const auto& p : ss.placed) sum.place.push_back(p->dir);
  return sum;
}

// What the plan counted and the trace's damage, into the summary.
void summarise_plan(ReplaySummary& sum, const Plan& plan, const Session& ss, const TraceReader& reader,
                    uint64_t lookahead) {
  const PlanSurvey& sv = ss.survey;
  sum.approx_deps = plan.approx_deps;
  sum.beyond_window = plan.beyond_window;
  sum.moved_edges = plan.moved_edges;
  sum.moves_beyond_window = plan.moves_beyond_window;
  sum.lock_waits = plan.lock_waits;
  sum.file_data_deps = plan.file_data_edges;
  sum.recorded_ns = sv.events ? sv.last_end - sv.first_ts : 0;
  sum.fallbacks = ss.features.fallbacks_used();
  sum.trace_problems = ss.problems;
  if (!reader.problems().complete() && ss.problems.empty()) sum.trace_problems = reader.problems().messages;
  if (plan.overlapping_ops)
    sum.trace_problems.push_back(std::to_string(plan.overlapping_ops) +
                                 " calls entered before their thread's previous call returned: each is "
                                 "ordered after that call");
  if (plan.beyond_window)
    sum.warnings.push_back(std::to_string(plan.beyond_window) + " waits found their waker only beyond the " +
                           std::to_string(lookahead) + "-event lookahead: replayed with an approximate dependency");
  if (plan.moves_beyond_window)
    sum.warnings.push_back(std::to_string(plan.moves_beyond_window) +
                           " overlapping calls' order (by their results) "
                           "came more than the " +
                           std::to_string(lookahead) +
                           "-event lookahead after the earlier "
                           "call: replayed in the order they returned");
}

// The result's options (think mode's clock aside: the caller adds it).
nlohmann::json result_options(const ReplayOptions& o, const Session& ss, const ReplaySummary& sum, const Plan& plan,
                              uint64_t window, ResultWriter& writer, const MappingStats& maps, uint64_t map_limit) {
  nlohmann::json opts = {{"timing", timing_name(o.timing)},
                         {"prepare", o.prepare},
                         {"mmap", o.mmap_touch ? "touch" : "skip"},
                         {"target", ss.roots.target},
                         {"scratch", ss.roots.scratch},
                         {"disable_features", o.disable_features},
                         {"workers", sum.workers},
                         {"max_divergence_pct", o.max_divergence_pct},
                         {"diverged", sum.diverged},
                         {"window", window},
                         {"beyond_window", plan.beyond_window},
                         {"moved_edges", plan.moved_edges},
                         {"moves_beyond_window", plan.moves_beyond_window}};
  opts["overlap"] = {{"recorded", writer.recorded_overlap()}, {"replayed", writer.replayed_overlap()}};
  opts["address_space"] = {{"peak_mappings", sum.peak_mappings},
                           {"peak_spaces", sum.peak_spaces},
                           {"max_map_count", map_limit},
                           {"enomem", maps.enomem}};
  if (o.spin_gaps && o.timing == TimingMode::kThink) opts["gaps"] = "spin";  // (absent: sleep)
  for (const PlacedDir& d : o.place)  // (only with --place: results without it read as before)
    opts["place"].push_back(
        {{"subdir", d.subdir}, {"other", d.other}, {"fs_type", d.fs_type}, {"same_mount", d.same_mount}});
  for (int c = 0; c < kClassCount; ++c)
    if (o.inject_ns[c])
      opts["inject_latency_ns"][std::string(class_name(static_cast<SyscallClass>(c)))] = o.inject_ns[c];
  return opts;
}

TraceFooter result_footer(const ReplaySummary& sum, const ReplayOptions& o, const Plan& plan) {
  TraceFooter f;
  f.end_ns = sum.wall_ns;
  f.wall_ns = sum.wall_ns;
  f.divergences = sum.divergences;
  f.approx_deps = sum.approx_deps;
  f.notes = (sum.diverged ? "DIVERGED: " + std::to_string(sum.divergences) + " divergent ops, more than " +
                                fmt_pct(o.max_divergence_pct) + " of " + std::to_string(sum.ops) + "; "
                          : std::string()) +
            "skipped " + std::to_string(sum.skipped) + " ops; " + std::to_string(plan.dropped_edges) +
            " ordering edges dropped (could deadlock); " + std::to_string(plan.exact_causal) + " exact causal waits";
  return f;
}

}  // namespace

std::string result_path_for(const std::string& trace_path, const ReplayOptions& o) {
  if (!o.output.empty()) return o.output;
  std::string out = trace_path;
  if (out.size() > 6 && out.compare(out.size() - 6, 6, ".trace") == 0) out.resize(out.size() - 6);
  return out + ".result";
}

Result<PrepareStats> run_prepare(const std::string& trace_path, const ReplayOptions& o) {
  FSR_ASSIGN_OR_RETURN(const std::unique_ptr<Session> s, open_session(trace_path, o, phase_progress(o, "survey")));
  Session& ss = *s;
  const TreeSpec& spec = ss.survey.spec;
  FSR_RETURN_IF_ERROR(claim_roots(ss, trace_path, o));
  // Without --scratch there is nothing to keep outside the target: replay
  // prepares its own fresh scratch.
  ss.wrote = true;
  set_debris_note("the target " + ss.roots.target + " is partly prepared");
  auto r = materialise(spec, ss.roots.fd, ss.features, prepare_threads(), phase_progress(o, "prepare"),
                       ss.roots.scratch_is_ours ? root_bit(Root::kTarget) : kBothRoots, true);
  if (!r && r.code() == StatusCode::kInterrupted) {
    const std::string undone = undo_prepare(ss);
    set_debris_note("");
    return Status::error(r.message() + undone, StatusCode::kInterrupted);
  }
  set_debris_note("");
  remove_scratch(ss.roots);
  if (r) r->trace_problems = ss.problems;
  return r;
}

Result<ReplaySummary> run_replay(const std::string& trace_path, const ReplayOptions& o) {
  FSR_ASSIGN_OR_RETURN(const std::unique_ptr<Session> sr, open_session(trace_path, o, phase_progress(o, "survey")));
  Session& ss = *sr;
  const PlanSurvey& sv = ss.survey;
  FSR_RETURN_IF_ERROR(claim_roots(ss, trace_path, o));
  const std::string scratch_note = ss.roots.scratch_is_ours ? "; the scratch " + ss.roots.scratch + " remains" : "";
  FSR_RETURN_IF_ERROR(prepare_tree(ss, o, scratch_note));

  // The replay pass: the trace read again, planned into the window as it runs.
  FSR_ASSIGN_OR_RETURN(const std::unique_ptr<TraceReader> rd, open_trace(trace_path));
  TraceReader& reader = *rd;
  TraceReader* rp = &reader;
  const uint64_t window = fit_window(window_of(o), sv.events), lookahead = window / 4;
  WindowSync sync(window);
  PlanStream ps(
      ss.in, [rp](StrId id) { return rp->str(id); }, &sv, window, lookahead, &sync);
  Plan& plan = ps.plan();
  ExecEnv env;
  init_env(env, ss, plan);
  // The kernel's map limit, before it makes mmaps fail (address_space.h).
  const uint64_t map_limit = max_map_count(), own_maps = own_mapping_count() + 2 * sv.workers;
  Warnings warn{o, {}};
  for (const std::string& w : ss.hazards) warn(w);
  warn(forecast_map_warning(sv, own_maps, map_limit));
  warn(space_warning(ss.roots, sv.written));
  IssueCost issue_cost;
  FSR_ASSIGN_OR_RETURN(const ThinkClock clock, think_clock(ss, o, issue_cost));
  // The result file, written as the records come.
  TraceHeader h = result_header(ss, trace_path, reader);
  const std::string out = result_path_for(trace_path, o);
  FSR_ASSIGN_OR_RETURN(const std::unique_ptr<ResultWriter> rw,
                       ResultWriter::create(out, h, [rp](StrId id) { return rp->str(id); }));
  ResultWriter& writer = *rw;
  auto sink = [&](const OpRecord& r, const Event& e, const PlanOp&) -> Status {
    return writer.add(r, e, plan.op(r.event_index), op_path(e));
  };
  auto next = [&](std::vector<Event>& chunk) { return reader.next(chunk); };
  StreamProgress prog;
  if (o.progress && o.on_progress) prog = [&](uint64_t d) { o.on_progress("replay", d, sv.events, writer.current()); };
  set_debris_note("the target " + ss.roots.target + " is not reset" + scratch_note + "; the partial result " + out +
                  ".partial remains");
  auto er = run_engine_stream(
      ps, sync, next, sink, env, o.timing, prog, o.inject_ns, clock, sv.max_io, [&] { open_initial(plan, ss, env); },
      stall_report(o, plan, rp, sv.events), static_cast<uint64_t>(o.stall_warn_s * 1e9));
  const MappingStats maps = env.maps.stats();
  release_all(env);  // before returning an error too
  if (!er && er.code() == StatusCode::kInterrupted) return stopped(er.status(), ss, o);
  set_debris_note("");
  FSR_RETURN_IF_ERROR(er);
  EngineResult& res = er.value();
  warn(map_failure_warning(maps, own_maps, map_limit));

  ReplaySummary sum = summary_of(ss, res, maps, own_maps, map_limit);
  sum.warnings = std::move(warn.said);
  writer.tally(sum, o.max_divergence_pct);
  summarise_plan(sum, plan, ss, reader, lookahead);

  h.fallbacks = sum.fallbacks;
  h.environment_json = o.environment_json.empty() ? R"({"error":"environment not detected"})" : o.environment_json;
  nlohmann::json opts = result_options(o, ss, sum, plan, window, writer, maps, map_limit);
  if (o.timing == TimingMode::kThink) {
    opts["syscall_overhead_ns"] = res.syscall_overhead_ns;
    opts["clock"] = clock_json(clock, issue_cost, res.clock);
    sum.clock_json = json_text(opts["clock"]);
  }
  h.options_json = json_text(opts);
  FSR_RETURN_IF_ERROR(writer.finish(h, result_footer(sum, o, plan)));
  sum.result_path = out;

  if (o.reset_after) {
    auto m = materialise(ss.survey.spec, ss.roots.fd, ss.features, prepare_threads(), nullptr);
    if (!m) return Status::error("replay done (" + out + ") but resetting the tree failed: " + m.message());
  }
  return sum;
}
}  // namespace fsr

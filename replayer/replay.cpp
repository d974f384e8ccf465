#include "replayer/replay.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "replayer/features.h"
#include "replayer/plan.h"
#include "replayer/replay_cost.h"
#include "replayer/resolver.h"
#include "replayer/replay_summary.h"
#include "replayer/root_policy.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace fsr {
namespace {

struct Loaded {
  std::unique_ptr<TraceReader> reader;
  std::vector<Event> events;
  std::vector<PrestateEntry> prestate;
};

Result<Loaded> load(const std::string& path) {
  Loaded l;
  FSR_ASSIGN_OR_RETURN(l.reader, TraceReader::open(path));
  if (l.reader->kind() != PayloadKind::kTrace)
    return Status::error(path + " is a replay result, not a trace: pass the recorded trace");
  std::vector<Event> chunk;
  while (true) {
    FSR_ASSIGN_OR_RETURN(const bool more, l.reader->next(chunk));
    if (!more) break;
    l.events.insert(l.events.end(), chunk.begin(), chunk.end());
  }
  if (l.events.size() >= kNoOp) return Status::error(path + ": more than 4G events, split the trace");
  // A damaged trace replays only what is readable; an unreadable one is an error, never 0 ops.
  const ReadProblems& pr = l.reader->problems();
  if (l.events.empty() && (!pr.complete() || pr.missing_records > 0))
    return Status::error(path + ": no readable events (" +
                         (pr.messages.empty() ? std::string("damaged or truncated") : pr.messages.front()) +
                         "); check it with 'fsreplay inspect', or record it again with this version");
  FSR_ASSIGN_OR_RETURN(l.prestate, l.reader->prestate());
  return l;
}

std::vector<Feature> forced_off(const ReplayOptions& o, Status& st) {
  std::vector<Feature> v;
  for (const auto& n : o.disable_features) {
    auto f = feature_from_name(n);
    if (!f) st = f.status();
    else v.push_back(f.value());
  }
  return v;
}

TreeSpec only(const TreeSpec& s, Root root) {
  TreeSpec t;
  t.target_dir = s.target_dir;
  t.scratch_dir = s.scratch_dir;
  std::vector<uint32_t> pos(s.entries.size(), UINT32_MAX);
  for (size_t i = 0; i < s.entries.size(); ++i) {
    if (s.entries[i].where.root != root) continue;
    pos[i] = static_cast<uint32_t>(t.entries.size());
    t.entries.push_back(s.entries[i]);
  }
  for (auto& e : t.entries)
    if (e.link_to != UINT32_MAX) e.link_to = pos[e.link_to];
  for (const auto& c : s.created)
    if (c.root == root) t.created.push_back(c);
  return t;
}

struct Session {
  Loaded trace;
  Roots roots;
  Features features;
  Plan plan;
  TreeSpec spec;
};

Result<std::unique_ptr<Session>> open_session(const std::string& trace_path, const ReplayOptions& o) {
  auto s = std::make_unique<Session>();
  FSR_ASSIGN_OR_RETURN(s->trace, load(trace_path));
  FSR_RETURN_IF_ERROR(open_roots(trace_path, o, s->roots));
  Status bad;
  auto off = forced_off(o, bad);
  FSR_RETURN_IF_ERROR(bad);
  s->features = Features::probe(s->roots.fd[0], off);
  const TraceHeader& h = s->trace.reader->header();
  PlanInputs in;
  in.recorded_root = h.root.empty() ? "/" : h.root;
  in.target_dir = s->roots.target;
  in.scratch_dir = s->roots.scratch;
  in.initial = h.initial;
  in.mmap_touch = o.mmap_touch;
  in.serial_dirs = o.serial_dirs;
  TraceReader* rd = s->trace.reader.get();
  s->plan = build_plan(s->trace.events, [rd](StrId id) { return rd->str(id); }, in);
  s->spec = tree_spec(s->trace.prestate, s->plan, s->trace.events, PathMap(in.recorded_root),
                      s->roots.target, s->roots.scratch);
  return s;
}

std::string fmt_pct(double p) {
  char b[32];
  snprintf(b, sizeof b, "%g%%", p);
  return b;
}

unsigned prepare_threads() { return std::max(2u, std::min(8u, std::thread::hardware_concurrency())); }

ProgressFn phase_progress(const ReplayOptions& o, const char* phase) {
  if (!o.progress || !o.on_progress) return nullptr;
  auto cb = o.on_progress;
  return [cb, phase](uint64_t d, uint64_t t) { cb(phase, d, t, {}); };
}

}  // namespace

std::string_view timing_name(TimingMode t) {
  return t == TimingMode::kThink ? "think" : t == TimingMode::kAfap ? "afap" : "exact";
}

Result<TimingMode> timing_from_name(std::string_view n) {
  if (n == "think") return TimingMode::kThink;
  if (n == "afap") return TimingMode::kAfap;
  if (n == "exact") return TimingMode::kExact;
  return Status::error("unknown timing '" + std::string(n) + "': use think, afap or exact");
}

Result<PrepareStats> run_prepare(const std::string& trace_path, const ReplayOptions& o) {
  FSR_ASSIGN_OR_RETURN(const std::unique_ptr<Session> s, open_session(trace_path, o));
  Session& ss = *s;
  FSR_RETURN_IF_ERROR(check_target_writable(ss.roots.fd[0], ss.roots.target, ss.spec));
  // Without --scratch there is nothing to keep outside the target: replay
  // prepares its own fresh scratch.
  auto r = materialise(ss.roots.scratch_is_ours ? only(ss.spec, Root::kTarget) : ss.spec, ss.roots.fd,
                       ss.features, prepare_threads(), phase_progress(o, "prepare"));
  remove_scratch(ss.roots);
  return r;
}

Result<ReplaySummary> run_replay(const std::string& trace_path, const ReplayOptions& o) {
  FSR_ASSIGN_OR_RETURN(const std::unique_ptr<Session> sr, open_session(trace_path, o));
  Session& ss = *sr;
  FSR_RETURN_IF_ERROR(check_target_writable(ss.roots.fd[0], ss.roots.target, ss.spec));
  // The tree: prepared now, or verified (a fresh scratch is always prepared).
  bool wrote = false;
  if (o.prepare) {
    FSR_RETURN_IF_ERROR(materialise(ss.spec, ss.roots.fd, ss.features, prepare_threads(), phase_progress(o, "prepare")));
    wrote = true;
  } else {
    if (ss.roots.scratch_is_ours) {
      FSR_RETURN_IF_ERROR(materialise(only(ss.spec, Root::kScratch), ss.roots.fd, ss.features, prepare_threads(),
                                      phase_progress(o, "prepare scratch")));
      wrote = true;
    }
    if (o.verify) FSR_RETURN_IF_ERROR(verify_tree(ss.spec, ss.roots.fd, ss.features));
  }
  // What preparing wrote is written back now, not by the kernel's writeback
  // in the middle of the measured replay.
  if (wrote)
    for (int fd : ss.roots.fd)
      if (fd >= 0) syncfs(fd);
  ExecEnv env;
  env.root[0] = ss.roots.fd[0];
  env.root[1] = ss.roots.fd[1];
  env.features = &ss.features;
  env.plan = &ss.plan;
  env.events = &ss.trace.events;
  init_exec_env(env);
  // The first process's files open at start (e.g. stdout redirected to a file).
  for (uint32_t o : ss.plan.initial_ofds) {
    const OfdInfo& info = ss.plan.ofds[o];
    const MappedPath& m = ss.plan.paths[info.path].mapped;
    int fd = open_beneath(ss.roots.fd[static_cast<int>(m.root)], m.rel,
                          static_cast<int>(info.open_flags & (O_ACCMODE | O_APPEND)), 0, ss.features);
    if (fd >= 0) env.ofd_fd[o] = fd;
  }
  // The kernel's map limit, before it makes mmaps fail (address_space.h).
  const uint64_t map_limit = max_map_count(), own_maps = own_mapping_count() + 2 * ss.plan.workers.size();
  std::vector<std::string> warnings;
  auto warn = [&](std::string w) {
    if (w.empty()) return;
    if (o.on_warning) o.on_warning(w);
    warnings.push_back(std::move(w));
  };
  warn(map_limit_warning(ss.plan, own_maps, map_limit));
  EngineProgress prog;
  if (o.progress && o.on_progress) {
    // What runs now, roughly: the program exec'd last among the first `d` events.
    std::vector<std::pair<uint64_t, std::string_view>> execs;
    for (uint32_t i = 0; i < ss.trace.events.size(); ++i)
      if (const Event& e = ss.trace.events[i]; e.nr == kEvProcExec && e.path[0] != kNoStr)
        execs.emplace_back(i, ss.trace.reader->str(e.path[0]));
    prog = [cb = o.on_progress, execs = std::move(execs)](uint64_t d, uint64_t t) {
      auto it = std::upper_bound(execs.begin(), execs.end(), d, [](uint64_t v, const auto& x) { return v < x.first; });
      std::string_view cur = it == execs.begin() ? std::string_view() : std::prev(it)->second;
      cb("replay", d, t, cur.substr(cur.rfind('/') + 1));
    };
  }
  ThinkClock clock;
  IssueCost issue_cost;
  if (o.timing == TimingMode::kThink) {
    clock.syscall_ns = o.syscall_overhead_ns == kMeasureOverhead ? measure_syscall_overhead_ns() : o.syscall_overhead_ns;
    if (o.correct_recorder) clock.recorded = ss.trace.reader->header().record_cost;
    if (o.calibrate_issue) {
      FSR_ASSIGN_OR_RETURN(issue_cost, calibrate_issue_cost(ss.roots.fd[0], ss.roots.target, ss.features,
                                                            issued_syscalls(ss.plan, ss.trace.events)));
      clock.issue_ns = issue_cost.ns;
    }
  }
  auto er = run_engine(ss.plan, ss.trace.events, env, o.timing, prog, o.inject_ns, clock);
  const MappingStats maps = env.maps.stats();
  release_all(env);  // before returning an error too
  FSR_RETURN_IF_ERROR(er);
  EngineResult& res = er.value();
  warn(map_failure_warning(maps, own_maps, map_limit));

  ReplaySummary sum;
  sum.warnings = std::move(warnings);
  sum.peak_mappings = own_maps + maps.peak;
  sum.peak_spaces = maps.peak_spaces;
  sum.max_map_count = map_limit;
  sum.wall_ns = res.wall_ns;
  sum.workers = ss.plan.workers.size();
  sum.scratch = ss.roots.scratch_is_ours ? std::string() : ss.roots.scratch;
  for (const OpRecord& r : res.ops) {
    if (r.flags & kOfSkipped) {
      ++sum.skipped;
      continue;
    }
    if (r.nr == kEvProcExec) continue;
    ++sum.ops;
    if (r.flags & kOfDivergent) ++sum.divergences;
    if (r.flags & kOfEscaped) ++sum.escaped;
    auto c = static_cast<size_t>(class_of(r.nr));
    ++sum.count[c];
    sum.total_ns[c] += r.latency;
  }
  sum.approx_deps = ss.plan.approx_deps;
  sum.max_divergence_pct = o.max_divergence_pct;
  sum.diverged = sum.ops > 0 && static_cast<double>(sum.divergences) * 100.0 >
                                    o.max_divergence_pct * static_cast<double>(sum.ops);
  if (sum.divergences) sum.top_divergences = top_divergences(res.ops);
  for (const Event& e : ss.trace.events) sum.recorded_ns = std::max(sum.recorded_ns, e.ts + e.dur);
  if (!ss.trace.events.empty()) sum.recorded_ns -= ss.trace.events.front().ts;
  sum.fallbacks = ss.features.fallbacks_used();
  sum.trace_problems = ss.trace.reader->problems().messages;
  if (ss.plan.overlapping_ops)
    sum.trace_problems.push_back(std::to_string(ss.plan.overlapping_ops) +
                                 " calls entered before their thread's previous call returned: each is "
                                 "ordered after that call");

  // The result file.
  const TraceHeader& th = ss.trace.reader->header();
  TraceHeader h = th;
  h.kind = PayloadKind::kResult;
  h.source_trace = real_path(trace_path);
  h.target = ss.roots.target;
  h.scratch = ss.roots.scratch;
  h.fallbacks = sum.fallbacks;
  h.environment_json = o.environment_json.empty() ? R"({"error":"environment not detected"})" : o.environment_json;
  nlohmann::json opts = {{"timing", timing_name(o.timing)}, {"prepare", o.prepare},
                         {"mmap", o.mmap_touch ? "touch" : "skip"}, {"target", ss.roots.target},
                         {"scratch", ss.roots.scratch}, {"disable_features", o.disable_features},
                         {"workers", sum.workers}, {"max_divergence_pct", o.max_divergence_pct},
                         {"diverged", sum.diverged}};
  if (o.timing == TimingMode::kThink) {
    opts["syscall_overhead_ns"] = res.syscall_overhead_ns;
    opts["clock"] = clock_json(clock, issue_cost, res.clock);
    sum.clock_json = opts["clock"].dump();
  }
  opts["overlap"] = overlap_json(ss.plan, ss.trace.events, res.ops);
  opts["address_space"] = {{"peak_mappings", sum.peak_mappings}, {"peak_spaces", sum.peak_spaces},
                           {"max_map_count", map_limit}, {"enomem", maps.enomem}};
  for (int c = 0; c < kClassCount; ++c)
    if (o.inject_ns[c]) opts["inject_latency_ns"][std::string(class_name(static_cast<SyscallClass>(c)))] = o.inject_ns[c];
  h.options_json = opts.dump();
  std::string out = o.output;
  if (out.empty()) {
    out = trace_path;
    if (out.size() > 6 && out.compare(out.size() - 6, 6, ".trace") == 0) out.resize(out.size() - 6);
    out += ".result";
  }
  FSR_ASSIGN_OR_RETURN(const std::unique_ptr<TraceWriter> w, TraceWriter::create(out, h));
  TraceWriter& wr = *w;
  const std::vector<Event>& ev = ss.trace.events;
  for (size_t i = 0; i < res.ops.size(); ++i) {
    OpRecord& r = res.ops[i];
    const Event& e = ev[i];
    StrId p = e.path[0] != kNoStr ? e.path[0] : e.path[1];
    const SyscallInfo* si = syscall_info(e.nr);
    if (si && (si->flags & kSfLiteralPath0) && e.path[1] != kNoStr) p = e.path[1];
    if (p != kNoStr) r.path = wr.intern(ss.trace.reader->str(p));
    FSR_RETURN_IF_ERROR(wr.append(r));
  }
  TraceFooter f;
  f.end_ns = sum.wall_ns;
  f.wall_ns = sum.wall_ns;
  f.divergences = sum.divergences;
  f.approx_deps = sum.approx_deps;
  f.notes = (sum.diverged ? "DIVERGED: " + std::to_string(sum.divergences) + " divergent ops, more than " +
                                 fmt_pct(o.max_divergence_pct) + " of " + std::to_string(sum.ops) + "; "
                           : std::string()) +
            "skipped " + std::to_string(sum.skipped) + " ops; " + std::to_string(ss.plan.dropped_edges) +
            " ordering edges dropped (could deadlock); " + std::to_string(ss.plan.exact_causal) +
            " exact causal waits";
  FSR_RETURN_IF_ERROR(wr.finish(f));
  sum.result_path = out;

  if (o.reset_after) {
    auto m = materialise(ss.spec, ss.roots.fd, ss.features, prepare_threads(), nullptr);
    if (!m) return Status::error("replay done (" + out + ") but resetting the tree failed: " + m.message());
  }
  return sum;
}

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// fsreplay replay: argument parsing and printing only; see replayer/session/replay.h.
#include <fmt/core.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "replayer/session/replay.h"
#include "report/format.h"
#include "report/render_json.h"
#include "report/run_spread.h"
#include "base/wait_status.h"
#include "cli/cli_util.h"
#include "cli/place_option.h"
#include "detect/detect.h"
#include "cli/progress/progress.h"
#include "cli/stop_signals.h"
#include "cli/verbs.h"

namespace fsr::cli {
namespace {

struct ReplayArgs {
  std::string trace, timing = "think", mmap = "touch", dir_order = "listing", walks = "as-passed", gaps = "sleep";
  bool no_prepare = false, no_verify = false, json = false, keep_tree = false, no_correction = false, quiet = false;
  std::vector<std::string> inject, place;
  size_t runs = 1, warmup = 0;
  std::string prepare_cmd;
  ReplayOptions opt;
};

void print_clock(const std::string& text);

void print_summary(const ReplaySummary& s) {
  fmt::print("wall time    {}\n", human_ns(s.wall_ns));
  fmt::print("ops          {} replayed, {} skipped, {} workers\n", s.ops, s.skipped, s.workers);
  fmt::print("divergences  {}{}\n", s.divergences,
             s.ops ? fmt::format(" ({:.3f}%)", 100.0 * s.divergences / s.ops) : "");
  if (s.short_reads)
    fmt::print(
        "short reads  {} ({} fewer than recorded: files the replay read were smaller; /proc and /sys ones are "
        "prepared empty)\n",
        s.short_reads, human_bytes(s.short_read_bytes));
  fmt::print("approx deps  {}\n", s.approx_deps);
  fmt::print("lock waits   {} (no edge: the lock was taken after the holder's call)\n", s.lock_waits);
  fmt::print("file orders  {} (a file's reads after another thread's writes, and its writes after reads)\n",
             s.file_data_deps);
  fmt::print("mappings     {} at most ({:.1f}% of vm.max_map_count {}), {} address spaces at once\n", s.peak_mappings,
             s.max_map_count ? 100.0 * double(s.peak_mappings) / double(s.max_map_count) : 0.0, s.max_map_count,
             s.peak_spaces);
  if (!s.fallbacks.empty()) {
    fmt::print("fallbacks   ");
    for (auto& f : s.fallbacks) fmt::print(" [{}]", f);
    fmt::print("\n");
  }
  fmt::print("\n{:<9} {:>10} {:>12} {:>12}\n", "class", "count", "total", "mean");
  for (int c = 0; c < kClassCount; ++c) {
    if (!s.count[c]) continue;
    fmt::print("{:<9} {:>10} {:>12} {:>12}\n", class_name(static_cast<SyscallClass>(c)), s.count[c],
               human_ns(s.total_ns[c]), human_ns(s.total_ns[c] / s.count[c]));
  }
  for (const auto& p : s.trace_problems) fmt::print("trace damage {}\n", p);
  for (const auto& w : s.warnings) fmt::print("warning      {}\n", w);
  if (!s.clock_json.empty()) print_clock(s.clock_json);
  if (!s.place.empty()) fmt::print("placement    {}\n", placement_text(s.place));
  fmt::print("\nresult       {}{}\n", s.result_path, s.diverged ? " (marked diverged)" : "");
}

// The think clock's corrections (replayer/engine/engine.h ThinkClock), in one block.
void print_clock(const std::string& text) {
  const auto j = nlohmann::json::parse(text);
  const auto& rec = j["recorder"];
  const auto& tot = j["totals_ns"];
  fmt::print("\nthink clock  ");
  if (rec.is_null()) {
    fmt::print("recorder cost: not in the trace (recorded before it was measured): gaps replayed as recorded\n");
  } else {
    fmt::print("recorder cost per call (ns, gap / in the duration):");
    for (const char* c : {"stat", "open", "close", "read", "write", "readdir", "fd"})
      if (rec["gap_ns"].contains(c))
        fmt::print(" {} {}/{}", c, rec["gap_ns"][c].get<uint64_t>(), rec["dur_ns"][c].get<uint64_t>());
    fmt::print("\n");
  }
  if (j.contains("recorder_stolen_ppm") && j["recorder_stolen_ppm"].get<uint64_t>() > 0)
    fmt::print(
        "             recorder's threads and fault programs took {:.2f}% of every gap from the workload: taken out\n",
        j["recorder_stolen_ppm"].get<uint64_t>() / 1e4);
  const auto& rep = j["replayer"];
  fmt::print("             replayer: syscall round trip {} ns", rep["syscall_ns"].get<uint64_t>());
  std::vector<std::pair<uint64_t, std::string>> issue;
  for (const auto& [k, v] : rep["issue_ns"].items())
    if (v.get<uint64_t>() > 0) issue.push_back({v.get<uint64_t>(), k});
  std::sort(issue.rbegin(), issue.rend());
  if (!issue.empty()) {
    fmt::print(", executor beyond the plain call:");
    for (size_t i = 0; i < issue.size() && i < 6; ++i) fmt::print(" {} {}", issue[i].second, human_ns(issue[i].first));
  }
  fmt::print(
      "\n             taken out: recorder {} from gaps; paid back: round trips {}, executor {}, "
      "late wake-ups and own work {}; emulated calls' kernel work slept {}; unpaid {}\n",
      human_ns(tot["recorder_gap"].get<uint64_t>()), human_ns(tot["syscall"].get<uint64_t>()),
      human_ns(tot["issue"].get<uint64_t>()), human_ns(tot["late"].get<uint64_t>()),
      human_ns(tot["emulated_work_slept"].get<uint64_t>()), human_ns(tot["unpaid"].get<uint64_t>()));
}

void print_divergence(const ReplaySummary& s) {
  fmt::print(stderr,
             "fsreplay replay: diverged: {} of {} ops ({:.2f}%) returned another result than recorded, more "
             "than --max-divergence {}%; this is not a measurement of the original. Most frequent:\n",
             s.divergences, s.ops, s.ops ? 100.0 * s.divergences / s.ops : 0.0, s.max_divergence_pct);
  for (const DivergenceRow& d : s.top_divergences)
    fmt::print(stderr, "  {:>8}x {:<14} recorded {:<10} replayed {}\n", d.count, d.call, d.recorded, d.replayed);
  fmt::print(stderr,
             "  (check the target is the right, writable, prepared tree; 'fsreplay report' shows the result marked "
             "diverged)\n");
}

void add_replay_options(CLI::App* sub, ReplayArgs& a, bool replay) {
  sub->add_option("trace", a.trace, "Trace file recorded by 'fsreplay record'")->required();
  sub->add_option("--target", a.opt.target, "Directory the recorded root is replayed in (the mount under test)")
      ->required();
  sub->add_option("--scratch", a.opt.scratch,
                  "Directory for paths outside the recorded root (default: a fresh one under $TMPDIR)");
  sub->add_flag("--quiet,-q", a.quiet, "No progress line (shown only on a terminal anyway)");
  sub->add_flag("--force", a.opt.force,
                "Take a --target (or --scratch) that holds files fsreplay did not make: the trace's paths there "
                "are listed, then overwritten with filler or removed (without it such a directory is refused; "
                "fsreplay writes only into an empty directory or one it prepared, marked by .fsreplay-target)");
  sub->add_option("--disable-feature", a.opt.disable_features,
                  "Treat a kernel feature as missing and use its fallback (statx, openat2, "
                  "renameat2-flags, copy_file_range, sync_file_range, o_tmpfile, fallocate, xattrat)");
  add_place_option(sub, a.place);
  if (!replay) return;
  sub->add_option("-o,--output", a.opt.output, "Result file (default: TRACE with .result)");
  sub->add_option("--timing", a.timing, "think (recorded compute gaps), afap (none), exact (recorded offsets)")
      ->check(CLI::IsMember({"think", "afap", "exact"}));
  sub->add_option("--gaps", a.gaps,
                  "Think mode: sleep (the gaps leave the CPUs idle, default) or spin (each gap burns a CPU to its "
                  "end, as the original's compute did: a parallel build that kept the CPUs busy keeps them busy, "
                  "and its calls' wake-ups and a local server such as FUSE wait for a CPU as they did)")
      ->check(CLI::IsMember({"sleep", "spin"}));
  sub->add_option("--mmap", a.mmap, "Re-touch recorded pages of file mappings (touch) or not (skip)")
      ->check(CLI::IsMember({"touch", "skip"}));
  sub->add_flag("--no-prepare", a.no_prepare, "Verify the tree made by 'fsreplay prepare' instead of preparing it");
  sub->add_flag("--no-verify", a.no_verify,
                "With --no-prepare: trust the prepared tree without checking it (its stat walk would warm the "
                "target's caches before the clock; for benches that remount the target after preparing)");
  sub->add_flag("--keep-tree", a.keep_tree,
                "Leave the tree as the replay left it (default: reset to the initial state)");
  sub->add_flag("--json", a.json, "Print the summary as JSON");
  sub->add_option("--runs", a.runs,
                  "Replay N times, each on a freshly reset tree, results in RESULT.1 ... RESULT.N (before the "
                  ".result ending); prints every run's wall time, then the median run's summary with the median, "
                  "mean, sd, min, max and the median's 95% interval (bootstrap) over the runs")
      ->check(CLI::Range(1, 1000));
  sub->add_option("--warmup", a.warmup, "Runs before the --runs, replayed and thrown away (caches, JIT, page cache)")
      ->check(CLI::Range(0, 100));
  sub->add_option("--prepare-cmd", a.prepare_cmd,
                  "Shell command run before every run, warm-ups included (e.g. 'sync; echo 3 > "
                  "/proc/sys/vm/drop_caches', or a remount); a failure stops the replay");
  sub->add_option("--max-divergence", a.opt.max_divergence_pct,
                  "Largest share of ops (%) whose result may differ from the recorded one (default 1); past it "
                  "the replay exits with status 6 and its result is marked diverged")
      ->check(CLI::Range(0.0, 100.0));
  sub->add_option("--stall-warning", a.opt.stall_warn_s,
                  "Seconds without any op finishing (past the oldest unfinished op's recorded time) after which "
                  "a warning names that op (default 30; 0: never)")
      ->check(CLI::Range(0.0, 1e6));
  sub->add_option("--dir-order", a.dir_order,
                  "listing: namespace ops in a directory are ordered against listings of it only (ROOT/ARTC, "
                  "default); serial: also against each other, in their recorded order")
      ->check(CLI::IsMember({"listing", "serial"}));
  sub->add_option("--walks", a.walks,
                  "as-passed: each relative path is walked from its recorded dirfd or cwd, every walk whole, so "
                  "that the mount receives the lookups the workload sent (default; traces recorded before it walk "
                  "from the root); from-root: every walk from the target's root, parent directories kept per "
                  "worker (the replay of earlier versions)")
      ->check(CLI::IsMember({"as-passed", "from-root"}));
  sub->add_option("--window", a.opt.window,
                  "Ops the streaming replay keeps planned ahead (default 131072; rounded up to a power of two, at "
                  "least 1024; a shorter trace gets the smallest one whose quarter holds it all): memory follows it, "
                  "not the trace. A wait whose waker lies more than a quarter of it ahead is replayed with an "
                  "approximate dependency (counted)");
  sub->add_flag("--no-clock-correction", a.no_correction,
                "Think mode: replay the recorded gaps as recorded (no recorder cost taken out, no executor "
                "calibration), for comparisons");
  sub->add_option("--inject-latency", a.inject,
                  "Test hook: CLASS=DURATION (e.g. stat=300us) slept inside every replayed op of CLASS, "
                  "to check attribution against a known truth; recorded in the result's options");
}

// Parses --inject-latency CLASS=DURATION items into per-class ns.
Status parse_injections(const std::vector<std::string>& items, ReplayOptions& opt) {
  for (const auto& it : items) {
    auto eq = it.find('=');
    auto cls = class_from_name(it.substr(0, eq));
    uint64_t ns = 0;
    if (eq == std::string::npos || !cls || !parse_duration_ns(std::string_view(it).substr(eq + 1), ns))
      return Status::error("--inject-latency " + it +
                           ": want CLASS=DURATION, e.g. stat=300us (classes as in 'fsreplay report')");
    opt.inject_ns[static_cast<size_t>(*cls)] = ns;
  }
  return Status::ok();
}

// RESULT.K.result for the K-th of several runs.
std::string run_output(const std::string& out, size_t k) {
  const size_t dot = out.size() > 7 && out.compare(out.size() - 7, 7, ".result") == 0 ? out.size() - 7 : out.size();
  return fmt::format("{}.{}{}", out.substr(0, dot), k, out.substr(dot));
}

// --runs N, --warmup K, --prepare-cmd: K + N replays, each on a freshly reset
// tree; the median run's summary, and the spread of the walls.
int replay_runs(ReplayArgs& a) {
  const std::string out = result_path_for(a.trace, a.opt);
  std::vector<ReplaySummary> kept;
  std::vector<double> walls;
  bool any_diverged = false, damaged = false;
  for (size_t k = 0; k < a.warmup + a.runs; ++k) {
    const bool warm = k < a.warmup;
    const std::string which =
        warm ? fmt::format("warm-up {} of {}", k + 1, a.warmup) : fmt::format("run {} of {}", k - a.warmup + 1, a.runs);
    if (!a.prepare_cmd.empty()) {
      const int st = std::system(a.prepare_cmd.c_str());
      if (st != 0)
        return fail("replay", fmt::format("--prepare-cmd '{}' failed before {} ({}); fix the command, or leave it out",
                                          a.prepare_cmd, which, describe_wait_status(st)));
    }
    ReplayOptions o = a.opt;
    o.reset_after = true;  // the next run starts from the initial tree
    o.output = warm ? run_output(out, 0) + ".warmup" : a.runs == 1 ? out : run_output(out, k - a.warmup + 1);
    auto r = run_replay(a.trace, o);
    if (!r && r.code() == StatusCode::kInterrupted) return fail("replay", r.message(), stop_exit_code());
    if (!r) return fail_input("replay", r.status());
    damaged = damaged || !r->trace_problems.empty();
    fmt::print(stderr, "fsreplay replay: {}: wall {}, {} divergences{}\n", which, human_ns(r->wall_ns), r->divergences,
               r->diverged ? " (DIVERGED)" : "");
    if (warm) {
      std::remove(o.output.c_str());
      continue;
    }
    any_diverged = any_diverged || r->diverged;
    walls.push_back(double(r->wall_ns));
    kept.push_back(std::move(r).value());
  }
  const ReplaySummary& mid = kept[median_index(walls)];
  const Spread s = spread_of(walls);
  const std::vector<std::string> warnings = spread_warnings(walls, "the wall time");
  if (a.json) {
    nlohmann::json j = nlohmann::json::parse(summary_to_json(mid));
    nlohmann::json runs = nlohmann::json::parse(spread_to_json(walls).dump());
    runs["walls_ns"] = walls;
    runs["results"] = nlohmann::json::array();
    for (const ReplaySummary& r : kept) runs["results"].push_back(r.result_path);
    runs.erase("values_ns");  // (walls_ns)
    runs["confidence"] = kConfidence;
    runs["warnings"] = warnings;
    j["runs"] = runs;
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("(the median run of {}: {})\n", kept.size(), mid.result_path);
    print_summary(mid);
    fmt::print("runs         {}: median {}", kept.size(), human_ns(fmtx::ns_count(s.median)));
    if (s.has_interval())
      fmt::print(" [{}, {}] ({:.0f}% interval of the median, bootstrap)", human_ns(fmtx::ns_count(s.lo)),
                 human_ns(fmtx::ns_count(s.hi)), kConfidence * 100);
    else
      fmt::print(" (fewer than {} runs: no interval)", kMinRunsForInterval);
    fmt::print("; mean {}, sd {}, min {}, max {}\n", human_ns(fmtx::ns_count(s.mean)), human_ns(fmtx::ns_count(s.sd)),
               human_ns(fmtx::ns_count(s.min)), human_ns(fmtx::ns_count(s.max)));
  }
  for (const std::string& w : warnings) fmt::print(stderr, "fsreplay replay: warning: {}\n", w);
  if (any_diverged) {
    print_divergence(mid);
    return kExitDiverged;
  }
  return damaged ? kExitIncomplete : kExitOk;
}

}  // namespace

// Shared with verb_prepare.cpp and verb_compare.cpp: a progress line on a
// terminal, one per phase (prepare, replay), unless quiet.
void wire_progress(ReplayOptions& o, bool quiet) {
  auto lines = std::make_shared<std::map<std::string, std::unique_ptr<ProgressLine>>>();
  o.progress = !quiet && stderr_is_tty();
  o.on_progress = [lines](const char* phase, uint64_t done, uint64_t total, std::string_view current) {
    auto& p = (*lines)[phase];
    if (!p) p = std::make_unique<ProgressLine>(phase, std::string_view(phase) == "replay" ? "ops" : "entries");
    p->update(done, total, current);
    if (total && done >= total) p->finish();
  };
}

Action add_replay_verb(CLI::App& app) {
  auto a = std::make_shared<ReplayArgs>();
  auto* sub = app.add_subcommand("replay", "Replay a trace on a target directory and measure each syscall class");
  sub->footer(
      "The target must be an empty directory or one fsreplay prepared (it holds .fsreplay-target, which "
      "names the trace and is locked while a replay runs there); anything else is refused unless --force. "
      "/, home directories, /tmp itself and the system's directories (/etc, /usr, /var but /var/tmp, ...) "
      "are always refused.\n"
      "Exit status: 0 ok; 1 error (e.g. a read-only, full, occupied or non-writable target); 2 usage; 4 the "
      "trace is damaged (what was readable is replayed and its result written; none readable: nothing "
      "replayed); 6 the replay diverged: more than --max-divergence of its ops returned another result than "
      "recorded (the result is still written, marked diverged, and the most frequent divergent calls are "
      "printed); 128+N stopped by signal N (SIGINT, SIGTERM, SIGHUP): the target was reset, the scratch "
      "removed and no result written (a second signal aborts at once and says what it left). 6 goes "
      "before 4");
  add_replay_options(sub, *a, true);
  return [a] {
    if (int rc = setup_placement("replay", a->place, a->opt)) return rc;  // (first: while single-threaded)
    auto t = timing_from_name(a->timing);
    if (!t) return fail("replay", t.message(), kExitUsage);
    a->opt.timing = t.value();
    a->opt.prepare = !a->no_prepare;
    a->opt.verify = !a->no_verify;
    if (a->no_verify && !a->no_prepare) return fail("replay", "--no-verify goes with --no-prepare", kExitUsage);
    a->opt.mmap_touch = a->mmap == "touch";
    a->opt.reset_after = !a->keep_tree;
    a->opt.serial_dirs = a->dir_order == "serial";
    a->opt.walks_as_passed = a->walks == "as-passed";
    a->opt.correct_recorder = a->opt.calibrate_issue = !a->no_correction;
    a->opt.spin_gaps = a->gaps == "spin";
    if (Status st = parse_injections(a->inject, a->opt); !st) return fail("replay", st.message(), kExitUsage);
    wire_progress(a->opt, a->quiet);
    a->opt.environment_json = detect_environment_json(a->opt.target);
    a->opt.on_warning = [](const std::string& w) { fmt::print(stderr, "fsreplay replay: warning: {}\n", w); };
    install_stop_handlers("replay");
    if (a->runs > 1 || a->warmup > 0 || !a->prepare_cmd.empty()) {
      if (a->keep_tree)
        return fail("replay",
                    "--keep-tree keeps one run's tree: leave it out with --runs, --warmup "
                    "or --prepare-cmd (each run starts from the reset tree)",
                    kExitUsage);
      return replay_runs(*a);
    }
    auto r = run_replay(a->trace, a->opt);
    if (!r && r.code() == StatusCode::kInterrupted) return fail("replay", r.message(), stop_exit_code());
    if (!r) return fail_input("replay", r.status());  // 4: a trace with no readable event
    if (a->json)
      fmt::print("{}\n", summary_to_json(r.value()));
    else
      print_summary(r.value());
    // A damaged trace (a recorder killed, a chunk unreadable) replayed what
    // was readable: said on stderr and exit 4, unless it diverged (6 first).
    const std::vector<std::string>& damage = r.value().trace_problems;
    if (!damage.empty())
      fmt::print(stderr,
                 "fsreplay replay: {}: damaged ({} problem(s), first: {}); replayed what was readable into {}\n",
                 a->trace, damage.size(), damage.front(), r.value().result_path);
    if (r.value().diverged) {
      print_divergence(r.value());
      return kExitDiverged;
    }
    return damage.empty() ? kExitOk : kExitIncomplete;
  };
}

}  // namespace fsr::cli

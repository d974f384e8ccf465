#include "recorder/bpf/recorder.h"

#include <signal.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "recorder/bpf/drain_governor.h"
#include "recorder/core/event_decoder.h"
#include "recorder/core/fault_files.h"
#include "recorder/core/heap_warmup.h"
#include "recorder/core/initial_state.h"
#include "recorder/core/launcher.h"
#include "recorder/bpf/fault_cost.h"
#include "recorder/bpf/record_cost.h"
#include "recorder/core/ring_merger.h"
#include "base/paths.h"
#include "traces/trace_writer.h"
#include "base/wait_status.h"

namespace fsr {
namespace {

// SIGINT, SIGTERM and SIGHUP: how many came, the first one, and whether it
// came from the terminal (a Ctrl-C the workload, in the same foreground
// process group, got as well) rather than from kill(2) or timeout(1).
std::atomic<int> g_signals{0};
std::atomic<int> g_first_signal{0};
std::atomic<bool> g_first_from_tty{false};
void on_signal(int sig, siginfo_t* info, void*) {
  if (g_signals.fetch_add(1) == 0) {
    g_first_from_tty.store(info && info->si_code == SI_KERNEL);
    g_first_signal.store(sig);
  }
}

// Sends `sig` to `pid` and every process below it (listed first: once `pid`
// is gone, its children are re-parented and no longer found below it).
void signal_tree(pid_t pid, int sig) {
  const std::vector<uint32_t> below = descendants(static_cast<uint32_t>(pid));
  kill(pid, sig);
  for (uint32_t p : below) kill(static_cast<pid_t>(p), sig);
}

int push_record(void* ctx, uint32_t cpu, const void* data, size_t size, uint64_t next) {
  static_cast<RingMerger*>(ctx)->push(cpu, data, size, next);
  return 0;
}

// Gives the lanes back up to what the merger released: all that was read
// when nothing of a lane is staged (which also passes frames the reader
// skipped), else up to the last released record.
void free_lanes(BpfSession& session, const RingMerger& merger) {
  for (uint32_t cpu = 0; cpu < session.cpu_count(); ++cpu)
    session.free_through(cpu, merger.staged(cpu) ? merger.released_through(cpu) : session.read_through(cpu));
}

std::string canonical(const std::string& p) {
  char buf[PATH_MAX];
  return realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

}  // namespace

Result<RecordSummary> record(const RecordOptions& o) {
  RecordSummary sum;
  if (o.command.empty() == (o.attach_pid == 0))
    return Status::error("give either a command (-- CMD ARGS...) or --pid PID", StatusCode::kInvalidInput);
  std::string root = canonical(o.root.empty() ? "." : o.root);
  if (root.empty()) return Status::error(fmt::format("--root {}: {}", o.root, strerror(errno)));
  // The trace file itself, when it is written inside the root (the default:
  // ./fsreplay.trace with the current directory as root), is left out of the
  // prestate: a replay would otherwise make a copy of the half-written trace.
  std::string output_path;
  {
    const std::filesystem::path out(o.output);
    const std::string parent = canonical(out.has_parent_path() ? out.parent_path().string() : std::string("."));
    if (!parent.empty()) output_path = parent + "/" + out.filename().string();
  }
  const bool output_inside = !output_path.empty() && is_beneath(output_path, root);

  RingMerger merger(static_cast<uint32_t>(std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_CONF)))));
  // The merger must know every possible CPU: the session tells us how many lanes it made.
  FSR_ASSIGN_OR_RETURN(std::unique_ptr<BpfSession> session, BpfSession::open(o.bpf, push_record, &merger));
  if (session->cpu_count() > sysconf(_SC_NPROCESSORS_CONF)) merger = RingMerger(session->cpu_count());
  // What the governor lets a lane hold before it raises the drain, in records of 64 bytes or more.
  merger.reserve(session->lane_bytes() / 4 / 64);
  if (!session->warnings().empty()) sum.warnings += session->warnings() + "\n";
  sum.choices = session->plan().describe();
  sum.choices.emplace_back(kRecorderChoiceWalks);  // relative paths are marked (event.h kEfRelative0)
  if (output_inside) sum.choices.emplace_back("output=inside the root (" + output_path + "): left out of the prestate");
  const bool skip_outside = !o.bpf.all_page_faults && (session->plan().faults == FaultSource::kFilemapTracepoints ||
                                                       session->plan().faults == FaultSource::kFentry);
  if (skip_outside)
    sum.choices.emplace_back("fault_files=under_root (a file outside the root: its faults are recorded until its path is known)");
  else if (o.bpf.all_page_faults && session->plan().faults != FaultSource::kOff)
    sum.choices.emplace_back("fault_files=all (--all-page-faults)");
  // What recording adds to the timings, measured before anything is tracked.
  const RecordCostRun cost = measure_record_cost(*session, merger);
  if (!cost.warning.empty()) sum.warnings += cost.warning + "\n";

  RunAs as = o.run_as_invoker ? invoking_user() : RunAs{getuid(), getgid(), {}, {}};
  HeldChild child;
  uint32_t first_pid = o.attach_pid;
  if (!o.command.empty()) {
    FSR_ASSIGN_OR_RETURN(child, spawn_held(o.command, as));
    first_pid = static_cast<uint32_t>(child.pid());
  } else if (kill(static_cast<pid_t>(o.attach_pid), 0) != 0) {
    return Status::error(fmt::format("--pid {}: no such process", o.attach_pid), StatusCode::kNotFound);
  }

  TraceHeader h;
  h.recorder_version = "fsreplay-record 0.1";
  struct utsname u;
  if (uname(&u) == 0) {
    h.kernel_release = u.release;
    h.hostname = u.nodename;
  }
  h.cpu_count = static_cast<uint32_t>(sysconf(_SC_NPROCESSORS_ONLN));
  h.command = o.command;
  if (o.attach_pid) h.command = {fmt::format("--pid {}", o.attach_pid)};
  h.root = root;
  h.uid = as.uid;
  h.gid = as.gid;
  h.recorder_choices = sum.choices;
  if (auto m = read_mountinfo(fmt::format("/proc/{}/mountinfo", first_pid))) h.mounts = std::move(m.value());
  FSR_ASSIGN_OR_RETURN(h.initial, read_process_state(first_pid));
  h.wall_start_ns = now_ns(CLOCK_REALTIME);
  h.mono_start_ns = now_ns(CLOCK_MONOTONIC);
  h.record_cost = cost.cost;

  FSR_ASSIGN_OR_RETURN(std::unique_ptr<TraceWriter> writer, TraceWriter::create(o.output, h));
  if (!as.user.empty()) {
    if (chown(o.output.c_str(), as.uid, as.gid) != 0) { /* the trace stays root's: not fatal */ }
  }

  EventDecoder decoder(h.mono_start_ns, [&](std::string_view s) { return writer->add_string(s); },
                       session->plan().pidns.inum);
  // The prestate also tells the decoder which paths under the root are
  // symlinks (physical path resolution: path_resolver.h).
  decoder.paths().set_root(root);
  // Faults on files outside the root are recorded only until their file is
  // known (bpf/record_fault.bpf.h fault_skip): a replay puts those files on
  // the local disk, where they cost what they did here.
  std::unique_ptr<FaultFiles> fault_files;
  if (skip_outside) {
    fault_files = std::make_unique<FaultFiles>(root, root_devices(h.mounts, root),
                                               [&](uint32_t dev, uint64_t ino, uint32_t gen) { session->skip_faults_of(dev, ino, gen); });
    decoder.set_fault_files(fault_files.get());
  }
  uint64_t unreadable = 0;
  Status ps = walk_prestate(
      root,
      [&](const PrestateEntry& e) {
        if (output_inside && e.path == output_path) return Status::ok();
        if (e.kind == PrestateKind::kSymlink) decoder.paths().add_link(e.path, e.target);
        return writer->add_prestate(e);
      },
      &unreadable);
  FSR_RETURN_IF_ERROR(ps);
  if (unreadable) sum.warnings += fmt::format("{} directories under {} could not be read for the prestate\n", unreadable, root);
  decoder.seed_process(h.initial);

  // Track, then release: no event of the workload can precede its filter entry.
  FSR_RETURN_IF_ERROR(session->track(first_pid));
  if (o.attach_pid) {
    session->enable_lazy_tracking();  // threads of running processes have no task state
    for (uint32_t p : descendants(o.attach_pid)) {
      (void)session->track(p);
      if (auto st = read_process_state(p)) decoder.seed_process(st.value());
    }
  }

  struct sigaction sa {};
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_int {}, old_term {}, old_hup {};
  g_signals = 0;
  g_first_signal = 0;
  g_first_from_tty = false;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGHUP, &sa, &old_hup);

  // The drain's code and first heap pages, faulted in now rather than while
  // the workload runs (heap_warmup.h).
  warm_up(kDrainWarmHeapBytes);

  if (!o.command.empty()) FSR_RETURN_IF_ERROR(child.release());
  DrainGovernor governor(*session);

  Event ev;
  Status werr;
  auto emit = [&](const void* rec, size_t size) {
    if (decoder.decode(rec, size, ev) && werr.is_ok()) werr = writer->append(ev);
  };
  const uint64_t cpu_start = now_ns(CLOCK_PROCESS_CPUTIME_ID);
  uint64_t last_flush = now_ns(CLOCK_MONOTONIC);
  uint64_t last_drain = last_flush;
  uint64_t last_sweep = last_flush;
  bool done = false;
  int forwarded = 0;
  const bool pid1 = getpid() == 1;
  while (!done) {
    uint64_t horizon = now_ns(CLOCK_MONOTONIC);
    Status c = session->consume();
    if (!c) { werr = c; break; }
    const uint64_t since_drain = horizon - last_drain;
    last_drain = horizon;
    merger.release(horizon > kDrainHorizonMarginNs ? horizon - kDrainHorizonMarginNs : 0, emit);
    free_lanes(*session, merger);
    if (!werr) break;
    if (horizon - last_flush >= kDrainFlushEveryNs) {
      werr = writer->flush();
      if (!werr) break;
      last_flush = horizon;
      governor.flushed(horizon);
      if (o.on_progress) {
        uint64_t drops = 0;
        for (uint64_t d : session->counters().drops) drops += d;
        o.on_progress(writer->records_written(), drops);
      }
    }
    if (!o.command.empty()) {
      int st = 0;
      // As a PID namespace's first process (unshare --pid --fork fsreplay
      // record ...), the recorder inherits the workload's orphans: reap them.
      for (pid_t w; (w = waitpid(pid1 ? -1 : child.pid(), &st, WNOHANG)) > 0;) {
        if (w != child.pid()) continue;
        sum.wait_status = st;
        done = true;
        break;
      }
      // The first SIGINT, SIGTERM or SIGHUP is forwarded to the workload's
      // processes (a Ctrl-C from the terminal reached them already), and the
      // recording goes on until the workload has exited; a second kills them.
      const int sigs = g_signals.load();
      if (sigs > forwarded) {
        if (forwarded == 0) {
          sum.stop_signal = g_first_signal.load();
          if (!g_first_from_tty.load()) signal_tree(child.pid(), sum.stop_signal);
        }
        if (sigs > 1) signal_tree(child.pid(), SIGKILL);
        forwarded = sigs;
      }
    } else {
      // Entries of processes that exited before they were tracked are
      // dropped first, once every 100 ms.
      if (horizon - last_sweep >= 100'000'000) {
        session->forget_exited();
        last_sweep = horizon;
      }
      if (g_signals.load() > 0 || session->tracked_count() == 0) done = true;
    }
    if (!done) {
      // No wake-ups from the kernel: drain on a timer. 10 ms while the lanes
      // fill slowly (shorter timers cost the recorder CPU in wake-ups);
      // sooner, down to 1 ms, when the fullest lane filled at a rate that
      // would take it past 1/8 of its size in 10 ms. That lets smaller lanes
      // (--buffer-mib 2 or 4: sys_exit writes each record into lane memory,
      // and a smaller lane stays in cache) still absorb syscall storms.
      uint64_t sleep_ns = kDrainIdleNs;
      const uint64_t peak = session->last_peak_bytes(), budget = session->lane_bytes() / 8;
      if (peak > 0 && since_drain > 0 && peak * kDrainIdleNs > budget * since_drain)
        sleep_ns = std::max(kDrainMinNs, budget * since_drain / peak);
      timespec d{0, static_cast<long>(sleep_ns)};
      nanosleep(&d, nullptr);
    }
  }
  sum.drain_cpu_ns = now_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
  sum.drain_boosts = governor.stop();
  // Final drain: everything submitted before the workload's exit is in the lanes now.
  if (werr.is_ok()) {
    Status c = session->consume();
    if (!c) werr = c;
    merger.release(UINT64_MAX, emit);
    free_lanes(*session, merger);
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  sigaction(SIGHUP, &old_hup, nullptr);
  if (!werr) return Status::error(fmt::format("{}: writing the trace failed: {}", o.output, werr.message()));

  sum.kernel = session->counters();
  subtract_counters(sum.kernel, cost.counters);  // the calibration's calls are not the workload's
  TraceFooter f;
  f.end_ns = now_ns(CLOCK_MONOTONIC) - h.mono_start_ns;
  f.exit_status = sum.wait_status;
  if (sum.stop_signal)
    f.notes += fmt::format("recording stopped by {}: forwarded to the workload's processes\n",
                           signal_name(sum.stop_signal));
  f.seen = sum.kernel.seen;
  f.drops = sum.kernel.drops;
  f.io_uring_submissions = sum.kernel.io_uring;
  f.string_drops = sum.kernel.string_drops;
  f.recorder_stolen_ns = sum.kernel.stolen_ns;
  f.stolen_measured = sum.kernel.stolen_measured;
  f.gaps_ns = decoder.gaps_ns();
  f.user_faults = sum.kernel.user_faults;
  f.fault_records = decoder.fault_records();
  f.fault_skips = sum.kernel.fault_skips;
  f.fault_cost_ns = fault_cost_ns(cost.cost, f.user_faults, f.fault_records, f.fault_skips);
  for (auto d : sum.kernel.drops) sum.drops += d;
  if (sum.kernel.prog_misses) {
    sum.warnings += fmt::format("{} BPF program runs were skipped by the kernel (recursion): events may be missing\n",
                                sum.kernel.prog_misses);
    f.notes += fmt::format("bpf recursion misses: {}\n", sum.kernel.prog_misses);
  }
  if (sum.kernel.lane_nested) {
    sum.warnings += fmt::format("{} records refused: a BPF program wrote a lane another one was writing (counted as drops)\n",
                                sum.kernel.lane_nested);
    f.notes += fmt::format("lane nested writes: {}\n", sum.kernel.lane_nested);
  }
  if (sum.kernel.lane_damage) {
    sum.warnings += "a damaged lane frame was met: records after it in that drain were skipped\n";
    f.notes += "lane damage: records skipped\n";
  }
  if (sum.kernel.foreign_children) {
    sum.warnings += fmt::format("{} processes were started in a PID namespace outside the recording's: "
                                "not followed, their events are not in the trace\n",
                                sum.kernel.foreign_children);
    f.notes += fmt::format("children outside the PID namespace, not followed: {}\n", sum.kernel.foreign_children);
  }
  if (sum.kernel.io_uring) {
    sum.warnings += fmt::format("{} io_uring calls: their I/O is not in the trace (libuv tools: set UV_USE_IO_URING=0)\n",
                                sum.kernel.io_uring);
    f.notes += "io_uring used: its I/O is not in the trace\n";
  }
  sum.unresolved_paths = decoder.unresolved_paths();
  Status fin = writer->finish(f);
  if (!fin) return Status::error(fmt::format("{}: finishing the trace failed: {}", o.output, fin.message()));
  sum.events = writer->records_written();
  sum.bytes = writer->bytes_written();
  sum.duration_ns = f.end_ns;
  sum.io_uring = sum.kernel.io_uring;
  if (WIFEXITED(sum.wait_status)) sum.exit_code = WEXITSTATUS(sum.wait_status);
  else if (WIFSIGNALED(sum.wait_status)) sum.exit_code = 128 + WTERMSIG(sum.wait_status);
  return sum;
}

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
#include "recorder/bpf/recorder.h"

#include <signal.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
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
#include "recorder/bpf/kernel_report.h"
#include "recorder/core/launcher.h"
#include "recorder/core/release_folder.h"
#include "recorder/bpf/fault_cost.h"
#include "recorder/bpf/record_cost.h"
#include "recorder/core/ring_merger.h"
#include "recorder/bpf/stop_signals.h"
#include "base/paths.h"
#include "traces/trace_writer.h"
#include "base/wait_status.h"

namespace fsr {
namespace {

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

// One `record` call, phase by phase: the root and output paths, the BPF
// session and its calibration, the workload held before exec, the trace's
// header and prestate, the tracking, the drain while the workload runs, the
// footer and summary. Members are declared in the order they are made, so
// they are destroyed in reverse: the fault files and the decoder (which call
// into the session and the writer) before the writer and the session.
class Recording {
 public:
  explicit Recording(const RecordOptions& o) : o_(o) {}
  Result<RecordSummary> run();

 private:
  Status find_paths();
  Status open_session();
  void describe_choices();
  Status start_workload();
  Result<TraceHeader> make_header();
  Status create_writer();
  Status write_prestate();
  Status track_workload();
  Status drain();
  bool workload_done(StopSignals& signals);
  uint64_t drain_sleep_ns(uint64_t since_drain) const;
  TraceFooter make_footer();
  Result<RecordSummary> finish();

  const RecordOptions& o_;
  RecordSummary sum_;
  std::string root_;
  // The trace file itself, when it is written inside the root (the default:
  // ./fsreplay.trace with the current directory as root), is left out of the
  // prestate: a replay would otherwise make a copy of the half-written trace.
  std::string output_path_;
  bool output_inside_ = false;
  bool skip_outside_ = false;  // faults of files outside the root stop being recorded (FaultFiles)
  RingMerger merger_{static_cast<uint32_t>(std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_CONF))))};
  std::unique_ptr<BpfSession> session_;
  RecordCostRun cost_;
  RunAs as_;
  HeldChild child_;
  uint32_t first_pid_ = 0;
  TraceHeader h_;
  std::unique_ptr<TraceWriter> writer_;
  std::unique_ptr<EventDecoder> decoder_;
  std::unique_ptr<FaultFiles> fault_files_;
  ReleaseFolder releases_;  // calls held for their deferred release (release_folder.h)
  const bool is_pid1_ = getpid() == 1;
};

Result<RecordSummary> Recording::run() {
  FSR_RETURN_IF_ERROR(find_paths());
  FSR_RETURN_IF_ERROR(open_session());
  FSR_RETURN_IF_ERROR(start_workload());
  FSR_ASSIGN_OR_RETURN(h_, make_header());
  FSR_RETURN_IF_ERROR(create_writer());
  FSR_RETURN_IF_ERROR(write_prestate());
  FSR_RETURN_IF_ERROR(track_workload());
  FSR_RETURN_IF_ERROR(drain());
  return finish();
}

Status Recording::find_paths() {
  if (o_.command.empty() == (o_.attach_pid == 0))
    return Status::error("give either a command (-- CMD ARGS...) or --pid PID", StatusCode::kInvalidInput);
  root_ = canonical(o_.root.empty() ? "." : o_.root);
  if (root_.empty()) return Status::error(fmt::format("--root {}: {}", o_.root, strerror(errno)));
  const std::filesystem::path out(o_.output);
  const std::string parent = canonical(out.has_parent_path() ? out.parent_path().string() : std::string("."));
  if (!parent.empty()) output_path_ = parent + "/" + out.filename().string();
  output_inside_ = !output_path_.empty() && is_beneath(output_path_, root_);
  return Status::ok();
}

Status Recording::open_session() {
  // The merger must know every possible CPU: the session tells us how many lanes it made.
  FSR_ASSIGN_OR_RETURN(session_, BpfSession::open(o_.bpf, push_record, &merger_));
  if (session_->cpu_count() > sysconf(_SC_NPROCESSORS_CONF)) merger_ = RingMerger(session_->cpu_count());
  // What the governor lets a lane hold before it raises the drain, in records of 64 bytes or more.
  merger_.reserve(session_->lane_bytes() / 4 / 64);
  if (!session_->warnings().empty()) sum_.warnings.push_back(session_->warnings());
  describe_choices();
  // What recording adds to the timings, measured before anything is tracked.
  cost_ = measure_record_cost(*session_, merger_);
  if (!cost_.warning.empty()) sum_.warnings.push_back(cost_.warning);
  return Status::ok();
}

void Recording::describe_choices() {
  const FaultSource faults = session_->plan().faults;
  sum_.choices = session_->plan().describe();
  sum_.choices.emplace_back(kRecorderChoiceWalks);     // relative paths are marked (event.h kEfRelative0)
  sum_.choices.emplace_back(kRecorderChoiceReleases);  // deferred releases are in their calls (release_folder.h)
  if (output_inside_)
    sum_.choices.emplace_back("output=inside the root (" + output_path_ + "): left out of the prestate");
  skip_outside_ =
      !o_.bpf.all_page_faults && (faults == FaultSource::kFilemapTracepoints || faults == FaultSource::kFentry);
  if (skip_outside_)
    sum_.choices.emplace_back(
        "fault_files=under_root (a file outside the root: its faults are recorded until its path is known)");
  else if (o_.bpf.all_page_faults && faults != FaultSource::kOff)
    sum_.choices.emplace_back("fault_files=all (--all-page-faults)");
}

Status Recording::start_workload() {
  as_ = o_.run_as_invoker ? invoking_user() : RunAs{getuid(), getgid(), {}, {}};
  first_pid_ = o_.attach_pid;
  if (!o_.command.empty()) {
    FSR_ASSIGN_OR_RETURN(child_, spawn_held(o_.command, as_));
    first_pid_ = static_cast<uint32_t>(child_.pid());
  } else if (kill(static_cast<pid_t>(o_.attach_pid), 0) != 0) {
    return Status::error(fmt::format("--pid {}: no such process", o_.attach_pid), StatusCode::kNotFound);
  }
  return Status::ok();
}

Result<TraceHeader> Recording::make_header() {
  TraceHeader h;
  h.recorder_version = "fsreplay-record 0.1";
  struct utsname u;
  if (uname(&u) == 0) {
    h.kernel_release = u.release;
    h.hostname = u.nodename;
  }
  h.cpu_count = static_cast<uint32_t>(sysconf(_SC_NPROCESSORS_ONLN));
  h.command = o_.command;
  if (o_.attach_pid) h.command = {fmt::format("--pid {}", o_.attach_pid)};
  h.root = root_;
  h.uid = as_.uid;
  h.gid = as_.gid;
  h.recorder_choices = sum_.choices;
  if (auto m = read_mountinfo(fmt::format("/proc/{}/mountinfo", first_pid_))) h.mounts = std::move(m.value());
  FSR_ASSIGN_OR_RETURN(h.initial, read_process_state(first_pid_));
  h.wall_start_ns = now_ns(CLOCK_REALTIME);
  h.mono_start_ns = now_ns(CLOCK_MONOTONIC);
  h.record_cost = cost_.cost;
  return h;
}

// The writer, and the decoder that interns its strings through it.
Status Recording::create_writer() {
  FSR_ASSIGN_OR_RETURN(writer_, TraceWriter::create(o_.output, h_));
  if (!as_.user.empty()) {
    if (chown(o_.output.c_str(), as_.uid, as_.gid) != 0) { /* the trace stays root's: not fatal */
    }
  }
  decoder_ = std::make_unique<EventDecoder>(
      h_.mono_start_ns, [this](std::string_view s) { return writer_->add_string(s); }, session_->plan().pidns.inum);
  // The prestate also tells the decoder which paths under the root are
  // symlinks (physical path resolution: path_resolver.h).
  decoder_->paths().set_root(root_);
  // Faults on files outside the root are recorded only until their file is
  // known (bpf/record_fault.bpf.h fault_skip): a replay puts those files on
  // the local disk, where they cost what they did here.
  if (skip_outside_) {
    fault_files_ = std::make_unique<FaultFiles>(
        root_, root_devices(h_.mounts, root_),
        [this](uint32_t dev, uint64_t ino, uint32_t gen) { session_->skip_faults_of(dev, ino, gen); });
    decoder_->set_fault_files(fault_files_.get());
  }
  return Status::ok();
}

Status Recording::write_prestate() {
  uint64_t unreadable = 0;
  Status ps = walk_prestate(
      root_,
      [&](const PrestateEntry& e) {
        if (output_inside_ && e.path == output_path_) return Status::ok();
        if (e.kind == PrestateKind::kSymlink) decoder_->paths().add_link(e.path, e.target);
        return writer_->add_prestate(e);
      },
      &unreadable);
  FSR_RETURN_IF_ERROR(ps);
  if (unreadable)
    sum_.warnings.push_back(
        fmt::format("{} directories under {} could not be read for the prestate", unreadable, root_));
  decoder_->seed_process(h_.initial);
  return Status::ok();
}

// Track, then release: no event of the workload can precede its filter entry.
Status Recording::track_workload() {
  FSR_RETURN_IF_ERROR(session_->track(first_pid_));
  if (!o_.attach_pid) return Status::ok();
  session_->enable_lazy_tracking();  // threads of running processes have no task state
  for (uint32_t p : descendants(o_.attach_pid)) {
    // A process the filter cannot take is left out, the rest is recorded.
    if (Status st = session_->track(p); !st)
      sum_.warnings.push_back(fmt::format("pid {} not followed: {}; its events are not in the trace", p, st.message()));
    if (auto st = read_process_state(p)) decoder_->seed_process(st.value());
  }
  return Status::ok();
}

Status Recording::drain() {
  StopSignals signals;
  // The drain's code and first heap pages, faulted in now rather than while
  // the workload runs (heap_warmup.h).
  warm_up(kDrainWarmHeapBytes);

  if (!o_.command.empty()) FSR_RETURN_IF_ERROR(child_.release());
  DrainGovernor governor(*session_);

  Event ev;
  Status werr;
  auto write = [&](const Event& e) {
    if (werr.is_ok()) werr = writer_->append(e);
  };
  auto emit = [&](const void* rec, size_t size) {
    if (decoder_->decode(rec, size, ev)) releases_.take(ev, decoder_->release_pending(), write);
  };
  const uint64_t cpu_start = now_ns(CLOCK_PROCESS_CPUTIME_ID);
  uint64_t last_flush = now_ns(CLOCK_MONOTONIC);
  uint64_t last_drain = last_flush;
  uint64_t last_sweep = last_flush;
  bool done = false;
  while (!done) {
    uint64_t horizon = now_ns(CLOCK_MONOTONIC);
    Status c = session_->consume();
    if (!c) {
      werr = c;
      break;
    }
    const uint64_t since_drain = horizon - last_drain;
    last_drain = horizon;
    merger_.release(horizon > kDrainHorizonMarginNs ? horizon - kDrainHorizonMarginNs : 0, emit);
    free_lanes(*session_, merger_);
    if (!werr) break;
    if (horizon - last_flush >= kDrainFlushEveryNs) {
      werr = writer_->flush();
      if (!werr) break;
      last_flush = horizon;
      governor.flushed(horizon);
      if (o_.on_progress) {
        uint64_t drops = 0;
        for (uint64_t d : session_->counters().drops) drops += d;
        o_.on_progress(writer_->records_written(), drops);
      }
    }
    if (!o_.command.empty()) {
      done = workload_done(signals);
    } else {
      // Entries of processes that exited before they were tracked are
      // dropped first, once every 100 ms.
      if (horizon - last_sweep >= 100'000'000) {
        session_->forget_exited();
        last_sweep = horizon;
      }
      if (signals.count() > 0 || session_->tracked_count() == 0) done = true;
    }
    if (!done) {
      timespec d{0, static_cast<long>(drain_sleep_ns(since_drain))};
      nanosleep(&d, nullptr);
    }
  }
  sum_.drain_cpu_ns = now_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
  sum_.drain_boosts = governor.stop();
  // Final drain: everything submitted before the workload's exit is in the lanes now.
  if (werr.is_ok()) {
    Status c = session_->consume();
    if (!c) werr = c;
    merger_.release(UINT64_MAX, emit);
    free_lanes(*session_, merger_);
    releases_.flush(write);
  }
  if (!werr) return Status::error(fmt::format("{}: writing the trace failed: {}", o_.output, werr.message()));
  return Status::ok();
}

// Whether the workload the recorder started has exited (its wait status
// then in the summary); the recording goes on until it has, and the signals
// the recorder got are passed on to it.
bool Recording::workload_done(StopSignals& signals) {
  bool done = false;
  int st = 0;
  // As a PID namespace's first process (unshare --pid --fork fsreplay
  // record ...), the recorder inherits the workload's orphans: reap them.
  for (pid_t w; (w = waitpid(is_pid1_ ? -1 : child_.pid(), &st, WNOHANG)) > 0;) {
    if (w != child_.pid()) continue;
    sum_.wait_status = st;
    done = true;
    break;
  }
  signals.forward_to(child_.pid(), sum_.stop_signal);
  return done;
}

// No wake-ups from the kernel: drain on a timer. 10 ms while the lanes fill
// slowly (shorter timers cost the recorder CPU in wake-ups); sooner, down to
// 1 ms, when the fullest lane filled at a rate that would take it past 1/8 of
// its size in 10 ms. That lets smaller lanes (--buffer-mib 2 or 4: sys_exit
// writes each record into lane memory, and a smaller lane stays in cache)
// still absorb syscall storms.
uint64_t Recording::drain_sleep_ns(uint64_t since_drain) const {
  uint64_t sleep_ns = kDrainIdleNs;
  const uint64_t peak = session_->last_peak_bytes(), budget = session_->lane_bytes() / 8;
  if (peak > 0 && since_drain > 0 && peak * kDrainIdleNs > budget * since_drain)
    sleep_ns = std::max(kDrainMinNs, budget * since_drain / peak);
  return sleep_ns;
}

TraceFooter Recording::make_footer() {
  sum_.kernel = session_->counters();
  subtract_counters(sum_.kernel, cost_.counters);  // the calibration's calls are not the workload's
  TraceFooter f;
  f.end_ns = now_ns(CLOCK_MONOTONIC) - h_.mono_start_ns;
  f.exit_status = sum_.wait_status;
  if (sum_.stop_signal)
    f.notes +=
        fmt::format("recording stopped by {}: forwarded to the workload's processes\n", signal_name(sum_.stop_signal));
  copy_kernel_counts(sum_.kernel, f);
  f.gaps_ns = decoder_->gaps_ns();
  f.fault_records = decoder_->fault_records();
  f.fault_cost_ns = fault_cost_ns(cost_.cost, f.user_faults, f.fault_records, f.fault_skips);
  f.deferred_releases = releases_.folded();
  f.deferred_release_ns = releases_.folded_ns();
  for (auto d : sum_.kernel.drops) sum_.drops += d;
  note_kernel_problems(sum_.kernel, sum_.warnings, f);
  return f;
}

Result<RecordSummary> Recording::finish() {
  const TraceFooter f = make_footer();
  sum_.unresolved_paths = decoder_->unresolved_paths();
  Status fin = writer_->finish(f);
  if (!fin) return Status::error(fmt::format("{}: finishing the trace failed: {}", o_.output, fin.message()));
  sum_.events = writer_->records_written();
  sum_.bytes = writer_->bytes_written();
  sum_.duration_ns = f.end_ns;
  sum_.io_uring = sum_.kernel.io_uring;
  if (WIFEXITED(sum_.wait_status))
    sum_.exit_code = WEXITSTATUS(sum_.wait_status);
  else if (WIFSIGNALED(sum_.wait_status))
    sum_.exit_code = 128 + WTERMSIG(sum_.wait_status);
  return std::move(sum_);
}

}  // namespace

Result<RecordSummary> record(const RecordOptions& o) {
  Recording r(o);
  return r.run();
}

}  // namespace fsr

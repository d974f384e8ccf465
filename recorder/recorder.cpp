#include "recorder/recorder.h"

#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "recorder/event_decoder.h"
#include "recorder/heap_warmup.h"
#include "recorder/initial_state.h"
#include "recorder/launcher.h"
#include "recorder/ring_merger.h"
#include "traces/trace_writer.h"

namespace fsr {
namespace {

std::atomic<int> g_signals{0};
void on_signal(int) { g_signals.fetch_add(1); }

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

// Descendants of `pid` (by PPid in /proc), for --pid.
std::vector<uint32_t> descendants(uint32_t pid) {
  std::vector<std::pair<uint32_t, uint32_t>> all;  // (pid, ppid)
  std::unique_ptr<DIR, int (*)(DIR*)> d(opendir("/proc"), closedir);
  while (d) {
    struct dirent* de = readdir(d.get());
    if (!de) break;
    uint32_t p = static_cast<uint32_t>(atoi(de->d_name));
    if (p == 0) continue;
    std::ifstream st(fmt::format("/proc/{}/status", p));
    std::string line;
    while (std::getline(st, line))
      if (line.rfind("PPid:", 0) == 0) all.emplace_back(p, static_cast<uint32_t>(std::stoul(line.substr(5))));
  }
  std::set<uint32_t> in{pid};
  for (bool grew = true; grew;) {
    grew = false;
    for (auto [p, pp] : all)
      if (in.count(pp) && !in.count(p)) grew = in.insert(p).second;
  }
  in.erase(pid);
  return {in.begin(), in.end()};
}

std::string canonical(const std::string& p) {
  char buf[PATH_MAX];
  return realpath(p.c_str(), buf) ? std::string(buf) : std::string();
}

// Runs the drain in the machine's idle time. The drain costs ~1 us of CPU
// per event (decode, path resolution, encoding), and on a machine the
// workload keeps busy it would take that CPU from the workload. So the
// draining thread runs at the lowest priority, and the lanes (8 MiB per CPU
// by default: ~80,000 records) hold what it has not taken yet; a governor
// thread raises its priority above the workload's while any lane is more
// than a quarter full, or has less than half its early-rewind window free
// (after an early rewind only the lane's start is free until the reader
// takes the jump: bpf/fsreplay_record.h), or the last flush is 750 ms old (a
// flush at least once a second: a killed recorder leaves the trace up to it).
class DrainGovernor {
 public:
  explicit DrainGovernor(const BpfSession& s) : session_(s), drain_tid_(gettid()) {
    set_nice(drain_tid_, kIdle);
    last_flush_ = now_ns(CLOCK_MONOTONIC);
    thread_ = std::thread([this] { run(); });
  }
  ~DrainGovernor() { stop(); }
  DrainGovernor(const DrainGovernor&) = delete;
  DrainGovernor& operator=(const DrainGovernor&) = delete;

  void flushed(uint64_t now) { last_flush_.store(now, std::memory_order_relaxed); }
  // Ends the governor and leaves the drain raised (the final drain competes
  // with nothing). Returns how many times it was raised.
  uint64_t stop() {
    if (thread_.joinable()) {
      stop_.store(true);
      thread_.join();
      set_nice(drain_tid_, kRaised);
    }
    return boosts_;
  }

 private:
  static constexpr int kIdle = 19, kRaised = -5;
  static constexpr uint64_t kCheckNs = 10'000'000, kFlushAgeNs = 750'000'000;
  static void set_nice(pid_t tid, int v) {
    if (setpriority(PRIO_PROCESS, static_cast<id_t>(tid), v) != 0) { /* not fatal: drops are counted */ }
  }
  void run() {
    set_nice(gettid(), kRaised);
    bool raised = false;
    const uint64_t quarter = session_.lane_bytes() / 4, sixteenth = session_.lane_bytes() / 16;
    const uint64_t tight = session_.lane_window() / 2;
    while (!stop_.load()) {
      timespec d{0, static_cast<long>(kCheckNs)};
      nanosleep(&d, nullptr);
      const BpfSession::LaneLoad load = session_.lane_load_now();
      const uint64_t age = now_ns(CLOCK_MONOTONIC) - last_flush_.load(std::memory_order_relaxed);
      if (!raised && (load.fill > quarter || load.room < tight || age > kFlushAgeNs)) {
        set_nice(drain_tid_, kRaised);
        raised = true;
        ++boosts_;
      } else if (raised && load.fill < sixteenth && load.room >= 2 * tight && age < kFlushAgeNs) {
        set_nice(drain_tid_, kIdle);
        raised = false;
      }
    }
  }
  const BpfSession& session_;
  const pid_t drain_tid_;
  std::atomic<uint64_t> last_flush_{0};
  std::atomic<bool> stop_{false};
  uint64_t boosts_ = 0;
  std::thread thread_;
};

}  // namespace

Result<RecordSummary> record(const RecordOptions& o) {
  RecordSummary sum;
  if (o.command.empty() == (o.attach_pid == 0))
    return Status::error("give either a command (-- CMD ARGS...) or --pid PID");
  std::string root = canonical(o.root.empty() ? "." : o.root);
  if (root.empty()) return Status::error(fmt::format("--root {}: {}", o.root, strerror(errno)));

  RingMerger merger(static_cast<uint32_t>(std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_CONF)))));
  BpfOptions bo;
  bo.buffer_mib = o.buffer_mib;
  bo.page_faults = o.page_faults;
  // The merger must know every possible CPU: the session tells us how many lanes it made.
  auto session_r = BpfSession::open(bo, push_record, &merger);
  if (!session_r) return session_r.status();
  std::unique_ptr<BpfSession> session = std::move(session_r.value());
  if (session->cpu_count() > sysconf(_SC_NPROCESSORS_CONF)) merger = RingMerger(session->cpu_count());
  // What the governor lets a lane hold before it raises the drain, in records of 64 bytes or more.
  merger.reserve(session->lane_bytes() / 4 / 64);
  if (!session->warnings().empty()) sum.warnings += session->warnings() + "\n";

  RunAs as = o.run_as_invoker ? invoking_user() : RunAs{getuid(), getgid(), {}, {}};
  HeldChild child;
  uint32_t first_pid = o.attach_pid;
  if (!o.command.empty()) {
    auto c = spawn_held(o.command, as);
    if (!c) return c.status();
    child = std::move(c.value());
    first_pid = static_cast<uint32_t>(child.pid());
  } else if (kill(static_cast<pid_t>(o.attach_pid), 0) != 0) {
    return Status::error(fmt::format("--pid {}: no such process", o.attach_pid));
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
  if (auto m = read_mountinfo()) h.mounts = std::move(m.value());
  if (auto st = read_process_state(first_pid)) h.initial = std::move(st.value());
  else return st.status();
  h.wall_start_ns = now_ns(CLOCK_REALTIME);
  h.mono_start_ns = now_ns(CLOCK_MONOTONIC);

  auto writer_r = TraceWriter::create(o.output, h);
  if (!writer_r) return writer_r.status();
  std::unique_ptr<TraceWriter> writer = std::move(writer_r.value());
  if (!as.user.empty()) {
    if (chown(o.output.c_str(), as.uid, as.gid) != 0) { /* the trace stays root's: not fatal */ }
  }

  uint64_t unreadable = 0;
  Status ps = walk_prestate(root, [&](const PrestateEntry& e) { return writer->add_prestate(e); }, &unreadable);
  if (!ps) return ps;
  if (unreadable) sum.warnings += fmt::format("{} directories under {} could not be read for the prestate\n", unreadable, root);

  EventDecoder decoder(h.mono_start_ns, [&](std::string_view s) { return writer->add_string(s); });
  decoder.seed_process(h.initial);

  // Track, then release: no event of the workload can precede its filter entry.
  Status t = session->track(first_pid);
  if (!t) return t;
  if (o.attach_pid) {
    session->enable_lazy_tracking();  // threads of running processes have no task storage
    for (uint32_t p : descendants(o.attach_pid)) {
      (void)session->track(p);
      if (auto st = read_process_state(p)) decoder.seed_process(st.value());
    }
  }

  struct sigaction sa {};
  sa.sa_handler = on_signal;
  struct sigaction old_int {}, old_term {};
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  g_signals = 0;

  // The drain's code and first heap pages, faulted in now rather than while
  // the workload runs (heap_warmup.h).
  warm_up(kDrainWarmHeapBytes);

  if (!o.command.empty()) {
    Status r = child.release();
    if (!r) return r;
  }
  DrainGovernor governor(*session);

  Event ev;
  Status werr;
  auto emit = [&](const void* rec, size_t size) {
    if (decoder.decode(rec, size, ev) && werr.is_ok()) werr = writer->append(ev);
  };
  const uint64_t cpu_start = now_ns(CLOCK_PROCESS_CPUTIME_ID);
  uint64_t last_flush = now_ns(CLOCK_MONOTONIC);
  uint64_t last_drain = last_flush;
  bool done = false;
  int forwarded = 0;
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
      pid_t w = waitpid(child.pid(), &st, WNOHANG);
      if (w == child.pid()) {
        sum.wait_status = st;
        done = true;
      }
      // Ctrl-C reaches the workload through the terminal; a second one, or
      // SIGTERM to us, is forwarded.
      int sigs = g_signals.load();
      if (sigs > 1 && forwarded < sigs) {
        kill(child.pid(), SIGTERM);
        forwarded = sigs;
      }
    } else {
      if (g_signals.load() > 0 || session->tracked_count() == 0) done = true;
    }
    if (!done) {
      // No wake-ups from the kernel: drain on a timer. 10 ms while the lanes
      // fill slowly (shorter timers cost the recorder CPU in wake-ups: 12% of
      // its samples at 1 ms on a git clone); sooner, down to 1 ms, when the
      // fullest lane filled at a rate that would take it past 1/8 of its size
      // in 10 ms. That lets smaller lanes (--buffer-mib 2 or 4: sys_exit writes
      // each record into lane memory, and a smaller lane stays in cache) still
      // absorb storms (~0.7 M records/s on one CPU fill 4 MiB in ~45 ms).
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
  if (!werr) return Status::error(fmt::format("{}: writing the trace failed: {}", o.output, werr.message()));

  sum.kernel = session->counters();
  TraceFooter f;
  f.end_ns = now_ns(CLOCK_MONOTONIC) - h.mono_start_ns;
  f.exit_status = sum.wait_status;
  f.seen = sum.kernel.seen;
  f.drops = sum.kernel.drops;
  f.io_uring_submissions = sum.kernel.io_uring;
  f.string_drops = sum.kernel.string_drops;
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

// SPDX-License-Identifier: Apache-2.0
#include "recorder/bpf/record_cost.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "recorder/bpf/calibration_child.h"
#include "recorder/bpf/fault_cost.h"
#include "base/clock.h"
#include "traces/syscalls.h"

namespace fsr {
namespace {

// The call shapes. Each iteration: the compute loop, then the recorded calls
// in order (shape kUnrecorded makes an unrecorded getppid between its two).
enum Shape : int { kFstat, kStatPath, kOpenClose, kPread, kSeekGetdents, kPwrite, kUnrecorded, kShapes };
constexpr int kMaxCalls = 2;
struct ShapeDef {
  int calls;
  long nr[kMaxCalls];
};
constexpr ShapeDef kDefs[kShapes] = {
    {1, {SYS_newfstatat, 0}},
    {1, {SYS_newfstatat, 0}},
    {2, {SYS_openat, SYS_close}},
    {1, {SYS_pread64, 0}},
    {2, {SYS_lseek, SYS_getdents64}},
    {1, {SYS_pwrite64, 0}},
    {2, {SYS_newfstatat, SYS_newfstatat}},
};
// The compute loop between calls: reads a 32 KiB working set (an L1 cache's
// worth, which the programs' own footprint competes with) and does some
// arithmetic: about a dense workload's gap between two calls.
constexpr int kSpin = 512;
constexpr size_t kWorkingSet = 32 << 10;
alignas(64) uint8_t g_working_set[kWorkingSet];

struct Stamp {
  uint64_t t0, t1;  // the child's clock just before and just after the call
};

// Shared with the child (MAP_SHARED): its own measurements.
struct ChildLog {
  uint32_t n = 0;
  int ok = 0;
  uint64_t round_trip = 0;  // median getppid, timed as the replayer times it
  Stamp stamps[1];          // [shape][iteration][call], n iterations
  static size_t bytes(uint32_t n) { return sizeof(ChildLog) + sizeof(Stamp) * kShapes * n * kMaxCalls; }
  Stamp& at(int s, uint32_t i, int c) { return stamps[(static_cast<size_t>(s) * n + i) * kMaxCalls + c]; }
};

struct Files {
  std::string dir, file, sub;
  int fd = -1, wfd = -1, dfd = -1;
  ~Files() {
    for (int f : {fd, wfd, dfd})
      if (f >= 0) close(f);
    if (!sub.empty()) {
      for (int k = 0; k < 8; ++k) unlink((sub + "/e" + std::to_string(k)).c_str());
      rmdir(sub.c_str());
    }
    if (!file.empty()) unlink(file.c_str());
    unlink((dir + "/w").c_str());
    if (!dir.empty()) rmdir(dir.c_str());
  }
};

bool make_files(Files& f) {
  const char* tmp = getenv("TMPDIR");
  std::string tpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/fsreplay-record-cost-XXXXXX";
  if (!mkdtemp(tpl.data())) return false;
  f.dir = tpl;
  f.file = f.dir + "/f";
  f.sub = f.dir + "/d";
  int w = open(f.file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (w < 0) return false;
  char buf[4096];
  memset(buf, 'x', sizeof buf);
  bool ok = write(w, buf, sizeof buf) == static_cast<ssize_t>(sizeof buf);
  close(w);
  if (!ok || mkdir(f.sub.c_str(), 0700) != 0) return false;
  for (int k = 0; k < 8; ++k) {
    int e = open((f.sub + "/e" + std::to_string(k)).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (e >= 0) close(e);
  }
  f.fd = open(f.file.c_str(), O_RDONLY | O_CLOEXEC);
  f.wfd = open((f.dir + "/w").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  f.dfd = open(f.sub.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  return f.fd >= 0 && f.wfd >= 0 && f.dfd >= 0;
}

__attribute__((noinline)) void spin() {
  uint64_t x = 1;
  for (int k = 0; k < kSpin; ++k) {
    x = x * 2862933555777941757ull + g_working_set[(static_cast<size_t>(k) * 64) % kWorkingSet];
  }
  asm volatile("" : : "r"(x));
}

// The child's work; never returns.
[[noreturn]] void child_main(int go, const Files& f, ChildLog* log) {
  char c;
  if (read(go, &c, 1) != 1) _exit(1);
  std::vector<uint64_t> rt(1001);
  for (auto& d : rt) {
    uint64_t t0 = now_ns();
    syscall(SYS_getppid);
    d = now_ns() - t0;
  }
  std::nth_element(rt.begin(), rt.begin() + 500, rt.end());
  log->round_trip = rt[500];
  struct stat st;
  char buf[4096];
  for (int s = 0; s < kShapes; ++s) {
    for (uint32_t i = 0; i < log->n; ++i) {
      spin();
      Stamp* p = &log->at(s, i, 0);
      p[0].t0 = now_ns();
      switch (s) {
        case kFstat:
          fstat(f.fd, &st);
          break;
        case kStatPath:
          stat(f.file.c_str(), &st);
          break;
        case kOpenClose: {
          int fd = open(f.file.c_str(), O_RDONLY | O_CLOEXEC);
          p[0].t1 = now_ns();
          p[1].t0 = now_ns();
          close(fd);
          break;
        }
        case kPread:
          (void)pread(f.fd, buf, 1, 0);
          break;
        case kSeekGetdents:
          lseek(f.dfd, 0, SEEK_SET);
          p[0].t1 = now_ns();
          p[1].t0 = now_ns();
          syscall(SYS_getdents64, f.dfd, buf, sizeof buf);
          break;
        case kPwrite:
          (void)pwrite(f.wfd, buf, 1, 0);
          break;
        case kUnrecorded:
          fstat(f.fd, &st);
          p[0].t1 = now_ns();
          syscall(SYS_getppid);
          p[1].t0 = now_ns();
          fstat(f.fd, &st);
          break;
      }
      p[kDefs[s].calls - 1].t1 = now_ns();
    }
  }
  log->ok = 1;
  _exit(0);
}

uint64_t median(std::vector<int64_t>& v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return static_cast<uint64_t>(std::max<int64_t>(0, v[v.size() / 2]));
}

// Per shape and call: the samples of both kinds of pass.
struct Samples {
  std::vector<int64_t> user_gap[kShapes][kMaxCalls], user_dur[kShapes][kMaxCalls];
  std::vector<int64_t> traced_gap[kShapes][kMaxCalls], traced_dur[kShapes][kMaxCalls];  // the child's own view, tracked
  std::vector<int64_t> rec_gap[kShapes][kMaxCalls], rec_dur[kShapes][kMaxCalls];
  std::vector<int64_t> round_trip;
};

void add_user(const ChildLog& log, Samples& s, bool tracked) {
  ChildLog& l = const_cast<ChildLog&>(log);
  for (int sh = 0; sh < kShapes; ++sh)
    for (uint32_t i = 1; i < l.n; ++i)
      for (int c = 0; c < kDefs[sh].calls; ++c) {
        const Stamp& now = l.at(sh, i, c);
        const Stamp& before = c > 0 ? l.at(sh, i, c - 1) : l.at(sh, i - 1, kDefs[sh].calls - 1);
        (tracked ? s.traced_gap : s.user_gap)[sh][c].push_back(static_cast<int64_t>(now.t0 - before.t1));
        (tracked ? s.traced_dur : s.user_dur)[sh][c].push_back(static_cast<int64_t>(now.t1 - now.t0));
      }
  if (!tracked) s.round_trip.push_back(static_cast<int64_t>(l.round_trip));
}

// Lines the tracked child's recorded events up with its calls (they are all
// it made after the start signal); false when they do not match (a drop).
bool add_recorded(const std::vector<Event>& ev, uint32_t n, Samples& s) {
  size_t k = 0;
  while (k < ev.size() && ev[k].nr != SYS_newfstatat) ++k;  // the start signal's read
  const Event* prev = nullptr;
  for (int sh = 0; sh < kShapes; ++sh)
    for (uint32_t i = 0; i < n; ++i)
      for (int c = 0; c < kDefs[sh].calls; ++c, ++k) {
        if (k >= ev.size() || ev[k].nr != kDefs[sh].nr[c]) return false;
        const Event& e = ev[k];
        if (i > 0 && prev) {
          s.rec_gap[sh][c].push_back(static_cast<int64_t>(e.ts) - static_cast<int64_t>(prev->ts + prev->dur));
          s.rec_dur[sh][c].push_back(static_cast<int64_t>(e.dur));
        }
        prev = &e;
      }
  return true;
}

// One pass: a child making the call shapes, tracked or not; its recorded
// events (tracked) in `ev`.
Status run_pass(BpfSession& session, RingMerger& merger, const Files& f, ChildLog* log, bool tracked,
                std::vector<Event>& ev) {
  log->ok = 0;
  FSR_RETURN_IF_ERROR(run_calibration_child(
      session, merger, tracked, [&](int go) { child_main(go, f, log); }, ev));
  if (!log->ok) return Status::error("the calibration child failed");
  return Status::ok();
}

SyscallClass class_of_shape(int sh, int c) { return class_of(static_cast<uint32_t>(kDefs[sh].nr[c])); }

}  // namespace

void subtract_counters(KernelCounters& a, const KernelCounters& b) {
  auto sub = [](uint64_t& x, uint64_t y) { x = x > y ? x - y : 0; };
  for (int i = 0; i < kClassCount; ++i) {
    sub(a.seen[i], b.seen[i]);
    sub(a.drops[i], b.drops[i]);
  }
  sub(a.string_drops, b.string_drops);
  sub(a.stolen_ns, b.stolen_ns);
  sub(a.user_faults, b.user_faults);
  sub(a.fault_skips, b.fault_skips);
  sub(a.releases, b.releases);
  sub(a.release_drops, b.release_drops);
}

RecordCostRun measure_record_cost(BpfSession& session, RingMerger& merger, uint32_t iterations) {
  RecordCostRun run;
  const KernelCounters before = session.counters();
  Files f;
  if (!make_files(f)) {
    run.warning =
        "recorder cost not measured: cannot make calibration files in $TMPDIR (the trace replays uncorrected)";
    return run;
  }
  const uint32_t n = std::max<uint32_t>(iterations, 8);
  const size_t bytes = ChildLog::bytes(n);
  void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    run.warning = "recorder cost not measured: no memory for the calibration";
    return run;
  }
  ChildLog* log = new (mem) ChildLog;
  log->n = n;
  Samples s;
  std::vector<Event> ev;
  ev.reserve(static_cast<size_t>(n) * kShapes * kMaxCalls + 64);
  Status st;
  for (int pass = 0; pass < 4 && st; ++pass) {
    const bool tracked = pass % 2 == 1;  // untracked first: it warms the files and the code
    ev.clear();
    st = run_pass(session, merger, f, log, tracked, ev);
    if (!st) break;
    add_user(*log, s, tracked);
    if (tracked && !add_recorded(ev, n, s))
      st = Status::error(fmt::format("{} recorded calls do not match the calibration's (drops?)", ev.size()));
  }
  munmap(mem, bytes);
  const FaultCostRun faults = st ? measure_fault_cost(session, merger, f.dir) : FaultCostRun{};
  const KernelCounters after = session.counters();
  run.counters = after;
  subtract_counters(run.counters, before);
  if (!st) {
    run.warning = "recorder cost not measured: " + st.message() + " (the trace replays uncorrected)";
    return run;
  }
  const uint64_t rt = median(s.round_trip);
  RecordCost& cost = run.cost;
  std::array<std::vector<int64_t>, kClassCount> gap, dur;
  auto sub0 = [](uint64_t a, uint64_t b) { return static_cast<int64_t>(a) - static_cast<int64_t>(b); };
  for (int sh = 0; sh < kShapes; ++sh)
    for (int c = 0; c < kDefs[sh].calls; ++c) {
      if (sh == kUnrecorded && c == 1) continue;  // its gap holds the unrecorded call
      const int64_t g = sub0(median(s.rec_gap[sh][c]), median(s.user_gap[sh][c]) + rt);
      const uint64_t ud = median(s.user_dur[sh][c]);
      const int64_t d = sub0(median(s.rec_dur[sh][c]), ud > rt ? ud - rt : 0);
      const auto cls = static_cast<size_t>(class_of_shape(sh, c));
      gap[cls].push_back(g);
      dur[cls].push_back(d);
    }
  // The unrecorded call: its shape's second gap, less what an fstat's gap holds.
  const int64_t g2 = sub0(median(s.rec_gap[kUnrecorded][1]), median(s.user_gap[kUnrecorded][1]) + rt);
  const int64_t g1 = sub0(median(s.rec_gap[kFstat][0]), median(s.user_gap[kFstat][0]) + rt);
  cost.unrecorded_ns = static_cast<uint32_t>(std::max<int64_t>(0, g2 - g1));
  std::vector<int64_t> all_gap, all_dur;
  for (int c = 0; c < kClassCount; ++c) {
    if (gap[c].empty()) continue;
    cost.gap_ns[c] = static_cast<uint32_t>(median(gap[c]));
    cost.dur_ns[c] = static_cast<uint32_t>(median(dur[c]));
    all_gap.push_back(cost.gap_ns[c]);
    all_dur.push_back(cost.dur_ns[c]);
  }
  const auto dg = static_cast<uint32_t>(median(all_gap)), dd = static_cast<uint32_t>(median(all_dur));
  for (int c = 0; c < kClassCount; ++c)
    if (gap[c].empty()) {
      cost.gap_ns[c] = dg;
      cost.dur_ns[c] = dd;
    }
  // Pseudo events (fork, exec, exit, faults) have no sys_enter of their own:
  // their class's figure stands for the syscalls of that class only; user
  // faults have their own (fault_cost.h).
  cost.fault_ns = faults.ns;
  cost.present = true;
  cost.samples = n * 2;
  cost.method = fmt::format(
      "calibration child under the live recorder, {} calls per shape, 2 untracked and 2 tracked passes; "
      "syscall round trip {} ns; {}",
      n * 2, rt,
      !faults.measured
          ? std::string("page faults not measured (a calibration pass failed)")
          : fmt::format(
                "page faults: the fault programs' run time over {} touches per kind{}", kFaultTouches,
                faults.skipped_measured ? "" : " (a skipped file's not measured: $TMPDIR has no inode generations)"));
  if (getenv("FSREPLAY_RECORD_COST_DEBUG")) {
    for (int sh = 0; sh < kShapes; ++sh)
      for (int c = 0; c < kDefs[sh].calls; ++c)
        fprintf(stderr,
                "record-cost shape %d call %d (%s): untracked user gap %lu dur %lu; tracked user gap %lu dur %lu, "
                "recorded gap %lu dur %lu; round trip %lu\n",
                sh, c, syscall_name(static_cast<uint32_t>(kDefs[sh].nr[c])).c_str(), median(s.user_gap[sh][c]),
                median(s.user_dur[sh][c]), median(s.traced_gap[sh][c]), median(s.traced_dur[sh][c]),
                median(s.rec_gap[sh][c]), median(s.rec_dur[sh][c]), rt);
  }
  return run;
}

}  // namespace fsr

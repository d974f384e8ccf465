// SPDX-License-Identifier: Apache-2.0
// Life cycle of a recording: the workload's exit status, clear errors, a killed
// recorder leaving a readable trace, one SIGTERM stopping a recording and the
// trace file inside the root (--pid: record_attach_test.cpp).
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "recorder/core/bpf_options.h"
#include "tests/cli/cli_run.h"
#include "tests/recorder/record_helper.h"
#include "traces/syscalls.h"

namespace fsr::test {
namespace {

// The library gives the workload's status as a shell would (the command
// maps any failure to exit 7: AFailedWorkloadExits7AndItsStatusIsSaidAndKept).
TEST(RecordLifecycle, WorkloadExitStatusIsPassedThrough) {
  TempDir d;
  Recorded r = record_command({"/bin/sh", "-c", "exit 7"}, d.path());
  ASSERT_TRUE(r.reader);
  EXPECT_EQ(r.summary.exit_code, 7);
  ASSERT_TRUE(r.reader->footer().has_value());
  EXPECT_TRUE(WIFEXITED(r.reader->footer()->exit_status));
  EXPECT_EQ(WEXITSTATUS(r.reader->footer()->exit_status), 7);
}

TEST(RecordLifecycle, KilledWorkloadStatusIs128PlusSignal) {
  TempDir d;
  Recorded r = record_command({"/bin/sh", "-c", "kill -SEGV $$"}, d.path());
  ASSERT_TRUE(r.reader);
  EXPECT_EQ(r.summary.exit_code, 128 + SIGSEGV);
}

// The workload stops the recorder (its parent: this test process), makes far
// more calls than a 1 MiB lane holds, and lets it go on. The overflow must be
// counted per class, in the summary and in the trace, and the lane must carry
// records again once drained: the workload's last calls are in the trace.
TEST(RecordLifecycle, LaneOverflowIsCountedAndRecordingGoesOn) {
  TempDir d;
  Recorded r =
      record_command({"/bin/sh", "-c",
                      "kill -STOP $PPID; i=0; while [ $i -lt 40000 ]; do [ -e /fsr-overflow ]; i=$((i+1)); done; "
                      "kill -CONT $PPID; sleep 0.05; exec ls /fsr-after-overflow 2>/dev/null"},
                     d.path(), 1);
  ASSERT_TRUE(r.reader);
  EXPECT_GT(r.summary.drops, 0u);
  ASSERT_TRUE(r.reader->footer().has_value());
  const TraceFooter& f = *r.reader->footer();
  uint64_t footer_drops = 0;
  for (uint64_t x : f.drops) footer_drops += x;
  EXPECT_EQ(footer_drops, r.summary.drops);
  // Each class: what the kernel saw is what the trace has plus what was dropped.
  std::array<uint64_t, kClassCount> in_trace{};
  for (const Event& e : r.events)
    if (e.nr < kMaxSyscallNr) ++in_trace[static_cast<size_t>(class_of(e.nr))];
  const auto stat = static_cast<size_t>(SyscallClass::kStat);
  EXPECT_GT(f.drops[stat], 0u);
  EXPECT_EQ(in_trace[stat] + f.drops[stat], f.seen[stat]);
  // After the overflow: the exec'd ls looked for its argument.
  bool after = false;
  for (const Event& e : r.events)
    if (e.path[0] != kNoStr && r.str(e.path[0]) == "/fsr-after-overflow") after = true;
  EXPECT_TRUE(after) << "no record after the overflow reached the trace";
}

// The drain runs at idle priority. A workload that keeps every CPU busy
// starves it; the governor must raise it before a lane overflows. Each CPU
// runs a shell loop that makes one call per ~40 shell-only iterations
// (about 20,000 calls/s per CPU): more than the idle drain's share of a CPU
// takes, far less than a raised drain takes, on a fast or a slow machine
// alike (a loop of calls alone outran even the raised drain on a loaded CI
// machine: that is the drain's throughput, not the governor). Lanes of
// 2 MiB: a quarter is a few thousand records, reached in well under the
// loops' run.
TEST(RecordLifecycle, StarvedDrainIsRaisedBeforeALaneOverflows) {
  TempDir d;
  const long cpus = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  const long calls = 60000;
  std::string loops;
  for (long c = 0; c < cpus; ++c)
    loops += "(i=0; while [ $i -lt " + std::to_string(calls) +
             " ]; do [ -e /fsr-busy ]; j=0; while [ $j -lt 40 ]; do j=$((j+1)); done; i=$((i+1)); done) & ";
  Recorded r = record_command({"/bin/sh", "-c", loops + "wait"}, d.path(), 2);
  ASSERT_TRUE(r.reader);
  EXPECT_EQ(r.summary.drops, 0u);
  EXPECT_GT(r.summary.drain_boosts, 0u) << "every CPU was busy, yet the idle-priority drain kept up alone";
  size_t busy = 0;
  for (const Event& e : r.events)
    if (e.path[0] != kNoStr && r.str(e.path[0]) == "/fsr-busy") ++busy;
  EXPECT_EQ(busy, static_cast<size_t>(calls * cpus));
}

// A lane filled at a moderate rate, and drained, rewinds early
// (bpf/fsreplay_record.h): 1 MiB lanes rewind once a lap has taken 200 ms
// and the tail is 256 KiB into it (12,000 calls/s: ~0.3 s per 256 KiB on one
// CPU). Every call must still reach the trace, in order, and none be dropped.
TEST(RecordLifecycle, LanesRewoundEarlyLoseNothing) {
  TempDir d;
  const uint32_t calls = 36000;
  // Pinned to one CPU, so that one lane fills; a loaded machine can still
  // stretch the pace so that no lap reaches its early-rewind point: then it
  // is tried again, up to three times.
  Recorded r;
  for (int attempt = 0; attempt < 3; ++attempt) {
    r = record_command({"taskset", "-c", "0", FSR_PACED_PATH, std::to_string(calls), "12000"}, d.path(), 1);
    ASSERT_TRUE(r.reader);
    if (r.summary.kernel.early_rewinds > 0) break;
  }
  EXPECT_EQ(r.summary.exit_code, 0);
  EXPECT_EQ(r.summary.drops, 0u);
  EXPECT_GT(r.summary.kernel.early_rewinds, 0u)
      << "no lane rewound early in 3 runs: the case this test is for did not happen";
  std::vector<uint32_t> seq;
  for (const Event* e : r.with_nr(SYS_access)) {
    if (e->path[0] == kNoStr) continue;
    const std::string p = r.str(e->path[0]);
    if (p.rfind("/fsr-paced/", 0) == 0) seq.push_back(static_cast<uint32_t>(std::stoul(p.substr(11))));
  }
  ASSERT_EQ(seq.size(), calls);
  for (uint32_t i = 0; i < calls; ++i)
    if (seq[i] != i % 1000) FAIL() << "call " << i << " came as /fsr-paced/" << seq[i];
}

TEST(RecordLifecycle, CommandNotFoundIsOneClearLine) {
  TempDir d;
  RecordOptions o;
  o.output = d.path() + "/t.trace";
  o.root = d.path();
  o.command = {"fsr-no-such-command-xyz"};
  o.run_as_invoker = false;
  auto r = record(o);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.message().find("fsr-no-such-command-xyz: command not found"), std::string::npos) << r.message();
  EXPECT_EQ(r.message().find('\n'), std::string::npos);
}

TEST(RecordLifecycle, UnwritableOutputNamesTheFile) {
  TempDir d;
  RecordOptions o;
  o.output = d.path() + "/missing-dir/t.trace";
  o.root = d.path();
  o.command = {"/bin/true"};
  o.run_as_invoker = false;
  auto r = record(o);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.message().find(o.output), std::string::npos) << r.message();
}

TEST(RecordLifecycle, KilledRecorderLeavesReadableTrace) {
  TempDir d;
  std::string out = d.path() + "/killed.trace";
  pid_t p = fork();
  ASSERT_GE(p, 0);
  if (p == 0) {
    setpgid(0, 0);
    execl(FSR_FSREPLAY_PATH, "fsreplay", "record", "-o", out.c_str(), "--root", d.path().c_str(), "--", "/bin/sh", "-c",
          "for i in $(seq 40); do cat /etc/hostname > /dev/null; sleep 0.1; done", nullptr);
    _exit(127);
  }
  sleep(3);  // > 1 s: at least one flush has happened
  kill(-p, SIGKILL);
  int st = 0;
  waitpid(p, &st, 0);
  ASSERT_TRUE(WIFSIGNALED(st)) << "the recorder ended before it was killed";
  auto rd = TraceReader::open(out);
  ASSERT_TRUE(rd.is_ok()) << rd.message();
  std::vector<Event> chunk;
  size_t events = 0, cat_opens = 0;
  for (;;) {
    auto more = rd.value()->next(chunk);
    ASSERT_TRUE(more.is_ok()) << more.message();
    if (!more.value()) break;
    events += chunk.size();
    for (const Event& e : chunk)
      if (e.nr == SYS_openat && rd.value()->str(e.path[0]) == "/etc/hostname") ++cat_opens;
  }
  EXPECT_GT(events, 0u);
  EXPECT_GE(cat_opens, 5u) << "events of the first second were flushed";
  EXPECT_FALSE(rd.value()->footer().has_value());
  EXPECT_TRUE(rd.value()->problems().truncated);
}

// Waits for `p` up to `limit_s` (a bound against a hung test, not a timing
// assertion): its wait status, or -1 after killing its group.
int wait_bounded(pid_t p, int limit_s) {
  int st = 0;
  for (int i = 0; i < limit_s * 50; ++i) {
    if (waitpid(p, &st, WNOHANG) == p) return st;
    usleep(20'000);
  }
  kill(-p, SIGKILL);
  waitpid(p, &st, 0);
  return -1;
}

// Gone, or a zombie nobody reaped yet: not running.
bool running(pid_t p) {
  const std::string stat = slurp("/proc/" + std::to_string(p) + "/stat");
  if (stat.empty()) return false;
  const size_t paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] != 'Z';
}

// One SIGTERM (timeout(1), a service manager) stops a recording as Ctrl-C
// does: forwarded to the workload's processes (the shell and its
// background sleep), the trace finalised, exit 128+15.
TEST(RecordLifecycle, OneSigtermStopsTheWorkloadsTreeAndFinalisesTheTrace) {
  TempDir d;
  const std::string out = d.path() + "/term.trace", err = d.path() + "/err", pidfile = d.path() + "/sleep.pid";
  const pid_t p =
      start_fsreplay({"record", "-q", "-o", out, "--root", d.path(), "--", "/bin/sh", "-c",
                      "sleep 300 & echo $! > " + pidfile + ".tmp; mv " + pidfile + ".tmp " + pidfile + "; wait"},
                     "/dev/null", err, true);
  ASSERT_GT(p, 0);
  pid_t sleeper = 0;  // the workload runs: the recorder's handlers are in place
  for (int i = 0; i < 3000 && sleeper == 0; ++i) {
    sleeper = static_cast<pid_t>(std::atoi(slurp(pidfile).c_str()));
    if (sleeper == 0) usleep(20'000);
  }
  if (sleeper == 0) {
    kill(-p, SIGKILL);
    waitpid(p, nullptr, 0);
    FAIL() << "the workload never started: " << slurp(err);
  }
  kill(p, SIGTERM);  // to the recorder alone
  const int st = wait_bounded(p, 60);
  // A signalled process dies when next scheduled: allow it a few seconds.
  for (int i = 0; i < 500 && running(sleeper); ++i) usleep(20'000);
  const bool sleeper_ran_on = running(sleeper);
  if (sleeper_ran_on) kill(sleeper, SIGKILL);
  ASSERT_NE(st, -1) << "one SIGTERM did not stop the recording: " << slurp(err);
  ASSERT_TRUE(WIFEXITED(st)) << "the recorder died by signal " << WTERMSIG(st) << " instead of finalising the trace";
  EXPECT_EQ(WEXITSTATUS(st), 128 + SIGTERM) << slurp(err);
  EXPECT_FALSE(sleeper_ran_on) << "the workload's background sleep was not sent the SIGTERM";
  EXPECT_NE(slurp(err).find("fsreplay record: stopped by SIGTERM"), std::string::npos) << slurp(err);
  auto rd = TraceReader::open(out);
  ASSERT_TRUE(rd.is_ok()) << rd.message();
  std::vector<Event> chunk;
  while (true) {
    auto more = rd.value()->next(chunk);
    ASSERT_TRUE(more.is_ok()) << more.message();
    if (!more.value()) break;
  }
  EXPECT_TRUE(rd.value()->problems().complete());
  ASSERT_TRUE(rd.value()->footer().has_value()) << "the trace was not finalised";
  EXPECT_NE(rd.value()->footer()->notes.find("recording stopped by SIGTERM"), std::string::npos);
  EXPECT_EQ(sh(std::string(FSR_FSREPLAY_PATH) + " inspect " + out + " > /dev/null 2>&1"), 0);
}

// A workload's own 3 or 5 must not read as lost events or no privilege:
// any failure of the workload is 7, its status said and kept in the trace.
TEST(RecordLifecycle, AFailedWorkloadExits7AndItsStatusIsSaidAndKept) {
  TempDir d;
  const std::string out = d.path() + "/fail.trace", err = d.path() + "/err";
  const pid_t p = start_fsreplay({"record", "-q", "-o", out, "--root", d.path(), "--", "/bin/sh", "-c", "exit 5"},
                                 "/dev/null", err, true);
  ASSERT_GT(p, 0);
  const int st = wait_bounded(p, 120);
  ASSERT_NE(st, -1) << slurp(err);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 7) << slurp(err);
  EXPECT_NE(slurp(err).find("fsreplay record: the workload failed (exit 5)"), std::string::npos) << slurp(err);
  EXPECT_EQ(sh(std::string(FSR_FSREPLAY_PATH) + " inspect " + out + " > " + d.path() + "/inspect.txt"), 0);
  EXPECT_NE(slurp(d.path() + "/inspect.txt").find("exit status        exit 5\n"), std::string::npos)
      << slurp(d.path() + "/inspect.txt");
}

// The default (./fsreplay.trace with the current directory as root) writes
// the trace inside the root: it must not become part of its own prestate.
TEST(RecordLifecycle, TraceWrittenInsideTheRootIsLeftOutOfItsPrestate) {
  TempDir d;
  ASSERT_EQ(sh("echo hi > " + d.path() + "/kept"), 0);
  RecordOptions o;
  o.output = d.path() + "/inside.trace";
  o.root = d.path();
  o.command = {"/bin/true"};
  o.run_as_invoker = false;
  auto bpf = bpf_options_from_env();
  ASSERT_TRUE(bpf) << bpf.message();
  o.bpf = bpf.value();
  auto r = record(o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  auto rd = TraceReader::open(o.output);
  ASSERT_TRUE(rd.is_ok()) << rd.message();
  auto pre = rd.value()->prestate();
  ASSERT_TRUE(pre.is_ok()) << pre.message();
  bool kept = false;
  for (const PrestateEntry& e : pre.value()) {
    EXPECT_NE(e.path, o.output) << "the trace is in its own prestate";
    kept = kept || e.path == d.path() + "/kept";
  }
  EXPECT_TRUE(kept) << "the root's other files are in it";
  const auto& choices = rd.value()->header().recorder_choices;
  EXPECT_NE(std::find_if(choices.begin(), choices.end(),
                         [](const std::string& c) { return c.rfind("output=inside the root", 0) == 0; }),
            choices.end());
}

}  // namespace
}  // namespace fsr::test

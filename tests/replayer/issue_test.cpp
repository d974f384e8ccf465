// SPDX-License-Identifier: Apache-2.0
// How the executor issues single calls, replayed end to end through
// run_replay: the buffer a large call uses, and calls whose arguments the
// trace does not hold (replay_test.cpp covers the replay as a whole).
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "replayer/exec/executor.h"
#include "tests/replayer/replay_fixture.h"

namespace fsr {
namespace {

using test::kAtCwd;
using test::Synth;

class Issue : public test::ReplayDirs {};

// A call larger than a worker's own buffer (a linker's output written in one
// call) uses the buffer the workers share: eight processes at once, each
// writing 12 MiB in one call, replay with one such buffer, not eight (the
// git build's 13 workers held 11.6 MiB each: 334 MiB of peak RSS, 198 after).
// The calls are issued whole, as recorded.
TEST_F(Issue, WorkersShareOneBufferForCallsLargerThanTheirOwn) {
  constexpr int kProcs = 8;
  constexpr int64_t kBig = 12 << 20;
  static_assert(kBig > static_cast<int64_t>(kWorkerBufMax));
  Synth t;
  uint64_t ts = 1000;
  std::vector<uint32_t> writes;
  for (int p = 0; p < kProcs; ++p)  // all open before any writes: 8 threads alive at once, 8 workers
    t.add(10 + p, 10 + p, SYS_openat, ts += 1000, 5, 3, {kAtCwd, 0, O_WRONLY | O_CREAT},
          "/w/p/out" + std::to_string(p));
  for (int p = 0; p < kProcs; ++p)
    writes.push_back(t.add(10 + p, 10 + p, SYS_write, ts += 1000, 5, kBig, {3, 0, kBig}));
  for (int p = 0; p < kProcs; ++p) t.add(10 + p, 10 + p, SYS_close, ts += 1000, 2, 0, {3});
  for (int p = 0; p < kProcs; ++p) t.add(10 + p, 10 + p, kEvProcExit, ts += 1000, 0, 0, {0, 0});
  const std::string trace = write_trace(t, "/w/p", {entry("/w/p", PrestateKind::kDir)});
  const ReplayOptions o = options();
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // the replay in a process of its own, for its peak RSS alone
    close(fds[0]);
    auto kib = [](const char* key) {
      FILE* f = fopen("/proc/self/status", "r");
      char line[256];
      long v = -1;
      while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key))) v = atol(line + strlen(key));
      if (f) fclose(f);
      return v;
    };
    const long before = kib("VmRSS:");
    auto r = run_replay(trace, o);
    long out[3] = {r.is_ok() ? 1 : 0, before, kib("VmHWM:")};
    if (write(fds[1], out, sizeof out) != sizeof out) _exit(2);
    _exit(0);
  }
  close(fds[1]);
  long got[3] = {0, 0, 0};
  const ssize_t n = read(fds[0], got, sizeof got);
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_EQ(n, static_cast<ssize_t>(sizeof got));
  ASSERT_EQ(got[0], 1) << "the replay failed";
  const auto ops = read_result(o.output);
  ASSERT_EQ(ops.size(), t.ev.size());
  for (uint32_t w : writes) {
    EXPECT_EQ(ops[w].ret, kBig) << "event " << w;
    EXPECT_FALSE(ops[w].flags & (kOfDivergent | kOfSkipped)) << "event " << w;
  }
  const long grew_mib = (got[2] - got[1]) / 1024;
  EXPECT_LT(grew_mib, 3 * (kBig >> 20)) << "peak RSS grew " << grew_mib << " MiB: a buffer per worker holds "
                                        << kProcs * (kBig >> 20) << " MiB";
}

// Rust's std probes for statx with statx(0, NULL, 0, STATX_ALL, NULL) and
// expects EFAULT; the trace has no path for it. The replay makes the same
// call (it returned 0 on fd 0 before: a divergence in every Rust process).
TEST_F(Issue, AStatxProbeWithANullPathFaultsAsRecorded) {
  Synth t;
  const uint32_t probe = t.add(1, 1, SYS_statx, 1000, 5, -EFAULT, {0, 0, 0, 0xfff, 0});
  t.add(1, 1, SYS_statx, 2000, 5, 0, {static_cast<uint64_t>(kAtCwd), 0, 0, 0xfff, 0}, "/w/p/src");
  t.add(1, 1, kEvProcExit, 3000, 0, 0, {0, 0});
  const std::string trace =
      write_trace(t, "/w/p", {entry("/w/p", PrestateKind::kDir), entry("/w/p/src", PrestateKind::kDir)});
  auto r = run_replay(trace, options());
  ASSERT_TRUE(r.is_ok()) << r.message();
  const auto ops = read_result(r->result_path);
  ASSERT_EQ(ops.size(), t.ev.size());
  EXPECT_EQ(ops[probe].ret, -EFAULT);
  EXPECT_FALSE(ops[probe].flags & (kOfDivergent | kOfSkipped)) << ops[probe].flags;
  EXPECT_EQ(r->divergences, 0u);
}

}  // namespace
}  // namespace fsr

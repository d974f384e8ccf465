// SPDX-License-Identifier: Apache-2.0
// Smoke test of the drain benchmark (dev/bench/drain_bench.cpp): one round
// on a small trace written the way `fsreplay record` writes one (kernel
// records through EventDecoder into a TraceWriter), without a kernel. Checks
// that it runs and drains every event back to the same trace; never timing.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "recorder/core/event_decoder.h"
#include "tests/recorder/record_bytes.h"
#include "traces/trace_writer.h"

namespace fsr {
namespace {

using test::process_record;
using test::syscall_record;

// Three compiler-like children of process 100, each with a thread: fork,
// exec, opens, stats and reads relative to the cwd, exits.
std::vector<test::RawRecord> workload() {
  const fsr_inode file{0x803, 42, 8192, 0100644, 0};
  const uint64_t cwd = static_cast<uint64_t>(AT_FDCWD);
  std::vector<test::RawRecord> recs;
  for (uint32_t p = 0; p < 3; ++p) {
    const uint32_t child = 200 + p, thread = 300 + p;
    recs.push_back(process_record(FSR_REC_FORK, 100, 100, {child, child}));
    recs.push_back(process_record(FSR_REC_EXEC, child, child, {child}, "/usr/bin/cc", std::string("cc\0-c\0", 6)));
    recs.push_back(syscall_record(child, child, SYS_execve, {}, 0));
    recs.push_back(process_record(FSR_REC_FORK, child, child, {thread, child}, {}, {},
                                  FSR_RF_THREAD | FSR_RF_SHARED_FILES | FSR_RF_SHARED_FS));
    for (int i = 0; i < 30; ++i) {
      const std::string n = std::to_string(i);
      recs.push_back(
          syscall_record(child, child, SYS_openat, {cwd, 0, O_RDONLY, 0}, 5, "src/f" + n + ".c", {}, 0, file));
      recs.push_back(syscall_record(child, child, SYS_fstat, {5}, 0, {}, {}, 0, file));
      recs.push_back(syscall_record(child, thread, SYS_read, {5, 0, 8192}, 8192));
      recs.push_back(syscall_record(child, child, SYS_close, {5}, 0));
      recs.push_back(syscall_record(child, thread, SYS_newfstatat, {cwd, 0, 0, 0}, -2, "inc/h" + n + ".h"));
    }
    recs.push_back(syscall_record(child, thread, SYS_exit, {0}, 0, {}, {}, FSR_RF_UNFINISHED));
    recs.push_back(process_record(FSR_REC_EXIT, child, thread, {0, 0}));
    recs.push_back(syscall_record(child, child, SYS_exit_group, {0}, 0, {}, {}, FSR_RF_UNFINISHED));
    recs.push_back(process_record(FSR_REC_EXIT, child, child, {0, 1}));
    recs.push_back(syscall_record(100, 100, SYS_wait4, {child, 0, 0, 0}, child));
  }
  // 3 ms apart: the trace spans more than a second, so the bench makes many
  // drains and flushes once.
  for (size_t i = 0; i < recs.size(); ++i) {
    recs[i].hdr.ts += i * 3'000'000;
    recs[i].hdr.end += i * 3'000'000;
  }
  return recs;
}

TEST(DrainBench, DrainsEverySmallRecordingEventBackToTheSameTrace) {
  char dir[] = "/tmp/fsr-drain-bench-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string trace = std::string(dir) + "/small.trace";
  uint64_t events = 0;
  {
    TraceHeader h;
    h.recorder_version = "drain_bench_test";
    h.command = {"make"};
    h.root = "/work";
    h.mono_start_ns = 1'000'000;  // test::next_tick's first
    h.initial.pid = 100;
    h.initial.cwd = "/work";
    auto w = TraceWriter::create(trace, h);
    ASSERT_TRUE(w) << w.message();
    TraceWriter& writer = *w.value();
    EventDecoder dec(h.mono_start_ns, [&](std::string_view s) { return writer.add_string(s); });
    dec.seed_process(h.initial);
    for (const test::RawRecord& r : workload()) {
      std::vector<char> b = r.bytes();
      Event e;
      ASSERT_TRUE(dec.decode(b.data(), b.size(), e));
      ASSERT_TRUE(writer.append(e));
    }
    ASSERT_TRUE(writer.finish({}));
    events = writer.records_written();
  }

  FILE* p = popen((std::string(FSR_BENCH_DRAIN_PATH) + " --rounds 1 " + trace + " 2>&1").c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), p)) > 0;) out.append(buf, n);
  const int status = pclose(p);
  unlink(trace.c_str());
  rmdir(dir);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  const std::string n = std::to_string(events);
  EXPECT_NE(out.find("decoded " + n + " of " + n + ","), std::string::npos) << out;
  EXPECT_NE(out.find("same as the input: " + n + " of " + n + " events"), std::string::npos) << out;
  EXPECT_EQ(out.find("warning"), std::string::npos) << out;
}

}  // namespace
}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// SpeedHazards on synthetic events: git's racily clean entries (files
// written in the index's wall-clock second, read again after it) and xattr
// probes answered ENODATA, counted exactly; nothing below the thresholds.
#include "replayer/plan/speed_hazards.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#include <cerrno>
#include <string>

#include <gtest/gtest.h>

#include "tests/replayer/synthetic.h"

namespace fsr {
namespace {

using test::kAtCwd;
using test::Synth;

constexpr uint64_t kSec = 1'000'000'000ull;
// The trace starts 0.2 s into a wall-clock second.
constexpr uint64_t kWallStart = 1'700'000'000ull * kSec + 200'000'000ull;

SpeedHazards scan(const Synth& t) {
  SpeedHazards h(kWallStart, t.lookup());
  for (const Event& e : t.ev) h.add(e);
  return h;
}

// A clone: `n` files written at `write_at` (trace ns), the index renamed into
// place at `index_at`, then a status that opens every file for reading.
Synth clone_then_status(int n, uint64_t write_at, uint64_t index_at) {
  Synth t;
  uint64_t ts = write_at;
  for (int i = 0; i < n; ++i) {
    const std::string f = "/w/repo/src/f" + std::to_string(i) + ".c";
    t.add(1, 1, SYS_openat, ts, 1'000, 3, {kAtCwd, 0, O_WRONLY | O_CREAT | O_EXCL, 0644}, f);
    t.add(1, 1, SYS_write, ts + 2'000, 1'000, 100, {3, 0, 100}, f);  // (the recorder names an fd's path)
    t.add(1, 1, SYS_close, ts + 4'000, 1'000, 0, {3});
    ts += 10'000;
  }
  t.add(1, 1, SYS_openat, index_at - 20'000, 1'000, 3, {kAtCwd, 0, O_WRONLY | O_CREAT | O_EXCL, 0644},
        "/w/repo/.git/index.lock");
  t.add(1, 1, SYS_write, index_at - 10'000, 1'000, 4096, {3, 0, 4096}, "/w/repo/.git/index.lock");
  t.add(1, 1, SYS_rename, index_at, 1'000, 0, {}, "/w/repo/.git/index.lock", "/w/repo/.git/index");
  ts = index_at + 50'000'000;
  for (int i = 0; i < n; ++i) {
    const std::string f = "/w/repo/src/f" + std::to_string(i) + ".c";
    t.add(2, 2, SYS_newfstatat, ts, 1'000, 0, {kAtCwd, 0, 0, 0}, f);
    t.add(2, 2, SYS_openat, ts + 2'000, 1'000, 3, {kAtCwd, 0, O_RDONLY}, f);
    t.add(2, 2, SYS_close, ts + 4'000, 1'000, 0, {3});
    ts += 10'000;
  }
  return t;
}

TEST(SpeedHazards, FilesWrittenInTheIndexsSecondAreReadAgainAndCounted) {
  // Everything within 0.3 s of the start: one wall-clock second.
  const SpeedHazards h = scan(clone_then_status(40, 1'000'000, 200'000'000));
  EXPECT_EQ(h.index_writes(), 1u);
  EXPECT_EQ(h.racy_files(), 40u);  // the index itself is git's own: not counted
  EXPECT_EQ(h.racy_rereads(), 40u);
  ASSERT_EQ(h.warnings().size(), 1u);
  EXPECT_NE(h.warnings()[0].find("git: 40 reads of 40 files"), std::string::npos) << h.warnings()[0];
}

TEST(SpeedHazards, FilesWrittenInAnEarlierSecondAreNotRacy) {
  // Written 0.2 s into the trace (0.4 s into a second), the index 1 s later:
  // the next wall-clock second. Nothing is racy, nothing is said.
  const SpeedHazards h = scan(clone_then_status(40, 200'000'000, 200'000'000 + kSec));
  EXPECT_EQ(h.index_writes(), 1u);
  EXPECT_EQ(h.racy_files(), 0u);
  EXPECT_EQ(h.racy_rereads(), 0u);
  EXPECT_TRUE(h.warnings().empty());
}

TEST(SpeedHazards, AFileWrittenAgainAfterTheIndexIsNoLongerCounted) {
  Synth t;
  t.add(1, 1, SYS_openat, 1'000, 1'000, 3, {kAtCwd, 0, O_WRONLY | O_CREAT, 0644}, "/w/repo/a");
  t.add(1, 1, SYS_rename, 100'000, 1'000, 0, {}, "/w/repo/.git/index.lock", "/w/repo/.git/index");
  t.add(1, 1, SYS_openat, 200'000, 1'000, 3, {kAtCwd, 0, O_RDONLY}, "/w/repo/a");            // a re-read
  t.add(1, 1, SYS_openat, 300'000, 1'000, 3, {kAtCwd, 0, O_WRONLY | O_TRUNC}, "/w/repo/a");  // written again
  t.add(1, 1, SYS_openat, 400'000, 1'000, 3, {kAtCwd, 0, O_RDONLY}, "/w/repo/a");            // not a racy re-read
  t.add(1, 1, SYS_openat, 500'000, 1'000, 3, {kAtCwd, 0, O_RDONLY}, "/elsewhere/b");
  const SpeedHazards h = scan(t);
  EXPECT_EQ(h.racy_files(), 1u);
  EXPECT_EQ(h.racy_rereads(), 1u);
  EXPECT_TRUE(h.warnings().empty()) << "1 re-read is below the threshold";
}

TEST(SpeedHazards, XattrProbesAnsweredNoneAreCounted) {
  Synth t;
  for (int i = 0; i < 150; ++i)
    t.add(1, 1, SYS_lgetxattr, 1'000 + i * 1'000, 500, -ENODATA, {0, 0, 0, 0}, "/w/f" + std::to_string(i));
  t.add(1, 1, SYS_lgetxattr, 500'000, 500, -EOPNOTSUPP, {0, 0, 0, 0}, "/w/g");
  t.add(1, 1, SYS_getxattr, 600'000, 500, 12, {0, 0, 0, 0}, "/w/h");
  const SpeedHazards h = scan(t);
  EXPECT_EQ(h.xattr_probes(), 150u);
  ASSERT_EQ(h.warnings().size(), 1u);
  EXPECT_NE(h.warnings()[0].find("150 extended-attribute probes"), std::string::npos) << h.warnings()[0];
}

// A loop (the process's leader) hands jobs to `threads` pool threads; each
// job is a futex wait, then a stat and an open (as libuv's pool runs npm's
// file calls). `waits` false: the threads run their calls back to back,
// with no wait between (git's preload threads, one batch each).
Synth pool(int threads, int jobs_each, bool waits) {
  Synth t;
  uint64_t ts = 1'000;
  t.add(10, 10, SYS_epoll_wait, ts, 1'000, 1, {4, 0, 1024, static_cast<uint64_t>(-1)});
  for (int j = 0; j < jobs_each; ++j)
    for (int k = 0; k < threads; ++k) {
      const uint32_t tid = 11 + static_cast<uint32_t>(k);
      const std::string f = "/w/node_modules/p" + std::to_string(j) + "-" + std::to_string(k);
      if (waits) t.add(10, tid, SYS_futex, ts += 1'000, 5'000, 0, {0, FUTEX_WAIT_PRIVATE, 0});
      t.add(10, tid, SYS_newfstatat, ts += 1'000, 1'000, -ENOENT, {kAtCwd, 0, 0, 0}, f);
      t.add(10, tid, SYS_openat, ts += 1'000, 1'000, 3, {kAtCwd, 0, O_WRONLY | O_CREAT, 0644}, f);
    }
  return t;
}

TEST(SpeedHazards, AThreadPoolsJobsAreCounted) {
  const SpeedHazards h = scan(pool(4, 50, true));
  EXPECT_EQ(h.pools().processes, 1u);
  EXPECT_EQ(h.pools().threads, 4u);
  EXPECT_EQ(h.pools().jobs, 200u);  // the stat that follows each wait; the open is the same job
  ASSERT_EQ(h.warnings().size(), 1u);
  EXPECT_NE(h.warnings()[0].find("thread pool: 4 threads in 1 process ran 200 jobs"), std::string::npos)
      << h.warnings()[0];
}

TEST(SpeedHazards, NoPoolWithoutWaitsBetweenCallsOrWithOneThread) {
  EXPECT_EQ(scan(pool(4, 50, false)).pools().jobs, 0u);  // one batch per thread, no job handed out
  const SpeedHazards one = scan(pool(1, 200, true));     // a single worker: its order is the loop's
  EXPECT_EQ(one.pools().processes, 0u);
  EXPECT_TRUE(one.warnings().empty());
  const SpeedHazards few = scan(pool(4, 10, true));  // 40 jobs: below the threshold
  EXPECT_EQ(few.pools().processes, 0u);
  EXPECT_TRUE(few.warnings().empty());
}

}  // namespace
}  // namespace fsr

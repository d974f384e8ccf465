// SPDX-License-Identifier: Apache-2.0
// One test per resource-ordering rule (deps.cpp) and the overlap rule; the
// causal waits are in deps_causal_test.cpp. Each fails if its rule is removed.
#include "replayer/plan/deps.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/sched.h>
#include <sys/wait.h>
#include <gtest/gtest.h>

#include "tests/replayer/synthetic.h"

namespace fsr {
namespace {

using test::dep_kind;
using test::has_dep;
using test::kAtCwd;
using test::Synth;

using test::kThreadFlags;
using test::two_threads;

TEST(Deps, ProgramOrderNeedsNoEdgeButTheThreadRunsOnOneWorker) {
  Synth t;
  uint32_t a = t.add(1, 1, SYS_creat, 10, 5, 3, {0, 0644}, "/r/x");
  uint32_t b = t.add(1, 1, SYS_newfstatat, 20, 5, 0, {kAtCwd}, "/r/x");
  Plan p = t.plan();
  EXPECT_TRUE(p.deps_of(b).empty());
  ASSERT_EQ(p.worker_count, 1u);
  EXPECT_EQ(test::worker_lists(p)[0], (std::vector<uint32_t>{a, b}));
}

TEST(Deps, OpOnAPathFollowsTheLatestNamespaceOpOnIt) {
  Synth t = two_threads();
  uint32_t c = t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_CREAT | O_WRONLY, 0644}, "/r/x");
  uint32_t s = t.add(1, 2, SYS_newfstatat, 20, 5, 0, {kAtCwd}, "/r/x");
  Plan p = t.plan();
  EXPECT_TRUE(has_dep(p, s, c));
}

TEST(Deps, NamespaceOpFollowsEarlierReadersOfThePath) {
  Synth t = two_threads();
  t.add(1, 3, SYS_newfstatat, 5, 1, 0, {kAtCwd}, "/r/y");  // a third, unrelated thread
  uint32_t s = t.add(1, 2, SYS_newfstatat, 10, 5, 0, {kAtCwd}, "/r/x");
  uint32_t u = t.add(1, 1, SYS_unlink, 20, 5, 0, {}, "/r/x");
  Plan p = t.plan();
  EXPECT_TRUE(has_dep(p, u, s));
}

TEST(Deps, OnlyTheLatestConflictingOpOfAThreadIsKept) {
  Synth t = two_threads();
  uint32_t s1 = t.add(1, 2, SYS_newfstatat, 10, 5, 0, {kAtCwd}, "/r/x");
  uint32_t s2 = t.add(1, 2, SYS_newfstatat, 16, 5, 0, {kAtCwd}, "/r/x");
  uint32_t u = t.add(1, 1, SYS_unlink, 30, 5, 0, {}, "/r/x");
  Plan p = t.plan();
  EXPECT_TRUE(has_dep(p, u, s2));
  EXPECT_FALSE(has_dep(p, u, s1));
}

TEST(Deps, OpsOnOneOpenFileKeepTheirOrder) {
  Synth t = two_threads();
  uint32_t o = t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDWR}, "/r/f");
  uint32_t w = t.add(1, 2, SYS_write, 20, 5, 100, {3, 0, 100});
  uint32_t c = t.add(1, 1, SYS_close, 30, 5, 0, {3});
  Plan p = t.plan();
  EXPECT_TRUE(has_dep(p, w, o));
  EXPECT_TRUE(has_dep(p, c, w));
}

// A file's contents: the lock that ordered a read after another thread's
// write (an fcntl lock, emulated; a lock word in a shared mapping) is not
// replayed, so the contents order them. SQLite's WAL reader process read
// 4,096 bytes its writer process had written; unordered, it read 0.
TEST(Deps, AReadOfAFileFollowsAnotherThreadsWriteToItAndAWriteItsReads) {
  Synth t = two_threads();
  t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDWR}, "/r/wal");
  t.add(1, 2, SYS_openat, 12, 5, 4, {kAtCwd, 0, O_RDWR}, "/r/wal");
  t.add(1, 2, SYS_openat, 13, 1, 5, {kAtCwd, 0, O_RDONLY}, "/r/other");
  uint32_t w = t.add(1, 1, SYS_pwrite64, 20, 5, 4096, {3, 0, 4096, 0});
  uint32_t r = t.add(1, 2, SYS_pread64, 30, 5, 4096, {4, 0, 4096, 0});
  uint32_t o = t.add(1, 2, SYS_pread64, 36, 1, 10, {5, 0, 10, 0});
  uint32_t w2 = t.add(1, 1, SYS_pwrite64, 40, 5, 4096, {3, 0, 4096, 4096});
  uint32_t bad = t.add(1, 1, SYS_pwrite64, 50, 1, -EFBIG, {3, 0, 4096, 1 << 30});
  uint32_t r2 = t.add(1, 2, SYS_pread64, 60, 5, 4096, {4, 0, 4096, 4096});
  Plan p = t.plan();
  EXPECT_EQ(dep_kind(p, r, w), DepKind::kFileData);
  EXPECT_EQ(dep_kind(p, w2, r), DepKind::kFileData);
  EXPECT_FALSE(has_dep(p, o, w)) << "another file's read needs no order";
  EXPECT_TRUE(has_dep(p, r2, w2));
  EXPECT_FALSE(has_dep(p, r2, bad)) << "a failed write changed nothing: it orders as a read";
  EXPECT_EQ(p.file_data_edges, 3u);
}

// ROOT/ARTC: changes of different names in one directory need no order
// (on a slow mount such an order turns into waiting the original never did);
// --dir-order serial keeps the recorded order.
TEST(Deps, NamespaceOpsOnDifferentNamesInOneDirectoryAreOrderedOnlyWhenSerial) {
  Synth t = two_threads();
  uint32_t a = t.add(1, 1, SYS_mkdir, 10, 5, 0, {0, 0755}, "/r/d/a");
  uint32_t b = t.add(1, 2, SYS_unlink, 20, 5, -2, {}, "/r/d/b");
  uint32_t c = t.add(1, 2, SYS_openat, 30, 5, 3, {kAtCwd, 0, O_CREAT | O_WRONLY, 0644}, "/r/d/c");
  Plan p = t.plan();
  EXPECT_FALSE(has_dep(p, b, a));
  EXPECT_FALSE(has_dep(p, c, a));
  Plan serial = t.plan("/r", true, /*serial_dirs=*/true);
  EXPECT_EQ(dep_kind(serial, b, a), DepKind::kSerialDir);
}

TEST(Deps, OpsInADirectoryFollowItsCreationAndPrecedeItsRemoval) {
  Synth t;
  t.add(1, 1, SYS_clone, 0, 1, 2, {kThreadFlags});
  t.add(1, 1, SYS_clone, 1, 1, 3, {kThreadFlags});
  uint32_t mk = t.add(1, 1, SYS_mkdir, 10, 5, 0, {0, 0755}, "/r/d");
  uint32_t c = t.add(1, 2, SYS_openat, 20, 5, 3, {kAtCwd, 0, O_CREAT | O_WRONLY, 0644}, "/r/d/x");
  uint32_t s = t.add(1, 3, SYS_newfstatat, 25, 5, 0, {kAtCwd}, "/r/d/y");
  uint32_t u = t.add(1, 2, SYS_unlink, 30, 5, 0, {}, "/r/d/x");
  uint32_t rm = t.add(1, 1, SYS_rmdir, 40, 5, 0, {}, "/r/d");
  Plan p = t.plan();
  EXPECT_EQ(dep_kind(p, c, mk), DepKind::kParentPath);
  EXPECT_EQ(dep_kind(p, s, mk), DepKind::kParentPath);
  EXPECT_TRUE(has_dep(p, rm, u));
  EXPECT_TRUE(has_dep(p, rm, s));
  EXPECT_FALSE(has_dep(p, s, c)) << "a stat of another name waited for a create";
}

TEST(Deps, EveryEdgeSaysWhyItExists) {
  Synth t = two_threads();
  uint32_t o = t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDWR | O_CREAT, 0644}, "/r/f");
  uint32_t s = t.add(1, 2, SYS_newfstatat, 15, 5, 0, {kAtCwd}, "/r/f");
  uint32_t w = t.add(1, 2, SYS_write, 20, 5, 100, {3, 0, 100});
  Plan p = t.plan();
  ASSERT_EQ(p.dep_kinds.size(), p.deps.size());
  EXPECT_EQ(dep_kind(p, s, o), DepKind::kPath);
  EXPECT_EQ(dep_kind(p, w, o), DepKind::kOfd);
  EXPECT_EQ(dep_kind(p, o, 0), DepKind::kNone);  // program order is no edge
}

TEST(Deps, ReaddirAndNamespaceOpsInTheDirectoryKeepTheirOrder) {
  Synth t = two_threads();
  t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDONLY | O_DIRECTORY}, "/r/d");
  uint32_t g = t.add(1, 1, SYS_getdents64, 20, 5, 48, {3, 0, 32768});
  uint32_t c = t.add(1, 2, SYS_creat, 30, 5, 4, {0, 0644}, "/r/d/new");
  uint32_t g2 = t.add(1, 1, SYS_getdents64, 40, 5, 0, {3, 0, 32768});
  Plan p = t.plan();
  EXPECT_TRUE(has_dep(p, c, g));
  EXPECT_TRUE(has_dep(p, g2, c));
}

TEST(Deps, RenameOrdersBothPathsAndBothDirectories) {
  Synth t = two_threads();
  uint32_t w = t.add(1, 1, SYS_creat, 10, 5, 3, {0, 0644}, "/r/a/tmp");
  uint32_t r = t.add(1, 2, SYS_rename, 20, 5, 0, {}, "/r/a/tmp", "/r/b/final");
  uint32_t s = t.add(1, 1, SYS_newfstatat, 30, 5, 0, {kAtCwd}, "/r/b/final");
  Plan p = t.plan();
  EXPECT_TRUE(has_dep(p, r, w));
  EXPECT_TRUE(has_dep(p, s, r));
}

TEST(Deps, EveryEdgePointsBackwardsInKeyOrderSoReplayCannotDeadlock) {
  // A long write overlapping a short read of the same file in another thread:
  // the recorded order is ambiguous, and no edge may point forward.
  Synth t = two_threads();
  uint32_t a = t.add(1, 1, SYS_creat, 10, 5000, 3, {0, 0644}, "/r/x");
  uint32_t b = t.add(1, 2, SYS_newfstatat, 20, 5, 0, {kAtCwd}, "/r/x");
  Plan p = t.plan();
  EXPECT_TRUE(has_dep(p, b, a));  // enter order
  for (uint32_t i = 0; i < p.ops.size(); ++i)
    for (uint32_t d : p.deps_of(i)) EXPECT_LT(t.ev[d].ts, t.ev[i].ts + t.ev[i].dur);
}

// Runs the plan's workers on paper: each issues its ops in order once their
// dependencies are done. False if every unfinished worker waits (deadlock).
bool plan_completes(const Plan& p) {
  const auto workers = test::worker_lists(p);
  std::vector<bool> done(p.ops.size(), false);
  std::vector<size_t> next(workers.size(), 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t w = 0; w < workers.size(); ++w) {
      while (next[w] < workers[w].size()) {
        uint32_t op = workers[w][next[w]];
        bool ready = true;
        for (uint32_t d : p.deps_of(op)) ready = ready && done[d];
        if (!ready) break;
        done[op] = true;
        ++next[w];
        progress = true;
      }
    }
  }
  for (size_t w = 0; w < workers.size(); ++w)
    if (next[w] < workers[w].size()) return false;
  return true;
}

TEST(Deps, ACallOverlappingItsThreadsPreviousCallCannotDeadlockTheReplay) {
  // Hand-made: thread 1's creat enters (500) while its poll (20..1000) is still
  // blocked. By raw keys, thread 2's stat (600) follows the creat (500) and the
  // poll (key: its exit, 1000) falls back to that stat: poll -> stat -> creat,
  // and the creat comes after the poll on its worker.
  Synth t = two_threads();
  uint32_t poll = t.add(1, 1, SYS_poll, 20, 980, 1, {0, 2, 5000});
  uint32_t creat = t.add(1, 1, SYS_creat, 500, 5, 3, {0, 0644}, "/r/x");
  uint32_t stat = t.add(1, 2, SYS_newfstatat, 600, 5, 0, {kAtCwd}, "/r/x");
  Plan p = t.plan();
  EXPECT_TRUE(has_dep(p, poll, stat));
  EXPECT_FALSE(has_dep(p, stat, creat));  // the creat now sorts after the poll
  EXPECT_EQ(p.overlapping_ops, 1u);
  EXPECT_TRUE(plan_completes(p));
}

// Overlapping calls on one path: the results, not the enter times, say which
// went first. npm's mkdir -p: thread 2's mkdir(d/x) enters while thread 1's
// mkdir(d) is in the kernel and fails with ENOENT: it looked before d existed.
void expect_missing_parent_order(bool child_returns_first) {
  SCOPED_TRACE(child_returns_first ? "the child's mkdir returned first" : "the parent's mkdir returned first");
  Synth t = two_threads();
  uint32_t mk = 0, child = 0;
  if (child_returns_first) {  // events are stored in completion order
    child = t.add(1, 2, SYS_mkdir, 200, 10, -ENOENT, {0, 0755}, "/r/d/x");
    mk = t.add(1, 1, SYS_mkdir, 100, 1000, 0, {0, 0755}, "/r/d");
  } else {
    mk = t.add(1, 1, SYS_mkdir, 100, 150, 0, {0, 0755}, "/r/d");
    child = t.add(1, 2, SYS_mkdir, 200, 100, -ENOENT, {0, 0755}, "/r/d/x");
  }
  Plan p = t.plan();
  EXPECT_TRUE(has_dep(p, mk, child));
  EXPECT_FALSE(has_dep(p, child, mk));
  EXPECT_EQ(p.dropped_edges, 0u);
  EXPECT_TRUE(plan_completes(p));
}

TEST(Deps, AnOverlappingCallThatFoundTheNameMissingPrecedesItsCreation) {
  expect_missing_parent_order(true);
  expect_missing_parent_order(false);
}

TEST(Deps, AnOverlappingCallThatFoundTheNamePresentPrecedesItsRemoval) {
  Synth t = two_threads();
  uint32_t s = t.add(1, 2, SYS_newfstatat, 200, 10, 0, {kAtCwd}, "/r/x");
  uint32_t u = t.add(1, 1, SYS_unlink, 100, 1000, 0, {}, "/r/x");
  Plan p = t.plan();
  EXPECT_TRUE(has_dep(p, u, s));
  EXPECT_TRUE(plan_completes(p));
}

TEST(Deps, AnOverlappingCallThatFoundTheNameTakenFollowsItsCreation) {
  // The EEXIST mkdir entered first and returned first, yet saw the other's directory.
  Synth t = two_threads();
  uint32_t lost = t.add(1, 2, SYS_mkdir, 100, 500, -EEXIST, {0, 0755}, "/r/d");
  uint32_t won = t.add(1, 1, SYS_mkdir, 150, 1000, 0, {0, 0755}, "/r/d");
  Plan p = t.plan();
  EXPECT_TRUE(has_dep(p, lost, won));
  EXPECT_FALSE(has_dep(p, won, lost));
  EXPECT_TRUE(plan_completes(p));
}

TEST(Deps, OverlappingCallsWhoseResultsDoNotTellKeepTheirEnterOrder) {
  // Two O_CREAT opens: each leaves the file there, neither says what it found.
  Synth t = two_threads();
  uint32_t a = t.add(1, 1, SYS_openat, 100, 50, 3, {kAtCwd, 0, O_CREAT | O_WRONLY, 0644}, "/r/x");
  uint32_t b = t.add(1, 2, SYS_openat, 120, 100, 3, {kAtCwd, 0, O_CREAT | O_WRONLY, 0644}, "/r/x");
  Plan p = t.plan();
  EXPECT_TRUE(has_dep(p, b, a));
  EXPECT_FALSE(has_dep(p, a, b));
}

TEST(Deps, AnEdgeIntoACallThatEnteredFirstButReturnedLastIsKeptNotDropped) {
  // Two writes on one open file: the one that returned first is ordered first,
  // though it entered inside the other's call.
  Synth t = two_threads();
  t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDWR}, "/r/f");
  uint32_t inner = t.add(1, 2, SYS_write, 200, 10, 100, {3, 0, 100});
  uint32_t outer = t.add(1, 1, SYS_write, 100, 1000, 100, {3, 0, 100});
  Plan p = t.plan();
  EXPECT_TRUE(has_dep(p, outer, inner));
  EXPECT_EQ(p.dropped_edges, 0u);
  EXPECT_TRUE(plan_completes(p));
}

// npm's mkdir -p: x's mkdir fails (no d yet), then two threads mkdir d at
// once, and the one that loses (EEXIST, thread 2) returns first. The failing
// mkdir(d/x) runs on thread `child_tid`.
void expect_the_maker_follows_the_missing_child(uint32_t child_tid) {
  SCOPED_TRACE("mkdir(d/x) on thread " + std::to_string(child_tid));
  Synth t;
  t.add(1, 1, SYS_clone, 0, 1, 2, {kThreadFlags});
  t.add(1, 1, SYS_clone, 1, 1, 3, {kThreadFlags});
  uint32_t child = t.add(1, child_tid, SYS_mkdir, 50, 10, -ENOENT, {0, 0755}, "/r/d/x");
  uint32_t lost = t.add(1, 2, SYS_mkdir, 300, 500, -EEXIST, {0, 0755}, "/r/d");
  uint32_t won = t.add(1, 1, SYS_mkdir, 100, 2000, 0, {0, 0755}, "/r/d");
  Plan p = t.plan();
  EXPECT_TRUE(has_dep(p, won, child)) << "the mkdir that made d may run before x's mkdir found it missing";
  EXPECT_TRUE(has_dep(p, lost, won));
  EXPECT_TRUE(plan_completes(p));
}

// A failed namespace call changed nothing: it must not take, as a writer
// would, the readers the maker has to follow.
TEST(Deps, AFailedNamespaceCallDoesNotTakeTheReadersTheMakerMustFollow) {
  expect_the_maker_follows_the_missing_child(3);
}

// The EEXIST mkdir follows the maker; its own thread's earlier mkdir(d/x)
// must still precede the maker.
TEST(Deps, AnOpMovedAfterTheMakerKeepsItsThreadsEarlierOpBeforeIt) { expect_the_maker_follows_the_missing_child(2); }

}  // namespace
}  // namespace fsr

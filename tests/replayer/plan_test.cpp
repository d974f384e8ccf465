// SPDX-License-Identifier: Apache-2.0
// Plan construction: fd tables, cwd, mapping and actions on synthetic events.
#include "replayer/plan/plan.h"

#include <fcntl.h>

#include <algorithm>
#include <linux/sched.h>
#include <gtest/gtest.h>

#include "tests/replayer/synthetic.h"

namespace fsr {
namespace {

using test::kAtCwd;
using test::Synth;

TEST(Plan, OpenReadCloseUsesOneOfdAndIssuesTheRealClose) {
  Synth t;
  uint32_t o = t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDONLY}, "/r/a");
  uint32_t r = t.add(1, 1, SYS_read, 20, 5, 100, {3, 0, 4096});
  uint32_t c = t.add(1, 1, SYS_close, 30, 5, 0, {3});
  Plan p = t.plan();
  EXPECT_EQ(p.ops[o].action, OpAction::kIssue);
  ASSERT_NE(p.ops[o].new_ofd, kNoOfd);
  EXPECT_EQ(p.ops[r].ofd, p.ops[o].new_ofd);
  EXPECT_EQ(p.ops[r].action, OpAction::kIssue);
  EXPECT_EQ(p.ops[c].action, OpAction::kIssue);
  EXPECT_EQ(p.paths[p.ops[o].path[0]].mapped, (MappedPath{Root::kTarget, "a"}));
}

TEST(Plan, UnknownFdIsSkipped) {
  Synth t;
  uint32_t r = t.add(1, 1, SYS_read, 20, 5, 100, {7, 0, 4096});
  Plan p = t.plan();
  EXPECT_EQ(p.ops[r].action, OpAction::kSkip);
}

TEST(Plan, CloseOfADupIsEmulatedUntilTheLastReference) {
  Synth t;
  t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDONLY}, "/r/a");
  uint32_t d = t.add(1, 1, SYS_fcntl, 15, 1, 9, {3, F_DUPFD_CLOEXEC, 0});
  uint32_t c1 = t.add(1, 1, SYS_close, 20, 1, 0, {3});
  uint32_t r = t.add(1, 1, SYS_read, 25, 1, 10, {9, 0, 10});
  uint32_t c2 = t.add(1, 1, SYS_close, 30, 1, 0, {9});
  Plan p = t.plan();
  EXPECT_EQ(p.ops[d].action, OpAction::kEmulate);
  EXPECT_EQ(p.ops[c1].action, OpAction::kEmulate);
  EXPECT_EQ(p.ops[r].action, OpAction::kIssue);
  EXPECT_EQ(p.ops[c2].action, OpAction::kIssue);
}

TEST(Plan, ForkCopiesTheTableAndExecClosesCloexecFds) {
  Synth t;
  uint32_t o1 = t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDONLY | O_CLOEXEC}, "/r/a");
  t.add(1, 1, SYS_openat, 12, 5, 4, {kAtCwd, 0, O_RDONLY}, "/r/b");
  t.add(1, 1, SYS_clone, 20, 5, 2, {SIGCHLD});
  uint32_t cc = t.add(2, 2, SYS_close, 30, 1, 0, {4});  // child's copy: not the last reference
  t.add(2, 2, SYS_execve, 40, 5, 0, {}, "/usr/bin/cc");
  uint32_t ex = t.add(2, 2, kEvProcExec, 41, 0, 0, {}, "/usr/bin/cc");
  uint32_t r = t.add(2, 2, SYS_read, 50, 1, 10, {3, 0, 10});  // closed on exec
  uint32_t pr = t.add(1, 1, SYS_read, 60, 1, 10, {3, 0, 10});
  Plan p = t.plan();
  EXPECT_EQ(p.ops[cc].action, OpAction::kEmulate);
  EXPECT_EQ(p.ops[ex].close_end - p.ops[ex].close_begin, 0u);  // exec dropped a copy only
  EXPECT_EQ(p.ops[r].action, OpAction::kSkip);
  EXPECT_EQ(p.ops[pr].ofd, p.ops[o1].new_ofd);
  EXPECT_EQ(p.threads.size(), 2u);
}

TEST(Plan, ThreadsWithClonefilesShareTheTable) {
  Synth t;
  t.add(1, 1, SYS_clone, 5, 5, 2, {CLONE_THREAD | CLONE_FILES | CLONE_VM | CLONE_SIGHAND});
  uint32_t o = t.add(1, 2, SYS_openat, 20, 5, 3, {kAtCwd, 0, O_RDONLY}, "/r/a");
  uint32_t r = t.add(1, 1, SYS_read, 30, 1, 10, {3, 0, 10});
  Plan p = t.plan();
  EXPECT_EQ(p.ops[r].ofd, p.ops[o].new_ofd);
}

TEST(Plan, ForkedChildDoesNotSeeLaterParentFds) {
  Synth t;
  t.add(1, 1, SYS_clone, 5, 5, 2, {SIGCHLD});
  t.add(1, 1, SYS_openat, 20, 5, 3, {kAtCwd, 0, O_RDONLY}, "/r/a");
  uint32_t r = t.add(2, 2, SYS_read, 30, 1, 10, {3, 0, 10});
  Plan p = t.plan();
  EXPECT_EQ(p.ops[r].action, OpAction::kSkip);
}

TEST(Plan, ProcForkEventCopiesOrSharesAsTheRecorderSaw) {
  Synth t;
  t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDONLY}, "/r/a");
  uint32_t f = t.add(1, 1, kEvProcFork, 20, 0, 0, {2, 2, 0});  // a process: table copied
  t.ev[f].flags = 0;
  uint32_t g = t.add(1, 1, kEvProcFork, 21, 0, 0, {3, 1, 1});  // a thread sharing files
  t.ev[g].flags = kEfThreadClone | kEfSharedFiles;
  t.add(1, 1, SYS_openat, 30, 5, 4, {kAtCwd, 0, O_RDONLY}, "/r/b");
  uint32_t child = t.add(2, 2, SYS_read, 40, 1, 1, {4, 0, 1});   // not in the copy
  uint32_t thread = t.add(1, 3, SYS_read, 41, 1, 1, {4, 0, 1});  // shared
  uint32_t first = t.add(2, 2, SYS_read, 42, 1, 1, {3, 0, 1});   // inherited
  Plan p = t.plan();
  EXPECT_EQ(p.ops[child].action, OpAction::kSkip);
  EXPECT_EQ(p.ops[thread].action, OpAction::kIssue);
  EXPECT_EQ(p.ops[first].action, OpAction::kIssue);
}

TEST(Plan, LastExitOfASharedTableClosesItsFiles) {
  Synth t;
  uint32_t o = t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDONLY}, "/r/a");
  uint32_t x = t.add(1, 1, kEvProcExit, 20, 0, 0);
  Plan p = t.plan();
  ASSERT_EQ(p.ops[x].close_end - p.ops[x].close_begin, 1u);
  EXPECT_EQ(p.closes[p.ops[x].close_begin], p.ops[o].new_ofd);
}

TEST(Plan, RelativePathsFollowChdirAndDirfd) {
  Synth t;
  t.add(1, 1, SYS_chdir, 5, 1, 0, {}, "/r/sub");
  uint32_t a = t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDONLY}, "x.c");
  uint32_t d = t.add(1, 1, SYS_openat, 12, 5, 4, {kAtCwd, 0, O_RDONLY | O_DIRECTORY}, "/usr/include");
  uint32_t b = t.add(1, 1, SYS_newfstatat, 14, 5, 0, {4, 0, 0, 0}, "stdio.h");
  Plan p = t.plan();
  EXPECT_EQ(p.paths[p.ops[a].path[0]].mapped, (MappedPath{Root::kTarget, "sub/x.c"}));
  EXPECT_EQ(p.ops[d].action, OpAction::kIssue);
  EXPECT_EQ(p.paths[p.ops[b].path[0]].mapped, (MappedPath{Root::kScratch, "usr/include/stdio.h"}));
}

// Walks as passed (request fidelity): a path the recorder marks relative
// walks from its dirfd's or cwd's directory, an absolute one from the root,
// and a trace without the marks (or a replay that asks so) from the root.
TEST(Plan, ARelativePathWalksFromItsCwdOrDirfd) {
  Synth t;
  auto rel = [&](uint32_t i) {
    t.ev[i].flags |= kEfRelative0;
    return i;
  };
  uint32_t top = rel(t.add(1, 1, SYS_newfstatat, 2, 1, 0, {kAtCwd, 0, 0, 0}, "/r/top.c"));  // cwd: the root
  uint32_t cd = t.add(1, 1, SYS_chdir, 5, 1, 0, {}, "/r/sub");
  uint32_t a = rel(t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDONLY}, "/r/sub/deep/x.c"));
  uint32_t abs = t.add(1, 1, SYS_newfstatat, 11, 1, 0, {kAtCwd, 0, 0, 0}, "/r/sub/deep/x.c");
  uint32_t d = rel(t.add(1, 1, SYS_openat, 12, 5, 4, {kAtCwd, 0, O_RDONLY | O_DIRECTORY}, "/r/sub/deep"));
  uint32_t b = rel(t.add(1, 1, SYS_newfstatat, 14, 5, 0, {4, 0, 0, 0}, "/r/sub/deep/y.h"));
  uint32_t up = rel(t.add(1, 1, SYS_newfstatat, 16, 5, 0, {kAtCwd, 0, 0, 0}, "/r/other/z"));  // "../other/z"
  uint32_t fork = t.add(1, 1, kEvProcFork, 18, 0, 0, {2, 2, 0});
  uint32_t child = rel(t.add(2, 2, SYS_access, 20, 1, 0, {0, 0}, "/r/sub/c"));
  // A thread sharing the fd table walks from the same directory fd.
  t.ev[t.add(1, 1, kEvProcFork, 22, 0, 0, {3, 1, 1})].flags |= kEfSharedFiles;
  uint32_t th = rel(t.add(1, 3, SYS_newfstatat, 24, 5, 0, {4, 0, 0, 0}, "/r/sub/deep/w.h"));
  Plan p = t.plan("/r", true, false, true);
  ASSERT_NE(p.ops[cd].new_ofd, kNoOfd);
  const uint32_t cwd = p.ops[cd].new_ofd;
  EXPECT_TRUE(p.ofds[cwd].cwd);
  EXPECT_EQ(p.paths[p.ofds[cwd].path].mapped, (MappedPath{Root::kTarget, "sub"}));
  EXPECT_EQ(p.ops[top].walk[0], kWalkFromRoot);
  EXPECT_EQ(p.ops[a].walk[0], cwd);
  EXPECT_EQ(p.ops[abs].walk[0], kNoOfd);
  EXPECT_EQ(p.ops[d].walk[0], cwd);
  EXPECT_EQ(p.ops[b].walk[0], p.ops[d].new_ofd);  // its dirfd's directory
  EXPECT_EQ(p.ops[up].walk[0], kNoOfd);           // not beneath the cwd: from the root
  EXPECT_EQ(p.ops[child].walk[0], cwd) << "a forked child keeps its parent's cwd (op " << fork << ")";
  // Another thread's walk from a directory fd is ordered after that fd's
  // last use (so after its open, and before its close).
  EXPECT_EQ(p.ops[th].walk[0], p.ops[d].new_ofd);
  const std::vector<uint32_t> deps = p.deps_of(th);
  EXPECT_NE(std::find(deps.begin(), deps.end(), b), deps.end());
  // Without the trace's marks or with --walks from-root: every walk from the root.
  Plan old = t.plan("/r", true, false, false);
  for (uint32_t i : {top, a, abs, d, b, up, child, th}) EXPECT_EQ(old.ops[i].walk[0], kNoOfd) << i;
  EXPECT_EQ(old.ops[cd].new_ofd, kNoOfd);
}

// The first process's cwd, beneath the root: an OFD opened before the clock,
// a directory of the initial tree.
TEST(Plan, TheInitialCwdIsOpenedBeforeTheClock) {
  Synth t;
  uint32_t a = t.add(1, 1, SYS_newfstatat, 2, 1, 0, {kAtCwd, 0, 0, 0}, "/r/src/a.c");
  t.ev[a].flags |= kEfRelative0;
  Plan p = t.plan("/r", true, false, true, "/r/src");
  ASSERT_NE(p.ops[a].walk[0], kNoOfd);
  ASSERT_NE(p.ops[a].walk[0], kWalkFromRoot);
  const uint32_t cwd = p.ops[a].walk[0];
  EXPECT_TRUE(p.ofds[cwd].cwd);
  EXPECT_NE(std::find(p.initial_ofds.begin(), p.initial_ofds.end(), cwd), p.initial_ofds.end());
}

TEST(Plan, ThinkGapIsEnterMinusPreviousExitOfTheSameThread) {
  Synth t;
  t.add(1, 1, SYS_newfstatat, 1000, 100, 0, {kAtCwd}, "/r/a");
  t.add(1, 2, SYS_newfstatat, 1050, 10, 0, {kAtCwd}, "/r/b");  // another thread in between
  uint32_t b = t.add(1, 1, SYS_newfstatat, 1600, 100, 0, {kAtCwd}, "/r/c");
  Plan p = t.plan();
  EXPECT_EQ(p.ops[b].gap, 500u);
}

TEST(Plan, ThreadsWithDisjointLifetimesShareAWorker) {
  Synth t;
  t.add(1, 1, SYS_newfstatat, 0, 10, 0, {kAtCwd}, "/r/a");
  t.add(2, 2, SYS_newfstatat, 5, 10, 0, {kAtCwd}, "/r/b");  // overlaps thread 1
  t.add(1, 1, SYS_newfstatat, 20, 10, 0, {kAtCwd}, "/r/a");
  t.add(3, 3, SYS_newfstatat, 100, 10, 0, {kAtCwd}, "/r/c");  // after both ended
  Plan p = t.plan();
  EXPECT_EQ(p.worker_count, 2u);
  EXPECT_LT(p.threads[p.ops[3].thread].worker, 2u) << "thread 3 starts after both ended: it reuses a worker";
}

TEST(Plan, PageFaultTouchesItsMapping) {
  Synth t;
  t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDONLY}, "/r/lib.so");
  uint32_t m = t.add(1, 1, SYS_mmap, 20, 5, 0x7000000, {0, 65536, 1, 2, 3, 0});
  uint32_t f = t.add(1, 1, kEvPageFault, 30, 0, 0, {8192, 0x7002000}, "/r/lib.so");
  uint32_t u = t.add(1, 1, SYS_munmap, 40, 5, 0, {0x7000000, 65536});
  Plan p = t.plan();
  EXPECT_EQ(p.ops[m].action, OpAction::kIssue);
  EXPECT_EQ(p.ops[f].ref_op, m);
  EXPECT_EQ(p.ops[f].ref_off, 0x2000u);
  EXPECT_EQ(p.ops[u].ref_op, m);
  Plan skip = t.plan("/r", false);
  EXPECT_EQ(skip.ops[f].action, OpAction::kSkip);
}

// A clone or exec is replayed as think time: the part of the recorded call
// that no earlier op of its thread covers. A vfork child's execve is entered
// before, and ends just after, the exec event the kernel reports from inside
// it; that event's gap already holds the exec (counting it again made each
// `sh` child of the small-files steps ~0.35 ms slow).
TEST(Plan, CloneAndExecReplayOnlyTheirUncoveredTime) {
  Synth t;
  uint32_t vf = t.add(1, 1, SYS_vfork, 0, 88'000, 2, {});
  uint32_t pe = t.add(2, 2, kEvProcExec, 379'000, 600, 0, {}, "/usr/bin/stat");
  uint32_t ve = t.add(2, 2, SYS_execve, 20'000, 361'000, 0, {}, "/usr/bin/stat");  // ends at 381 us
  t.add(2, 2, SYS_newfstatat, 1'035'000, 5'000, 0, {kAtCwd, 0, 0, 0}, "/r/a");
  uint32_t cl = t.add(1, 1, SYS_clone, 2'000'000, 300'000, 3, {SIGCHLD});
  t.add(3, 3, SYS_openat, 2'400'000, 5'000, 3, {kAtCwd, 0, O_RDONLY}, "/r/a");
  uint32_t ce = t.add(3, 3, SYS_execve, 2'500'000, 400'000, 0, {}, "/usr/bin/cc");
  Plan p = t.plan();
  EXPECT_EQ(p.ops[ve].own_ns, 1'400u) << "the exec event's gap already holds the exec up to 379.6 us";
  EXPECT_EQ(p.ops[pe].own_ns, 0u);
  EXPECT_EQ(p.ops[vf].own_ns, 0u) << "a vfork parent waits for its child: a dependency, not work";
  EXPECT_EQ(p.ops[cl].own_ns, 300'000u);
  EXPECT_EQ(p.ops[ce].own_ns, 400'000u);
}

TEST(Plan, SymlinkTargetIsRewrittenToStayInside) {
  Synth t;
  uint32_t s = t.add(1, 1, SYS_symlinkat, 10, 5, 0, {0, kAtCwd, 0}, "/etc/passwd", "/r/l");
  Plan p = t.plan();
  EXPECT_EQ(p.paths[p.ops[s].path[0]].abs, "/S/etc/passwd");
  EXPECT_EQ(p.paths[p.ops[s].path[1]].mapped, (MappedPath{Root::kTarget, "l"}));
}

}  // namespace
}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// One test per causal-wait rule (deps_causal.cpp): thread starts, wait4 and
// held exits, pipe reads, futex wakes and lock waits, the fallbacks. Each
// fails if its rule is removed.
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
using test::kThreadFlags;
using test::Synth;
using test::two_threads;

TEST(Deps, ThreadStartsAfterTheCloneThatCreatedIt) {
  Synth t;
  uint32_t c = t.add(1, 1, SYS_clone, 10, 50, 2, {SIGCHLD});
  uint32_t f = t.add(2, 2, SYS_newfstatat, 20, 5, 0, {kAtCwd}, "/r/x");
  Plan p = t.plan();
  EXPECT_TRUE(has_dep(p, f, c));
}

TEST(Deps, Wait4WaitsForTheChildsExit) {
  Synth t;
  t.add(1, 1, SYS_clone, 10, 5, 2, {SIGCHLD});
  uint32_t w = t.add(1, 1, SYS_wait4, 20, 1000, 2, {static_cast<uint64_t>(-1), 0, 0, 0});
  t.add(2, 2, SYS_newfstatat, 30, 5, 0, {kAtCwd}, "/r/x");
  uint32_t x = t.add(2, 2, kEvProcExit, 900, 0, 0);
  Plan p = t.plan();
  EXPECT_TRUE(has_dep(p, w, x));
  EXPECT_EQ(dep_kind(p, w, x), DepKind::kCausal);
  EXPECT_TRUE(p.ops[w].flags & kPfCausal);
  EXPECT_EQ(p.approx_deps, 0u);
}

// The parent's wait returned 4 ms after the child's exit event (the child's
// address space torn down in between), another's 30 us after (a wake-up):
// the first exit is held for the difference, the second not at all.
TEST(Deps, AnExitIsHeldForTheTeardownItsParentWaitedFor) {
  Synth t;
  t.add(1, 1, SYS_clone, 10, 5, 2, {SIGCHLD});
  t.add(1, 1, SYS_clone, 20, 5, 3, {SIGCHLD});
  uint32_t w2 = t.add(1, 1, SYS_wait4, 30, 5'000'000 - 30, 2, {static_cast<uint64_t>(-1), 0, 0, 0});
  uint32_t x2 = t.add(2, 2, kEvProcExit, 1'000'000, 0, 0);
  uint32_t w3 = t.add(1, 1, SYS_wait4, 5'000'100, 1'030'000 - 100, 3, {static_cast<uint64_t>(-1), 0, 0, 0});
  uint32_t x3 = t.add(3, 3, kEvProcExit, 6'000'000, 0, 0);
  Plan p = t.plan();
  ASSERT_TRUE(has_dep(p, w2, x2));
  ASSERT_TRUE(has_dep(p, w3, x3));
  EXPECT_EQ(p.ops[x2].own_ns, 4'000'000u - 30'000u);
  EXPECT_EQ(p.ops[x3].own_ns, 0u);
}

// The parent's wait waits for the process, not for a thread of it that
// exited earlier (a joined worker): only the process's last exit is held.
TEST(Deps, AThreadThatExitsBeforeItsProcessIsNotHeld) {
  Synth t;
  t.add(1, 1, SYS_clone, 10, 5, 2, {SIGCHLD});
  t.add(2, 2, SYS_clone, 20, 5, 3, {kThreadFlags});
  uint32_t thread_exit = t.add(2, 3, kEvProcExit, 1'000'000, 0, 0);
  uint32_t last_exit = t.add(2, 2, kEvProcExit, 3'000'000, 0, 0);
  t.add(1, 1, SYS_wait4, 30, 4'000'000 - 30, 2, {static_cast<uint64_t>(-1), 0, 0, 0});
  Plan p = t.plan();
  EXPECT_EQ(p.ops[thread_exit].own_ns, 0u) << "a joined thread's exit would hold its joiner for the whole process";
  EXPECT_GT(p.ops[last_exit].own_ns, 0u);
}

TEST(Deps, PipeReadWaitsForTheWriteThatFedIt) {
  Synth t;
  t.add(1, 1, SYS_pipe2, 5, 1, 0, {3 | (4ull << 32), O_CLOEXEC});
  t.add(1, 1, SYS_clone, 10, 5, 2, {SIGCHLD});
  uint32_t r = t.add(1, 1, SYS_read, 20, 1000, 10, {3, 0, 4096});
  uint32_t w1 = t.add(2, 2, SYS_write, 400, 5, 4, {4, 0, 4});
  uint32_t w2 = t.add(2, 2, SYS_write, 600, 5, 6, {4, 0, 6});
  Plan p = t.plan();
  EXPECT_EQ(p.ops[r].action, OpAction::kEmulate);
  EXPECT_TRUE(has_dep(p, r, w2));  // bytes 4..9 came from the second write
  EXPECT_FALSE(has_dep(p, r, w1));
  EXPECT_EQ(p.approx_deps, 0u);
}

TEST(Deps, FutexWaitWaitsForTheMatchingWake) {
  Synth t = two_threads();
  uint32_t w = t.add(1, 1, SYS_futex, 20, 1000, 0, {0xabc0, FUTEX_WAIT_PRIVATE, 0});
  t.add(1, 2, SYS_futex, 300, 5, 1, {0xdef0, FUTEX_WAKE_PRIVATE, 1});  // another address
  uint32_t k = t.add(1, 2, SYS_futex, 500, 5, 1, {0xabc0, FUTEX_WAKE_PRIVATE, 1});
  t.add(1, 2, SYS_newfstatat, 700, 5, 0, {kAtCwd}, "/r/x");
  Plan p = t.plan();
  EXPECT_TRUE(has_dep(p, w, k));
  EXPECT_EQ(p.approx_deps, 0u);
}

// A contended lock (a wait expecting 2) whose holder's latest call had ended
// when the wait began: the holder took the lock after that call, so the wait
// is no order after it (replayed on a slower mount, the edge made libuv's
// loop wait out a pool thread's slower call that held no lock).
TEST(Deps, ALockWaitAfterTheHoldersCallIsNoEdge) {
  Synth t = two_threads();
  uint32_t call = t.add(1, 2, SYS_newfstatat, 100, 100, 0, {kAtCwd}, "/r/x");
  uint32_t wake = t.add(1, 2, SYS_futex, 300, 5, 1, {0xabc0, FUTEX_WAKE_PRIVATE, 1});
  uint32_t wait = t.add(1, 1, SYS_futex, 250, 60, 0, {0xabc0, FUTEX_WAIT_PRIVATE, 2});
  Plan p = t.plan();
  EXPECT_FALSE(has_dep(p, wait, wake));
  EXPECT_FALSE(has_dep(p, wait, call));
  EXPECT_EQ(p.ops[wait].own_ns, 0u);
  EXPECT_EQ(p.lock_waits, 1u);
  EXPECT_EQ(p.approx_deps, 0u);
}

// The wait began while the holder was in its call: the lock was held across
// it, and the waiter waits for the call as the original did.
TEST(Deps, ALockHeldAcrossTheHoldersCallKeepsItsEdge) {
  Synth t = two_threads();
  t.add(1, 2, SYS_newfstatat, 100, 100, 0, {kAtCwd}, "/r/x");
  uint32_t wake = t.add(1, 2, SYS_futex, 220, 5, 1, {0xabc0, FUTEX_WAKE_PRIVATE, 1});
  uint32_t wait = t.add(1, 1, SYS_futex, 150, 80, 0, {0xabc0, FUTEX_WAIT_PRIVATE, 2});
  Plan p = t.plan();
  EXPECT_TRUE(has_dep(p, wait, wake));
  EXPECT_EQ(p.ops[wait].own_ns, 0u);
  EXPECT_EQ(p.lock_waits, 0u);
}

// A futex also waited on expecting other values is a sequence or an event
// (a condition variable's), whose wake a waiter needs: a 2 there is chance.
TEST(Deps, AFutexWaitedOnForOtherValuesIsNoLock) {
  Synth t = two_threads();
  t.add(1, 2, SYS_futex, 40, 5, 1, {0xabc0, FUTEX_WAKE_PRIVATE, 1});
  t.add(1, 1, SYS_futex, 10, 40, 0, {0xabc0, FUTEX_WAIT_BITSET_PRIVATE, 1});
  t.add(1, 2, SYS_newfstatat, 100, 100, 0, {kAtCwd}, "/r/x");
  uint32_t wake = t.add(1, 2, SYS_futex, 300, 5, 1, {0xabc0, FUTEX_WAKE_PRIVATE, 1});
  uint32_t wait = t.add(1, 1, SYS_futex, 250, 60, 0, {0xabc0, FUTEX_WAIT_BITSET_PRIVATE, 2});
  Plan p = t.plan();
  EXPECT_TRUE(has_dep(p, wait, wake));
  EXPECT_EQ(p.lock_waits, 0u);
}

TEST(Deps, UnnamedWakerFallsBackToTheLatestOtherEventAndIsCounted) {
  Synth t = two_threads();
  uint32_t poll = t.add(1, 1, SYS_poll, 20, 1000, 1, {0, 2, 5000});
  t.add(1, 2, SYS_newfstatat, 300, 5, 0, {kAtCwd}, "/r/x");
  uint32_t last = t.add(1, 2, SYS_newfstatat, 600, 5, 0, {kAtCwd}, "/r/y");
  t.add(1, 2, SYS_newfstatat, 1500, 5, 0, {kAtCwd}, "/r/z");  // after the poll returned
  Plan p = t.plan();
  EXPECT_TRUE(has_dep(p, poll, last));
  EXPECT_TRUE(p.ops[poll].flags & kPfApproxDep);
  EXPECT_EQ(p.approx_deps, 1u);
}

TEST(Deps, TimedOutWaitGetsNoDependency) {
  Synth t = two_threads();
  uint32_t poll = t.add(1, 1, SYS_poll, 20, 1000, 0, {0, 2, 1});
  t.add(1, 2, SYS_newfstatat, 300, 5, 0, {kAtCwd}, "/r/x");
  Plan p = t.plan();
  EXPECT_TRUE(p.deps_of(poll).empty());
}

}  // namespace
}  // namespace fsr

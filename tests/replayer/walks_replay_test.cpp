// SPDX-License-Identifier: Apache-2.0
// Walks as passed, replayed (exec_context.h walk_open): a path walked from
// its cwd that meets a link to elsewhere beneath the root (EXDEV from the
// base), and an absolute path walked from the mount's root that meets a link
// (ELOOP), are both walked again from the root and get the recorded result;
// so do their parents (unlink). Without that retry each call diverges.
#include <fcntl.h>
#include <sys/stat.h>
#include <gtest/gtest.h>

#include "replayer/session/replay.h"
#include "tests/replayer/replay_fixture.h"

namespace fsr {
namespace {

using test::kAtCwd;
using test::ReplayDirs;
using test::Synth;

class WalksReplay : public ReplayDirs {
 protected:
  void SetUp() override {
    ReplayDirs::SetUp();
    trace_choices = {kRecorderChoiceWalks};
  }
  // /w/p/sub/ln -> ../real: each walk through ln leaves the directory it
  // started from, or meets a link on the way from the mount's root.
  std::vector<PrestateEntry> tree() const {
    return {entry("/w/p", PrestateKind::kDir),
            entry("/w/p/real", PrestateKind::kDir),
            entry("/w/p/real/f", PrestateKind::kFile, 10),
            entry("/w/p/real/g", PrestateKind::kFile, 10),
            entry("/w/p/real/h", PrestateKind::kFile, 10),
            entry("/w/p/sub", PrestateKind::kDir),
            entry("/w/p/sub/ln", PrestateKind::kSymlink, 0, "../real")};
  }
  // A stat through ln, an unlink through it (its parent ln walked), and the
  // stat that then finds nothing: each as recorded, no divergence.
  void replays_as_recorded(const Synth& t, uint32_t st, uint32_t un, uint32_t gone) {
    auto r = run_replay(write_trace(t, "/w/p", tree()), options());
    ASSERT_TRUE(r.is_ok()) << r.message();
    const auto ops = read_result(r->result_path);
    ASSERT_GT(ops.size(), gone);
    EXPECT_EQ(ops[st].ret, 0);
    EXPECT_EQ(ops[un].ret, 0) << "the parent ln, walked again from the root";
    EXPECT_EQ(ops[gone].ret, -ENOENT);
    EXPECT_EQ(r->divergences, 0u);
  }
};

TEST_F(WalksReplay, AWalkFromTheCwdThroughALinkOutOfItIsMadeAgainFromTheRoot) {
  Synth t;
  t.add(1, 1, SYS_chdir, 5, 1, 0, {}, "/w/p/sub");
  const uint32_t st = t.add(1, 1, SYS_newfstatat, 10, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/sub/ln/f");  // "ln/f"
  const uint32_t un = t.add(1, 1, SYS_unlinkat, 20, 5, 0, {kAtCwd, 0, 0}, "/w/p/sub/ln/g");       // "ln/g"
  const uint32_t gone = t.add(1, 1, SYS_newfstatat, 30, 5, -ENOENT, {kAtCwd, 0, 0, 0}, "/w/p/sub/ln/g");
  for (uint32_t i : {st, un, gone}) t.ev[i].flags |= kEfRelative0;
  replays_as_recorded(t, st, un, gone);
}

TEST_F(WalksReplay, AnAbsoluteWalkThatMeetsALinkIsMadeAgainFromTheRoot) {
  Synth t;
  const uint32_t st = t.add(1, 1, SYS_newfstatat, 10, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/sub/ln/f");
  const uint32_t un = t.add(1, 1, SYS_unlinkat, 20, 5, 0, {kAtCwd, 0, 0}, "/w/p/sub/ln/h");
  const uint32_t gone = t.add(1, 1, SYS_newfstatat, 30, 5, -ENOENT, {kAtCwd, 0, 0, 0}, "/w/p/sub/ln/h");
  replays_as_recorded(t, st, un, gone);
}

}  // namespace
}  // namespace fsr

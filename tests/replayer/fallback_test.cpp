// SPDX-License-Identifier: Apache-2.0
// One test per feature fallback: the feature is forced off, the replay still
// gets the recorded result, flags the op and lists the fallback.
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <gtest/gtest.h>

#include "replayer/exec/features.h"
#include "replayer/session/replay.h"
#include "tests/replayer/replay_fixture.h"

namespace fsr {
namespace {

using test::kAtCwd;
using test::ReplayDirs;
using test::Synth;

struct Case {
  const char* feature;
  std::function<uint32_t(Synth&)> trace;  // returns the op that must fall back
};

class Fallback : public ReplayDirs, public ::testing::WithParamInterface<Case> {};

std::vector<PrestateEntry> pre() {
  return {ReplayDirs::entry("/w/p", PrestateKind::kDir), ReplayDirs::entry("/w/p/f", PrestateKind::kFile, 8192),
          ReplayDirs::entry("/w/p/g", PrestateKind::kFile, 10)};
}

TEST_P(Fallback, ReplaysWithTheFallbackAndSaysSo) {
  Synth t;
  uint32_t op = GetParam().trace(t);
  std::string trace = write_trace(t, "/w/p", pre());
  ReplayOptions with = options();
  auto base_run = run_replay(trace, with);
  ASSERT_TRUE(base_run.is_ok()) << base_run.message();
  ReplayOptions o = options();
  o.disable_features = {GetParam().feature};
  auto r = run_replay(trace, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->divergences, base_run->divergences);
  EXPECT_EQ(r->divergences, 0u);
  auto f = feature_from_name(GetParam().feature);
  ASSERT_TRUE(f.is_ok());
  ASSERT_EQ(r->fallbacks.size(), 1u);
  EXPECT_EQ(r->fallbacks[0], fallback_description(f.value()));
  auto ops = read_result(r->result_path);
  if (std::string(GetParam().feature) != "openat2") {
    EXPECT_TRUE(ops[op].flags & kOfFallback);
  }
  auto rd = TraceReader::open(r->result_path);
  ASSERT_TRUE(rd.is_ok());
  EXPECT_EQ(rd.value()->header().fallbacks, r->fallbacks);
}

uint32_t open_f(Synth& t, int flags = O_RDWR) {
  return t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, static_cast<uint64_t>(flags)}, "/w/p/f");
}

INSTANTIATE_TEST_SUITE_P(
    Features, Fallback,
    ::testing::Values(
        Case{"statx",
             [](Synth& t) {
               return t.add(1, 1, SYS_statx, 10, 5, 0, {kAtCwd, 0, 0, 0x7ff}, "/w/p/f");
             }},
        Case{"openat2", [](Synth& t) { return open_f(t); }},
        Case{
            "renameat2-flags",
            [](Synth& t) {
              return t.add(1, 1, SYS_renameat2, 10, 5, 0, {kAtCwd, 0, kAtCwd, 0, RENAME_NOREPLACE}, "/w/p/f", "/w/p/h");
            }},
        Case{"copy_file_range",
             [](Synth& t) {
               open_f(t, O_RDONLY);
               t.add(1, 1, SYS_openat, 20, 5, 4, {kAtCwd, 0, O_WRONLY | O_TRUNC}, "/w/p/g");
               return t.add(1, 1, SYS_copy_file_range, 30, 5, 8192, {3, 0, 4, 0, 8192, 0});
             }},
        Case{"sync_file_range",
             [](Synth& t) {
               open_f(t);
               return t.add(1, 1, SYS_sync_file_range, 20, 5, 0, {3, 0, 8192, 2});
             }},
        Case{"o_tmpfile",
             [](Synth& t) {
               return t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_TMPFILE | O_RDWR, 0600}, "/w/p");
             }},
        Case{"fallocate",
             [](Synth& t) {
               open_f(t);
               return t.add(1, 1, SYS_fallocate, 20, 5, 0, {3, 0, 0, 1 << 20});
             }}),
    [](const auto& i) {
      std::string n = i.param.feature;
      for (char& c : n)
        if (c == '-') c = '_';
      return n;
    });

// getxattrat (Linux 6.13), used when walks are as passed: forced off, the
// probe walks through /proc and gets the same answers, and the result says so.
TEST_F(ReplayDirs, XattrProbesFallBackFromGetxattratAndSaySo) {
  {
    int fd = open(target.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const Features f = Features::probe(fd, {});
    close(fd);
    if (!f.has(Feature::kXattrAt))
      GTEST_SKIP() << "this kernel has no getxattrat (Linux < 6.13): nothing to fall back from";
  }
  trace_choices = {kRecorderChoiceWalks};
  Synth t;
  const uint32_t a = t.add(1, 1, SYS_lgetxattr, 10, 5, -ENODATA, {0, 0, 0, 0}, "/w/p/f");
  const uint32_t b = t.add(1, 1, SYS_llistxattr, 20, 5, 0, {0, 0, 0}, "/w/p/g");
  const std::string trace = write_trace(t, "/w/p", pre());
  auto with = run_replay(trace, options());
  ASSERT_TRUE(with.is_ok()) << with.message();
  EXPECT_EQ(with->divergences, 0u);
  EXPECT_TRUE(with->fallbacks.empty());
  ReplayOptions o = options();
  o.disable_features = {"xattrat"};
  auto r = run_replay(trace, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->divergences, 0u);
  ASSERT_EQ(r->fallbacks.size(), 1u);
  EXPECT_EQ(r->fallbacks[0], fallback_description(Feature::kXattrAt));
  auto ops = read_result(r->result_path);
  EXPECT_TRUE(ops[a].flags & kOfFallback);
  EXPECT_TRUE(ops[b].flags & kOfFallback);
}

TEST(Features, ProbesFindWhatThisKernelHasAndHonourForcedOff) {
  char tpl[] = "/tmp/fsreplay-probe-XXXXXX";
  ASSERT_NE(mkdtemp(tpl), nullptr);
  int fd = open(tpl, O_RDONLY | O_DIRECTORY);
  Features f = Features::probe(fd, {});
  EXPECT_TRUE(f.has(Feature::kStatx));  // Linux >= 4.11; the CI kernel has them all
  EXPECT_TRUE(f.has(Feature::kOpenat2));
  Features g = Features::probe(fd, {Feature::kStatx});
  EXPECT_FALSE(g.has(Feature::kStatx));
  close(fd);
  EXPECT_EQ(rmdir(tpl), 0) << "probe files were left behind";
}

}  // namespace
}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// OpCost's view of the mount's cache: an entry's lifetime runs from the
// mount's last answer (a cached hit does not renew it), and a write through
// an open file makes the next lookup of that file ask the mount again --
// priced from the profile's stat-written case where it has one, at the
// mount's idle gap. Also: a read of a few bytes is not priced as EOF.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/syscall.h>

#include "tests/predict/predict_testdata.h"
#include "tests/predict/stream_run.h"
#include "predict/predict.h"
#include "predict/latency_model.h"
#include "traces/syscalls.h"

namespace fsr {
namespace {

using testdata::fixed_profile;
using testdata::TempDir;
using testdata::TraceFixture;
using testdata::write_then_stat;

constexpr uint64_t kWarmNs = 10'000;  // fixed_profile: a cold stat costs twice a warm one

TraceFixture one_process() {
  TraceFixture t;
  t.header.root = "/w";
  t.header.initial.pid = 1;
  t.header.initial.cwd = "/w";
  return t;
}

// Latency of every op of `t` on a profile whose metadata cache lasts `life_ns`.
std::vector<uint64_t> latencies(const TraceFixture& t, uint64_t life_ns) {
  Profile p = fixed_profile("ttl", kWarmNs);
  p.cache_lifetime_ns = life_ns;
  LatencyModel model(p);
  std::vector<uint64_t> out;
  for (const OpRecord& r : testdata::simulate_fixture(t, &model, testdata::stream_options(7)).ops)
    out.push_back(r.latency);
  return out;
}

bool cold(uint64_t ns) { return ns > kWarmNs * 3 / 2; }

TEST(OpCostCache, CachedHitsDoNotRenewTheEntry) {
  // A stat every 300 ms of a file the prestate holds; the cache lasts 1 s.
  TraceFixture t = one_process();
  for (int k = 0; k <= 10; ++k)
    t.add(1, 1, SYS_newfstatat, 1'000 + k * 300'000'000ull, 2'000, 0, {kAtFdcwdArg, 0, 0, 0}, "/w/d/e/a");
  const std::vector<uint64_t> lat = latencies(t, 1'000'000'000ull);
  // Warm until 1 s after prepare (0, 0.3, 0.6, 0.9 s); the stat at 1.2 s asks
  // the mount, which renews the entry until 2.2 s; the one at 2.4 s asks again.
  for (int k = 0; k <= 10; ++k) EXPECT_EQ(cold(lat[k]), k == 4 || k == 8) << "stat " << k << ": " << lat[k] << " ns";
  // With no expiry every stat is a hit.
  for (uint64_t ns : latencies(t, kNoExpiry)) EXPECT_FALSE(cold(ns)) << ns;
}

TEST(OpCostCache, AWriteMakesTheNextLookupAskTheMount) {
  TraceFixture t = one_process();
  t.add(1, 1, SYS_openat, 1'000, 2'000, 3, {kAtFdcwdArg, 0, O_WRONLY}, "/w/d/e/b");
  t.add(1, 1, SYS_write, 10'000, 2'000, 4096, {3, 0, 4096});
  t.add(1, 1, SYS_close, 20'000, 2'000, 0, {3});
  const uint32_t written = t.add(1, 1, SYS_newfstatat, 30'000, 2'000, 0, {kAtFdcwdArg, 0, 0, 0}, "/w/d/e/b");
  const uint32_t again = t.add(1, 1, SYS_newfstatat, 40'000, 2'000, 0, {kAtFdcwdArg, 0, 0, 0}, "/w/d/e/b");
  const uint32_t other = t.add(1, 1, SYS_newfstatat, 50'000, 2'000, 0, {kAtFdcwdArg, 0, 0, 0}, "/w/d/e/c");
  const std::vector<uint64_t> lat = latencies(t, 1'000'000'000ull);
  EXPECT_TRUE(cold(lat[written])) << lat[written];
  EXPECT_FALSE(cold(lat[again])) << lat[again];  // that answer is cached again
  EXPECT_FALSE(cold(lat[other])) << lat[other];
  // A mount whose cache never expires (ext4) keeps the written file's attributes.
  EXPECT_FALSE(cold(latencies(t, kNoExpiry)[written]));
}

uint64_t last_stat_latency(const TraceFixture& t, const Profile& p) {
  LatencyModel model(p);
  const auto ops = testdata::simulate_fixture(t, &model, testdata::stream_options(7)).ops;
  for (size_t i = ops.size(); i-- > 0;)
    if (t.ev[i].nr == SYS_statx) return ops[i].latency;
  return 0;
}

TEST(OpCostWritten, AStatOfAWrittenFileIsPricedFromItsCaseAtTheMountsIdleGap) {
  constexpr uint64_t kWrittenNs = 300'000;
  const Profile p = fixed_profile("w", kWarmNs, {{ProbeKind::kStatWritten, kWrittenNs}});
  // Back to back (2 us after the close): the idle-0 case; after 5 ms of idle:
  // the longest idle probed (2 ms, twice the cost), not extrapolated beyond.
  const uint64_t busy = last_stat_latency(write_then_stat(0, 1), p);
  const uint64_t idle = last_stat_latency(write_then_stat(5'000'000, 1), p);
  EXPECT_NEAR(double(busy), double(kWrittenNs), kWrittenNs * 0.12);
  EXPECT_NEAR(double(idle), 2.0 * kWrittenNs, 2.0 * kWrittenNs * 0.12);
  // The same on a mount whose cache never expires (sshfs): the write, not the lifetime, decides.
  Profile forever = p;
  forever.cache_lifetime_ns = kNoExpiry;
  EXPECT_NEAR(double(last_stat_latency(write_then_stat(0, 1), forever)), double(kWrittenNs), kWrittenNs * 0.12);
}

TEST(OpCostWritten, AnFstatAfterAWriteAsksTheMountOnce) {
  constexpr uint64_t kWrittenNs = 300'000;
  const Profile p = fixed_profile("w", kWarmNs, {{ProbeKind::kStatWritten, kWrittenNs}});
  TraceFixture t = one_process();
  t.add(1, 1, SYS_openat, 1'000, 2'000, 3, {kAtFdcwdArg, 0, O_WRONLY | O_CREAT}, "/w/d/e/g");
  t.add(1, 1, SYS_write, 10'000, 2'000, 4096, {3, 0, 4096});
  const uint32_t first = t.add(1, 1, SYS_fstat, 20'000, 2'000, 0, {3});
  const uint32_t again = t.add(1, 1, SYS_fstat, 30'000, 2'000, 0, {3});
  LatencyModel model(p);
  const auto ops = testdata::simulate_fixture(t, &model, testdata::stream_options(7)).ops;
  EXPECT_NEAR(double(ops[first].latency), double(kWrittenNs), kWrittenNs * 0.12);
  EXPECT_LT(ops[again].latency, kWarmNs * 3 / 2);  // answered: cached again
}

// On a mount that caches no attributes (9p, an uncached FUSE mount) a stat
// of a written file costs what any warm stat costs there, a whole walk, and
// an fstat one request: git's fstat of each file it checks out (before the
// close) is priced as the fstat, not as the stat-written case's walk (it
// was, until 2026-12-07: 2.1 ms each where the replay paid 0.52 on slowfs).
TEST(OpCostWritten, AnFstatOfAWrittenFileWalksNoPath) {
  constexpr uint64_t kStatNs = 40'000, kFstatNs = 10'000;
  const Profile p =
      fixed_profile("uncached", kWarmNs,
                    {{ProbeKind::kStat, kStatNs}, {ProbeKind::kStatWritten, kStatNs}, {ProbeKind::kFstat, kFstatNs}});
  TraceFixture t = one_process();
  t.add(1, 1, SYS_openat, 1'000, 2'000, 3, {kAtFdcwdArg, 0, O_WRONLY | O_CREAT}, "/w/d/e/g");
  t.add(1, 1, SYS_write, 10'000, 2'000, 4096, {3, 0, 4096});
  const uint32_t fst = t.add(1, 1, SYS_fstat, 20'000, 2'000, 0, {3});
  LatencyModel model(p);
  const auto ops = testdata::simulate_fixture(t, &model, testdata::stream_options(7)).ops;
  EXPECT_NEAR(double(ops[fst].latency), double(kFstatNs), kFstatNs * 0.12) << "a whole walk is " << kStatNs;
}

TEST(OpCostWritten, AnOldProfileWithoutTheCaseNamesIt) {
  TempDir dir;
  ASSERT_TRUE(write_then_stat(0, 3).write(dir.file("t.trace")));
  Profile old = fixed_profile("v1", 5'000);
  old.version = 1;
  ASSERT_TRUE(write_profile(dir.file("v1.profile"), old));
  PredictOptions o;
  o.profiles = {dir.file("v1.profile")};
  auto pr = run_predict(dir.file("t.trace"), o);
  ASSERT_TRUE(pr) << pr.message();
  std::string line;
  for (const std::string& a : pr->columns.back().assumptions)
    if (a.find("stat-written") != std::string::npos) line = a;
  EXPECT_NE(line.find("no 'stat-written' case"), std::string::npos)
      << ::testing::PrintToString(pr->columns.back().assumptions);
  EXPECT_NE(line.find("3 stats of files written"), std::string::npos) << line;
}

// A read that returns bytes is a request to the mount; the 0-byte read that
// finds the end is not, and never prices it.
TEST(LatencyModelBytes, AReadOfAFewBytesIsPricedAsTheSmallestNonEmptyRead) {
  Profile p = fixed_profile("r", kWarmNs);
  std::vector<uint64_t> eof(200, 100), small(200, 50'000);
  for (ProfileCase& c : p.cases)
    if (c.kind == ProbeKind::kRead && c.param == 0)
      c = make_case(ProbeKind::kRead, Temp::kWarm, 0, eof);
    else if (c.kind == ProbeKind::kRead && c.param == 128)
      c = make_case(ProbeKind::kRead, Temp::kWarm, 128, small);
  const LatencyModel m(p);
  EXPECT_EQ(m.sample(ProbeKind::kRead, Temp::kWarm, 0, 64), 100u);
  EXPECT_EQ(m.sample(ProbeKind::kRead, Temp::kWarm, 3, 64), 50'000u);
  EXPECT_EQ(m.sample(ProbeKind::kRead, Temp::kWarm, 128, 64), 50'000u);
}

// A read continues a sequential run (priced from read-seq: the first read's
// readahead serves it) until a write through the same open file or a seek
// ends the run: a linker that seeks back into its output, reads a page and
// patches it pays each read as a first read (on a FUSE mount that
// revalidates its pages, a READ request each; until 2026-12-07 they were
// priced as sequential, half of what the replay paid on slowfs).
TEST(OpCostRead, ASeekOrAWriteEndsASequentialRun) {
  constexpr uint64_t kFirstNs = 400'000, kSeqNs = 200'000;
  const Profile p = fixed_profile("r", kWarmNs, {{ProbeKind::kRead, kFirstNs}, {ProbeKind::kReadSeq, kSeqNs}});
  TraceFixture t = one_process();
  t.add(1, 1, SYS_openat, 1'000, 2'000, 3, {kAtFdcwdArg, 0, O_RDWR}, "/w/d/e/a");
  std::vector<std::pair<uint32_t, bool>> reads;  // op, priced as a first read
  auto read = [&](uint64_t at, bool first) {
    reads.emplace_back(t.add(1, 1, SYS_read, at, 2'000, 4096, {3, 0, 4096}), first);
  };
  read(10'000, true);
  read(20'000, false);
  t.add(1, 1, SYS_lseek, 30'000, 1'000, 8192, {3, 0, SEEK_CUR});  // where am I: no move
  read(40'000, false);
  t.add(1, 1, SYS_lseek, 50'000, 1'000, 0, {3, 0, SEEK_SET});
  read(60'000, true);
  read(70'000, false);
  t.add(1, 1, SYS_write, 80'000, 2'000, 76, {3, 0, 76});
  read(90'000, true);
  LatencyModel model(p);
  const auto ops = testdata::simulate_fixture(t, &model, testdata::stream_options(7)).ops;
  for (const auto& [i, first] : reads) {
    const double want = double(first ? kFirstNs : kSeqNs) * (1.0 + 4096.0 / 65536);  // the fixed profile's size slope
    EXPECT_NEAR(double(ops[i].latency), want, want * 0.12) << "read at op " << i;
  }
}

// Walks as passed (issue 41 item 5): a stat passed relative to a deep cwd
// walks the components below the cwd, and is priced at that depth, not at
// its depth below the root; a trace without the marks as before.
TEST(OpCostWalk, ARelativeStatIsPricedAtTheDepthItWalks) {
  auto stat_ns = [](bool walks) {
    TraceFixture t = one_process();
    if (walks) t.header.recorder_choices.push_back(kRecorderChoiceWalks);
    t.add(1, 1, SYS_chdir, 1'000, 2'000, 0, {}, "/w/d/e/f/g");
    for (int k = 0; k < 20; ++k) {
      const uint32_t i = t.add(1, 1, SYS_newfstatat, 10'000 + k * 10'000, 2'000, 0, {kAtFdcwdArg, 0, 0, 0},
                               "/w/d/e/f/g/h/x" + std::to_string(k));
      t.ev[i].flags |= kEfRelative0;  // passed as "h/xK"
    }
    LatencyModel model(fixed_profile("depth", kWarmNs));
    const auto ops = testdata::simulate_fixture(t, &model, testdata::stream_options(7)).ops;
    uint64_t sum = 0;
    for (size_t i = 0; i < ops.size(); ++i)
      if (t.ev[i].nr == SYS_newfstatat) sum += ops[i].latency;
    return sum;
  };
  // Depth 6 below the root ("d/e/f/g/h/xK") against 2 below the cwd ("h/xK"):
  // the fixed profile's stat costs 1.6x and 0.8x its depth-3 figure there.
  const uint64_t from_root = stat_ns(false), from_cwd = stat_ns(true);
  EXPECT_LT(double(from_cwd), 0.7 * double(from_root)) << from_cwd << " ns against " << from_root << " ns";
}

}  // namespace
}  // namespace fsr

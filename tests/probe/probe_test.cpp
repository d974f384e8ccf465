// probe: every case a trace distinguishes is measured through the replayer's
// executor, the private directory is removed whatever happens, and the stale
// cases give a lifetime. No root (cold cases from dropped caches:
// probe_root_test.cpp).
#include <gtest/gtest.h>

#include <atomic>
#include <set>

#include "tests/probe/probe_fixture.h"
#include "tools/probe/probe_cases.h"
#include "tools/probe/probe_profile.h"
#include "tools/probe/prober.h"

namespace fsr {
namespace {

using test::quick;
using test::Tmp;

TEST(Probe, MeasuresEveryKindAndRemovesItsDirectory) {
  Tmp t;
  auto p = run_probe(quick(t.dir));
  ASSERT_TRUE(p) << p.message();
  EXPECT_TRUE(t.empty()) << "the probe left files in " << t.dir;
  std::set<ProbeKind> kinds;
  for (const ProfileCase& c : p->cases) {
    kinds.insert(c.kind);
    EXPECT_EQ(c.bins.size(), kProfileBins);
    EXPECT_GT(c.count, 0u);
  }
  for (int k = 0; k < kProbeKindCount; ++k)
    EXPECT_TRUE(kinds.count(static_cast<ProbeKind>(k))) << "no case for " << probe_kind_name(static_cast<ProbeKind>(k))
                                                        << "; notes: " << ::testing::PrintToString(p->notes);
  // Stat at every depth of the walk, reads and writes by size, readdir by what it returned.
  for (uint64_t d : {2, 3, 5, 7, 9}) EXPECT_NE(p->find(ProbeKind::kStat, Temp::kWarm, d), nullptr) << d;
  for (uint64_t s : {0, 128, 4096, 65536, 1 << 20}) EXPECT_NE(p->find(ProbeKind::kRead, Temp::kWarm, s), nullptr) << s;
  for (uint64_t s : {128, 4096, 65536, 1 << 20}) EXPECT_NE(p->find(ProbeKind::kWrite, Temp::kWarm, s), nullptr) << s;
  EXPECT_NE(p->find(ProbeKind::kReaddir, Temp::kWarm, 0), nullptr);  // the call that finds the end
  size_t readdir_sizes = 0;
  for (const ProfileCase& c : p->cases) readdir_sizes += c.kind == ProbeKind::kReaddir && c.temp == Temp::kWarm;
  EXPECT_GE(readdir_sizes, 4u);  // 0, 16, 128 and 1,024 entries, and the end
  for (uint64_t ms : kStaleDelaysMs) EXPECT_NE(p->find(ProbeKind::kStat, Temp::kStale, ms), nullptr) << ms;
  EXPECT_EQ(p->ref_depth, kProbeRefDepth);
  EXPECT_FALSE(p->environment_json.empty());
  EXPECT_GT(p->rounds, 0u);
  // The stat of a just-written file, after each idle gap.
  for (uint64_t us : {0, 250, 2000}) EXPECT_NE(p->find(ProbeKind::kStatWritten, Temp::kWarm, us), nullptr) << us;
  // Misses of fresh names are cold in every round, with or without root.
  EXPECT_NE(p->find(ProbeKind::kStatMissing, Temp::kCold, 3), nullptr);
}

TEST(Probe, StopRemovesItsDirectoryAndWritesNothing) {
  Tmp t;
  std::atomic<bool> stop{false};
  ProbeOptions o = quick(t.dir);
  o.max_rounds = 50;
  o.duration_s = 30;
  o.stop = &stop;
  o.progress = [&](double, double, uint32_t) { stop.store(true); };
  auto p = run_probe(o);
  ASSERT_FALSE(p);
  EXPECT_NE(p.message().find("interrupted"), std::string::npos) << p.message();
  EXPECT_TRUE(t.empty());
}

TEST(Probe, MissingDirectoryIsOneClearLine) {
  auto p = run_probe(quick("/nonexistent/fsr-probe"));
  ASSERT_FALSE(p);
  EXPECT_NE(p.message().find("/nonexistent/fsr-probe"), std::string::npos);
  EXPECT_EQ(p.message().find('\n'), std::string::npos);
}

ProfileCase fixed(ProbeKind k, Temp t, uint64_t param, uint64_t ns) {
  std::vector<uint64_t> s(50, ns);
  return make_case(k, t, param, s);
}

TEST(ProbeProfile, LifetimeLiesBetweenTheLastWarmAndTheFirstExpiredDelay) {
  Profile p;
  p.cases = {fixed(ProbeKind::kStat, Temp::kWarm, 3, 10'000), fixed(ProbeKind::kStat, Temp::kCold, 3, 100'000),
             fixed(ProbeKind::kStat, Temp::kStale, 250, 11'000), fixed(ProbeKind::kStat, Temp::kStale, 500, 12'000),
             fixed(ProbeKind::kStat, Temp::kStale, 1000, 90'000), fixed(ProbeKind::kStat, Temp::kStale, 2000, 95'000)};
  EXPECT_EQ(estimate_cache_lifetime(p, 3), 750'000'000u);
  p.cases[4] = fixed(ProbeKind::kStat, Temp::kStale, 1000, 12'000);
  p.cases[5] = fixed(ProbeKind::kStat, Temp::kStale, 2000, 12'000);
  EXPECT_EQ(estimate_cache_lifetime(p, 3), kNoExpiry);  // never expired
  p.cases[1] = fixed(ProbeKind::kStat, Temp::kCold, 3, 11'000);
  p.cases[4] = fixed(ProbeKind::kStat, Temp::kStale, 1000, 90'000);
  EXPECT_EQ(estimate_cache_lifetime(p, 3), kNoExpiry);  // cold as fast as warm: nothing cached
}

TEST(ProbeProfile, WithoutColdCasesAnExpiredStaleStatStandsInForCold) {
  ProbeSamples s;
  for (int i = 0; i < 20; ++i) {
    s.add(ProbeKind::kStat, Temp::kWarm, 3, 10'000);
    s.add(ProbeKind::kStat, Temp::kStale, 500, 10'500);
    s.add(ProbeKind::kStat, Temp::kStale, 2000, 60'000);
  }
  s.fail(ProbeKind::kLink, -1);
  Profile p;
  finish_profile(s, 3, p);
  EXPECT_EQ(p.cache_lifetime_ns, 1'250'000'000u);
  const ProfileCase* cold = p.find(ProbeKind::kStat, Temp::kCold, 3);
  ASSERT_NE(cold, nullptr);
  EXPECT_EQ(cold->median(), 60'000u);
  bool noted = false;
  for (const std::string& n : p.notes) noted = noted || n.find("link: 1 timed calls returned -1") != std::string::npos;
  EXPECT_TRUE(noted) << ::testing::PrintToString(p.notes);
}

}  // namespace
}  // namespace fsr

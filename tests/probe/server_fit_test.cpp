// SPDX-License-Identifier: Apache-2.0
// The server fit on synthetic sweeps: points drawn from a server of k slots
// of service S with o outside it, X(c) = min(c / (S + o), k / S), give back
// k and S; a mount still scaling at 8 streams has no limit.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "probe/server_fit.h"

namespace fsr {
namespace {

// One kind's points at 1, 2, 4 and 8 streams over a 0.3 s window, with
// throughput noise of +-noise.
std::vector<ConcurrencyPoint> server_points(ProbeKind kind, uint32_t slots, double service_ns, double outside_ns,
                                            double noise, std::mt19937& rng, uint64_t param = 0) {
  std::uniform_real_distribution<double> jitter(1 - noise, 1 + noise);
  std::vector<ConcurrencyPoint> v;
  for (uint32_t c : {1u, 2u, 4u, 8u}) {
    const double x = std::min(double(c) / (service_ns + outside_ns), double(slots) / service_ns) * jitter(rng);
    ConcurrencyPoint p;
    p.kind = kind;
    p.streams = c;
    p.wall_ns = 300'000'000;
    p.ops = static_cast<uint64_t>(x * double(p.wall_ns));
    p.median_ns = static_cast<uint64_t>(double(c) / x);  // Little's law
    p.param = param;
    v.push_back(p);
  }
  return v;
}

ServerModel model_of(uint32_t slots, double service_ns, double outside_ns, double noise, uint32_t seed) {
  std::mt19937 rng(seed);
  ServerModel m;
  for (ProbeKind k : {ProbeKind::kStat, ProbeKind::kOpenFile, ProbeKind::kOpenCreate, ProbeKind::kUnlink}) {
    auto pts = server_points(k, slots, service_ns, outside_ns, noise, rng);
    m.sweep.insert(m.sweep.end(), pts.begin(), pts.end());
  }
  auto small = server_points(ProbeKind::kRead, slots, service_ns, outside_ns, noise, rng, 4096);
  m.sweep.insert(m.sweep.end(), small.begin(), small.end());
  // A 1 MiB read through a pipe of its own: one at a time whatever the slots; not in the fit.
  auto big = server_points(ProbeKind::kReadSeq, 1, 20e6, 0, noise, rng, 1 << 20);
  m.sweep.insert(m.sweep.end(), big.begin(), big.end());
  return m;
}

TEST(ServerFit, RecoversOneSlotAndItsServiceTime) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    ServerModel m = model_of(1, 200'000, 30'000, 0.04, seed);
    fit_server(m, 500, 64);
    EXPECT_EQ(m.slots, 1u) << m.fit_note;
    EXPECT_NEAR(double(m.service_ns), 200'000, 200'000 * 0.06) << m.fit_note;
    EXPECT_EQ(m.fit_note.find("1 slot (stat"), 0u) << m.fit_note;
  }
}

TEST(ServerFit, RecoversFourSlotsAndTheirServiceTime) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    ServerModel m = model_of(4, 1'000'000, 30'000, 0.04, seed);
    fit_server(m, 500, 64);
    EXPECT_EQ(m.slots, 4u) << m.fit_note;
    EXPECT_NEAR(double(m.service_ns), 1'000'000, 1'000'000 * 0.06) << m.fit_note;
  }
}

TEST(ServerFit, ScalingToEightStreamsIsNoLimitSeen) {
  ServerModel m = model_of(64, 100'000, 5'000, 0.02, 7);
  fit_server(m, 500, 64);
  EXPECT_EQ(m.slots, kNoSlotLimit) << m.fit_note;
  EXPECT_TRUE(m.measured());
  EXPECT_NE(m.fit_note.find("scales to 8 streams: no limit seen"), std::string::npos) << m.fit_note;
  EXPECT_NEAR(double(m.service_ns), 104'500, 104'500 * 0.05) << m.fit_note;
}

TEST(ServerFit, KindsThatDisagreeAreListedAndTheMedianKept) {
  std::mt19937 rng(3);
  ServerModel m;
  const std::pair<ProbeKind, uint32_t> kinds[] = {
      {ProbeKind::kStat, 64}, {ProbeKind::kOpenFile, 4}, {ProbeKind::kOpenCreate, 4}, {ProbeKind::kUnlink, 2}};
  for (const auto& [k, slots] : kinds) {
    auto pts = server_points(k, slots, 500'000, 0, 0.0, rng);
    m.sweep.insert(m.sweep.end(), pts.begin(), pts.end());
  }
  fit_server(m, 500, 64);
  EXPECT_EQ(m.slots, 4u) << m.fit_note;
  EXPECT_NE(m.fit_note.find("median of 4: stat no limit, open 4, open-create 4, unlink 2"), std::string::npos)
      << m.fit_note;
}

TEST(ServerFit, ALimitAtTheCpuCountIsSaidToMaybeBeTheCpus) {
  ServerModel m = model_of(2, 50'000, 1'000, 0.0, 1);
  fit_server(m, 500, 2);
  EXPECT_EQ(m.slots, 2u);
  EXPECT_NE(m.fit_note.find("this machine has 2 CPUs"), std::string::npos) << m.fit_note;
}

TEST(ServerFit, WithoutOneStreamPointsNothingIsFitted) {
  ServerModel m;
  std::mt19937 rng(1);
  for (ConcurrencyPoint p : server_points(ProbeKind::kStat, 4, 1e5, 0, 0, rng))
    if (p.streams > 1) m.sweep.push_back(p);
  fit_server(m, 500, 64);
  EXPECT_FALSE(m.measured());
  EXPECT_NE(m.fit_note.find("not fitted"), std::string::npos);
}

}  // namespace
}  // namespace fsr

// OpCost's view of the mount's cache: an entry's lifetime runs from the
// mount's last answer (a cached hit does not renew it), and a write through
// an open file makes the next lookup of that file ask the mount again.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/syscall.h>

#include "tests/predict/predict_testdata.h"
#include "tests/predict/stream_run.h"
#include "tools/predict/latency_model.h"
#include "traces/syscalls.h"

namespace fsr {
namespace {

using testdata::fixed_profile;
using testdata::TraceFixture;

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
  for (const OpRecord& r : testdata::simulate_fixture(t, &model, testdata::stream_options(7)).ops) out.push_back(r.latency);
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

}  // namespace
}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// Quantised timing columns through the whole writer and reader: per-thread
// error feedback keeps every enter time within 768 ns of the truth and every
// thread's running sum of durations within 256 ns, however long the trace (a
// coder without the feedback drifts far past these bounds here), and a
// thread's calls never appear to overlap.
#include <algorithm>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/traces/test_util.h"
#include "traces/timing_quant.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace fsr {
namespace {

constexpr uint64_t kMaxValue = uint64_t{1} << 20;  // gaps and durations below ~1 ms

uint64_t absdiff(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

// Writes `in` through the real writer in chunks of `chunk_events` and reads
// every event back (empty on any failure, which the caller's size check shows).
std::vector<Event> write_and_read(const std::vector<Event>& in, uint32_t chunk_events) {
  test::TempFile f;
  {
    auto w = TraceWriter::create(f.path(), test::sample_header(), {.chunk_events = chunk_events});
    if (!w) return {};
    for (const Event& e : in)
      if (!(*w)->append(e).is_ok()) return {};
    if (!(*w)->finish({}).is_ok()) return {};
  }
  auto r = TraceReader::open(f.path());
  if (!r) return {};
  return test::read_records<Event>(**r);
}

// Three threads, each: gap, syscall, gap, ...; merged in exit order like the
// recorder. Gaps log-uniform over 1 ns .. 1 ms with some zeros; most
// durations large (big steps: drift without feedback shows quickly).
std::vector<Event> thread_stream(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> logu(0.0, std::log(static_cast<double>(kMaxValue - 1)));
  auto log_uniform = [&] { return static_cast<uint64_t>(std::exp(logu(rng))); };
  uint64_t end[3] = {5000, 7000, 9000};
  std::vector<Event> pending[3];
  std::vector<Event> out;
  out.reserve(n);
  while (out.size() < n) {
    for (uint32_t t = 0; t < 3; ++t) {
      if (!pending[t].empty()) continue;
      Event e;
      e.pid = 40;
      e.tid = 40 + t;
      e.nr = 0;
      const uint64_t gap = rng() % 10 == 0 ? 0 : log_uniform();
      e.ts = end[t] + gap;
      e.dur = rng() % 5 == 0 ? log_uniform() : kMaxValue / 2 + rng() % (kMaxValue / 2);
      end[t] = e.ts + e.dur;
      pending[t].push_back(e);
    }
    uint32_t first = 0;
    for (uint32_t t = 1; t < 3; ++t)
      if (pending[t][0].ts + pending[t][0].dur < pending[first][0].ts + pending[first][0].dur) first = t;
    out.push_back(pending[first][0]);
    pending[first].clear();
  }
  return out;
}

TEST(ChunkTiming, EnterTimesAndDurationSumsStayBoundedOverAMillionEvents) {
  test::TempFile f;
  const std::vector<Event> in = thread_stream(1'000'000, 11);
  {
    // Small chunks: the duration residual must also cross 1,000 chunk boundaries.
    auto w = TraceWriter::create(f.path(), test::sample_header(), {.chunk_events = 1000});
    ASSERT_TRUE(w) << w.message();
    for (const Event& e : in) ASSERT_TRUE((*w)->append(e).is_ok());
    ASSERT_TRUE((*w)->finish({}).is_ok());
  }
  auto r = TraceReader::open(f.path());
  ASSERT_TRUE(r) << r.message();
  // Half a step is at most 256 ns; an enter time may also be held back to the
  // previous end, late by what the previous duration was rounded up (two
  // residuals): three half steps.
  const uint64_t bound = timing_half_step(UINT64_MAX);
  ASSERT_EQ(bound, 256u);
  uint64_t true_sum[3] = {}, sum[3] = {}, worst_ts = 0, worst_sum = 0, worst_dur = 0;
  size_t i = 0;
  std::vector<Event> out;
  while (true) {
    auto got = (*r)->next(out);
    ASSERT_TRUE(got) << got.message();
    if (!got.value()) break;
    for (const Event& e : out) {
      ASSERT_LT(i, in.size());
      const Event& want = in[i++];
      ASSERT_EQ(e.tid, want.tid);
      const uint32_t t = e.tid - 40;
      worst_ts = std::max(worst_ts, absdiff(e.ts, want.ts));
      true_sum[t] += want.dur;
      sum[t] += e.dur;
      worst_sum = std::max(worst_sum, absdiff(sum[t], true_sum[t]));
      worst_dur = std::max(worst_dur, absdiff(e.dur, want.dur));
    }
  }
  ASSERT_EQ(i, in.size());
  RecordProperty("worst_enter_error_ns", std::to_string(worst_ts));
  RecordProperty("worst_duration_sum_error_ns", std::to_string(worst_sum));
  EXPECT_LE(worst_ts, 3 * bound) << "an enter time drifted";
  EXPECT_LE(worst_sum, bound) << "a thread's sum of durations drifted";
  // One duration is off by its own rounding and the residual it absorbed.
  EXPECT_LE(worst_dur, 2 * bound);
}

TEST(ChunkTiming, SmallValuesAndNegativeGapsAreExact) {
  std::vector<Event> in;
  std::mt19937_64 rng(3);
  uint64_t end = 1'000'000;
  for (uint64_t i = 0; i < 200; ++i) {
    Event e;
    e.pid = e.tid = 7;
    e.ts = end + rng() % 127 - 63;  // gaps of -63 .. 63 ns
    e.dur = rng() % 64;
    end = e.ts + e.dur;
    in.push_back(e);
  }
  const std::vector<Event> all = write_and_read(in, 64);
  ASSERT_EQ(all.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(all[i].ts, in[i].ts) << i;
    EXPECT_EQ(all[i].dur, in[i].dur) << i;
  }
}

// Calls of one thread do not overlap in the trace, however little time
// separates them (the replayer's ordering relies on it): rounding a duration
// up must not push the end past the next enter, in a chunk or across one.
TEST(ChunkTiming, CallsOfAThreadNeverOverlap) {
  std::mt19937_64 rng(5);
  std::vector<Event> in;
  uint64_t end[4] = {1'000'000, 1'000'000, 1'000'000, 1'000'000};
  for (int i = 0; i < 20000; ++i) {
    Event e;
    const uint32_t t = static_cast<uint32_t>(rng() % 4);
    e.pid = 60;
    e.tid = 60 + t;
    e.ts = end[t] + rng() % 4;           // back to back: gaps of 0-3 ns
    e.dur = 20'000 + rng() % 5'000'000;  // rounded by up to 256 ns
    end[t] = e.ts + e.dur;
    in.push_back(e);
  }
  const std::vector<Event> all = write_and_read(in, 97);
  uint64_t last_end[4] = {}, overlaps = 0;
  for (const Event& e : all) {
    const uint32_t t = e.tid - 60;
    if (last_end[t] && e.ts < last_end[t]) ++overlaps;
    last_end[t] = e.ts + e.dur;
  }
  EXPECT_EQ(all.size(), in.size());
  EXPECT_EQ(overlaps, 0u);
}

// A duration of 0 (pseudo events) or below 64 ns stays exact even when the
// thread has a rounding residual to make good: the next long one takes it.
TEST(ChunkTiming, ShortDurationsStayExactBetweenRoundedOnes) {
  std::vector<Event> in;
  uint64_t end = 1000;
  for (uint64_t i = 0; i < 300; ++i) {
    Event e;
    e.pid = e.tid = 9;
    e.ts = end + 100'003 + i;
    e.dur = i % 3 == 0 ? 1'000'003 + i * 7 : (i % 3 == 1 ? 0 : 40);
    end = e.ts + e.dur;
    in.push_back(e);
  }
  const std::vector<Event> all = write_and_read(in, 100);
  ASSERT_EQ(all.size(), in.size());
  uint64_t sum = 0, true_sum = 0;
  int rounded = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i].dur < 64) {
      EXPECT_EQ(all[i].dur, in[i].dur) << i;
    }
    rounded += all[i].dur != in[i].dur;
    sum += all[i].dur;
    true_sum += in[i].dur;
    EXPECT_LE(absdiff(sum, true_sum), 256u) << i;
  }
  EXPECT_GT(rounded, 50) << "the long durations are not representable: they must have been rounded";
}

}  // namespace
}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// A trace's content id (trace_id.h) and the reader's check of event times
// against the recording's length (trace_reader.h next()).
#include <sys/stat.h>
#include <sys/time.h>

#include <filesystem>
#include <gtest/gtest.h>

#include "tests/traces/test_util.h"
#include "traces/trace_id.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace fsr {
namespace {

std::string fixture(const char* name) { return std::string(FSR_FIXTURE_DIR) + "/" + name; }

Event stat_event(uint64_t ts, uint64_t dur, uint32_t tid = 7) {
  Event e;
  e.pid = 7;
  e.tid = tid;
  e.nr = *syscall_from_name("newfstatat");
  e.ts = ts;
  e.dur = dur;
  return e;
}

// Writes a trace of `events`; `finish` false leaves it as a killed writer does (flushed, no footer).
void write_trace(const std::string& path, const TraceHeader& h, const std::vector<Event>& events,
                 const TraceFooter& footer = {}, bool finish = true) {
  auto w = TraceWriter::create(path, h);
  ASSERT_TRUE(w) << w.message();
  for (const Event& e : events) ASSERT_TRUE((*w)->append(e).is_ok());
  if (finish)
    ASSERT_TRUE((*w)->finish(footer).is_ok());
  else
    ASSERT_TRUE((*w)->flush().is_ok());
}

uint64_t id_of(const std::string& path) {
  auto r = TraceReader::open(path);
  EXPECT_TRUE(r) << r.message();
  return r ? (*r)->trace_id() : kNoTraceId;
}

TEST(TraceId, FormatsAndParsesAsSixteenHexDigits) {
  EXPECT_EQ(format_trace_id(0x0123456789abcdefull), "0123456789abcdef");
  EXPECT_EQ(parse_trace_id("0123456789ABCDEF"), 0x0123456789abcdefull);
  EXPECT_EQ(format_trace_id(kNoTraceId), "none");
  EXPECT_FALSE(parse_trace_id("0123"));
  EXPECT_FALSE(parse_trace_id("0123456789abcdeg"));
}

TEST(TraceId, SameFileAndItsCopyHaveOneIdOtherRecordingsAnother) {
  test::TempFile a("a.trace"), b("b.trace"), c("c.trace"), copy("copy.trace");
  const std::vector<Event> ev = {stat_event(1000, 50), stat_event(5000, 70)};
  write_trace(a.path(), test::sample_header(), ev);
  // The same workload recorded again: same events, another start time.
  TraceHeader again = test::sample_header();
  again.wall_start_ns += 1'000'000'000;
  write_trace(b.path(), again, ev);
  // Same header, one event's time differs.
  write_trace(c.path(), test::sample_header(), {stat_event(1000, 50), stat_event(5001 + 4096, 70)});
  std::filesystem::copy_file(a.path(), copy.path(), std::filesystem::copy_options::overwrite_existing);

  const uint64_t ida = id_of(a.path());
  EXPECT_NE(ida, kNoTraceId);
  EXPECT_EQ(id_of(a.path()), ida) << "the same file, opened again";
  EXPECT_EQ(id_of(copy.path()), ida) << "a copy is the same trace";
  EXPECT_NE(id_of(b.path()), ida) << "another recording of the same events";
  EXPECT_NE(id_of(c.path()), ida) << "other events under the same header";
  EXPECT_NE(id_of(b.path()), id_of(c.path()));
}

// The reader computes the id from the stored bytes: files written by older
// writers have one, stable, and their own.
TEST(TraceId, FilesOfOlderFormatVersionsHaveStableDistinctIds) {
  std::vector<uint64_t> ids;
  for (const char* f : {"v1.trace", "v1-ino-xor.trace", "v2.trace"}) {
    SCOPED_TRACE(f);
    const uint64_t id = id_of(fixture(f));
    EXPECT_NE(id, kNoTraceId);
    EXPECT_EQ(id_of(fixture(f)), id);
    for (uint64_t other : ids) EXPECT_NE(id, other);
    ids.push_back(id);
  }
  // Computing it does not disturb a sequential read of the same reader.
  auto r = TraceReader::open(fixture("v2.trace"));
  ASSERT_TRUE(r) << r.message();
  std::vector<Event> chunk;
  ASSERT_TRUE((*r)->next(chunk).value());
  EXPECT_EQ((*r)->trace_id(), ids[2]);
  const auto rest = test::read_records<Event>(**r);
  EXPECT_EQ(chunk.size() + rest.size(), 180u);
}

TEST(TraceId, AResultHeaderCarriesItsTracesIdAndOlderResultsNone) {
  test::TempFile f("x.result");
  TraceHeader h = test::sample_header(PayloadKind::kResult);
  h.source_trace = "/t/x.trace";
  h.source_trace_id = 0xfeedfacecafebeefull;
  {
    auto w = TraceWriter::create(f.path(), h);
    ASSERT_TRUE(w) << w.message();
    ASSERT_TRUE((*w)->finish({}).is_ok());
  }
  auto r = TraceReader::open(f.path());
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ((*r)->header().source_trace_id, 0xfeedfacecafebeefull);
  for (const char* old : {"v1.result", "v2.result"}) {
    auto o = TraceReader::open(fixture(old));
    ASSERT_TRUE(o) << o.message();
    EXPECT_EQ((*o)->header().source_trace_id, kNoTraceId) << old << ": written before the field";
  }
}

// A crafted enter time near 2^63 ns in a trace whose footer says it lasted
// 0.1 s: clamped to that end and counted, in sequential and random reads.
TEST(TraceTimes, AnEventEnteredAfterTheRecordingsEndIsClampedAndCounted) {
  test::TempFile f("late.trace");
  TraceFooter ft;
  ft.end_ns = 100'000'000;
  const uint64_t crafted = (1ull << 63) - 4096;
  write_trace(
      f.path(), test::sample_header(),
      {stat_event(1000, 50), stat_event(50'000'000, 70), stat_event(crafted, 10, 8), stat_event(99'000'000, 1000)}, ft);
  auto r = TraceReader::open(f.path());
  ASSERT_TRUE(r) << r.message();
  ASSERT_TRUE((*r)->time_limit());
  EXPECT_EQ(*(*r)->time_limit(), 100'000'000u);
  const auto all = test::read_records<Event>(**r);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_NEAR(static_cast<double>(all[1].ts), 50'000'000.0, 1000.0) << "a sane time is kept";
  EXPECT_EQ(all[2].ts, 100'000'000u) << "clamped to the recording's end";
  EXPECT_NEAR(static_cast<double>(all[3].ts), 99'000'000.0, 1000.0);
  const ReadProblems& p = (*r)->problems();
  EXPECT_EQ(p.clamped_times, 1u);
  EXPECT_FALSE(p.complete()) << "impossible times are damage";
  ASSERT_EQ(p.messages.size(), 1u);
  EXPECT_NE(p.messages[0].find("impossible event times"), std::string::npos) << p.messages[0];
  EXPECT_NE(p.messages[0].find(f.path()), std::string::npos) << p.messages[0];
  EXPECT_NE(p.messages[0].find("0.100 s"), std::string::npos) << p.messages[0];
  std::vector<Event> chunk;
  ASSERT_TRUE((*r)->read_chunk(0, chunk).value());
  ASSERT_EQ(chunk.size(), 4u);
  EXPECT_EQ(chunk[2].ts, 100'000'000u);
}

// Synthetic traces without an end in their footer, and results, are not
// checked against one; a duration that would wrap the clock always is.
TEST(TraceTimes, WithoutARecordedEndOnlyAClockOverflowIsClamped) {
  test::TempFile f("noend.trace");
  TraceHeader h = test::sample_header();
  h.wall_start_ns = 0;
  write_trace(
      f.path(), h,
      {stat_event(1000, 50), stat_event(1ull << 62, 10, 8), stat_event(1ull << 62, (1ull << 63) + (1ull << 62), 9)});
  auto r = TraceReader::open(f.path());
  ASSERT_TRUE(r) << r.message();
  EXPECT_FALSE((*r)->time_limit());
  const auto all = test::read_records<Event>(**r);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_NEAR(static_cast<double>(all[1].ts), static_cast<double>(1ull << 62), static_cast<double>(1ull << 52));
  EXPECT_GE(all[2].ts + all[2].dur, all[2].ts) << "the end does not wrap";
  EXPECT_EQ((*r)->problems().clamped_times, 1u);
}

// A trace whose writer died has no footer: the time its file was last
// written bounds its events (the writer flushes every second).
TEST(TraceTimes, ATraceWithoutFooterIsBoundedByWhenItWasLastWritten) {
  test::TempFile f("cut.trace");
  TraceHeader h = test::sample_header();
  struct timeval now;
  gettimeofday(&now, nullptr);
  h.wall_start_ns = (static_cast<uint64_t>(now.tv_sec) - 10) * 1'000'000'000ull;  // started 10 s ago
  write_trace(f.path(), h, {stat_event(1000, 50), stat_event(1ull << 62, 10)}, {}, /*finish=*/false);
  auto r = TraceReader::open(f.path());
  ASSERT_TRUE(r) << r.message();
  ASSERT_TRUE((*r)->time_limit());
  EXPECT_GE(*(*r)->time_limit(), 10'000'000'000u);
  EXPECT_LE(*(*r)->time_limit(), 100'000'000'000u) << "10 s and a minute's slack, give or take the test's own time";
  const auto all = test::read_records<Event>(**r);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].ts, *(*r)->time_limit());
  EXPECT_EQ((*r)->problems().clamped_times, 1u);
  EXPECT_TRUE((*r)->problems().truncated);
}

}  // namespace
}  // namespace fsr

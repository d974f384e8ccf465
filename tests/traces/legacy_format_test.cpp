// SPDX-License-Identifier: Apache-2.0
// Files written by earlier versions of the writer still read, value for
// value: the fixtures were written by the writers of the commits named in
// fixtures/make_fixtures.cpp (format version 1: ns timing columns, string
// blocks as a List(Data), the oldest with XOR-coded inodes; version 2:
// quantised timings, front-coded string blocks).
#include <gtest/gtest.h>

#include "tests/traces/legacy_fixture.h"
#include "tests/traces/test_util.h"
#include "traces/trace_reader.h"

namespace fsr {
namespace {

std::string fixture(const char* name) { return std::string(FSR_FIXTURE_DIR) + "/" + name; }

// Version 2 quantises timings: enter times within three half steps of the
// truth (schema.capnp "Timing quantisation"), durations within one.
constexpr uint64_t kV2TimingTolerance = 768;

void expect_trace(const std::string& path, uint16_t version, uint64_t timing_tol) {
  auto r = TraceReader::open(path);
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ((*r)->header().format_version, version);
  EXPECT_EQ((*r)->header().root, "/home/u/repo");
  EXPECT_TRUE((*r)->header().recorder_choices.empty()) << "written before the field: read as none";
  int chunks = 0;
  const auto all = test::read_records<Event>(**r, &chunks);
  EXPECT_TRUE((*r)->problems().complete()) << (*r)->problems().messages.size();
  EXPECT_EQ(chunks, 4);
  const auto want = legacy::events();
  ASSERT_EQ(all.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(i);
    test::expect_same(want[i], all[i], timing_tol);
  }
  const auto strs = legacy::strings();
  ASSERT_EQ((*r)->string_count(), strs.size() + 1);
  for (size_t i = 0; i < strs.size(); ++i) EXPECT_EQ((*r)->str(static_cast<StrId>(i + 1)), strs[i]);
  auto pre = (*r)->prestate();
  ASSERT_TRUE(pre) << pre.message();
  ASSERT_EQ(pre->size(), 2u);
  EXPECT_EQ((*pre)[1].target, "dir0/x");
  ASSERT_TRUE((*r)->footer());
  EXPECT_EQ((*r)->footer()->notes, "v1 fixture");
  // Random access through the index decodes the same.
  std::vector<Event> out;
  ASSERT_TRUE((*r)->read_chunk(2, out).value());
  ASSERT_EQ(out.size(), legacy::kChunkEvents);
  EXPECT_EQ(out[7].ts, all[2 * legacy::kChunkEvents + 7].ts);
}

TEST(LegacyFormat, V1TraceReadsExactly) { expect_trace(fixture("v1.trace"), 1, 0); }

TEST(LegacyFormat, V1TraceWithXorCodedInodesReadsExactly) { expect_trace(fixture("v1-ino-xor.trace"), 1, 0); }

TEST(LegacyFormat, V2TraceReadsExactlyButForQuantisedTimings) {
  expect_trace(fixture("v2.trace"), 2, kV2TimingTolerance);
}

void expect_result(const std::string& path) {
  auto r = TraceReader::open(path);
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ((*r)->kind(), PayloadKind::kResult);
  const auto all = test::read_records<OpRecord>(**r);
  const auto want = legacy::ops();
  ASSERT_EQ(all.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(all[i].event_index, want[i].event_index);
    EXPECT_EQ(all[i].start, want[i].start);
    EXPECT_EQ(all[i].latency, want[i].latency);
    EXPECT_EQ(all[i].lateness, want[i].lateness);
    EXPECT_EQ(all[i].recorded_dur, want[i].recorded_dur);
    EXPECT_EQ(all[i].ret, want[i].ret);
    EXPECT_EQ(all[i].tid, want[i].tid);
    EXPECT_EQ(all[i].path, want[i].path);
    EXPECT_EQ(all[i].flags, want[i].flags);
  }
  EXPECT_EQ((*r)->str(want[3].path), legacy::strings()[want[3].path - 1]);
}

TEST(LegacyFormat, V1ResultReadsExactly) { expect_result(fixture("v1.result")); }

TEST(LegacyFormat, V2ResultReadsExactly) { expect_result(fixture("v2.result")); }

}  // namespace
}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// The container's reader and writer beyond the round trip of every field
// (container_roundtrip_test.cpp): random access through the index, a file
// still being written, compression against row-wise, and the writer's errors.
#include <gtest/gtest.h>

#include "tests/traces/test_util.h"
#include "traces/columns.h"
#include "traces/synthetic/synthetic.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace fsr {
namespace {

using test::expect_same;
using test::TempFile;

TEST(ContainerRoundTrip, RandomAccessThroughTheIndex) {
  TempFile f;
  test::SyntheticStream gen;
  std::vector<Event> in;
  {
    auto w = TraceWriter::create(f.path(), test::sample_header(), {.chunk_events = 1000});
    ASSERT_TRUE(w);
    for (int i = 1; i <= 500; ++i) (*w)->intern("/p/" + std::to_string(i));
    for (int i = 0; i < 5500; ++i) {
      in.push_back(gen.next(500));
      ASSERT_TRUE((*w)->append(in.back()).is_ok());
    }
    ASSERT_TRUE((*w)->finish({}).is_ok());
  }
  auto r = TraceReader::open(f.path());
  ASSERT_TRUE(r);
  auto n = (*r)->chunk_count();
  ASSERT_TRUE(n) << n.message();
  EXPECT_EQ(n.value(), 6u);
  std::vector<Event> out;
  ASSERT_TRUE((*r)->read_chunk(3, out).value());
  ASSERT_EQ(out.size(), 1000u);
  expect_same(out[0], in[3000], 768);  // three half steps (timing_quant.h)
  expect_same(out[999], in[3999], 768);
  EXPECT_EQ((*r)->str(out[5].path[0]), "/p/" + std::to_string(out[5].path[0]));
  ASSERT_TRUE((*r)->read_chunk(5, out).value());
  EXPECT_EQ(out.size(), 500u);
  EXPECT_FALSE((*r)->read_chunk(6, out).value());
}

TEST(ContainerRoundTrip, ReaderFollowsAFileStillBeingWritten) {
  TempFile f;
  test::SyntheticStream gen;
  auto w = TraceWriter::create(f.path(), test::sample_header(), {.chunk_events = 100});
  ASSERT_TRUE(w);
  (*w)->intern("/x");
  for (int i = 0; i < 150; ++i) ASSERT_TRUE((*w)->append(gen.next(1)).is_ok());
  auto r = TraceReader::open(f.path());
  ASSERT_TRUE(r) << r.message();
  std::vector<Event> out;
  ASSERT_TRUE((*r)->next(out).value());
  EXPECT_EQ(out.size(), 100u);
  EXPECT_FALSE((*r)->next(out).value()) << "the second chunk is not written yet";
  ASSERT_TRUE((*w)->flush().is_ok());
  ASSERT_TRUE((*r)->next(out).value()) << "a flushed chunk becomes visible";
  EXPECT_EQ(out.size(), 50u);
  EXPECT_EQ((*r)->str(out[0].path[0]), "/x");
  for (int i = 0; i < 30; ++i) ASSERT_TRUE((*w)->append(gen.next(1)).is_ok());
  ASSERT_TRUE((*w)->finish({}).is_ok());
  ASSERT_TRUE((*r)->next(out).value());
  EXPECT_EQ(out.size(), 30u);
  EXPECT_FALSE((*r)->next(out).value());
  EXPECT_TRUE((*r)->problems().complete()) << (*r)->problems().messages.size();
  EXPECT_TRUE((*r)->footer().has_value());
}

// Column-wise coding is the point of the chunk format (row-wise
// records compress far worse). Deterministic input, so this is a property of
// the format, not a timing: the file (chunked, with its string table) must be
// at least 1.5x smaller than the same events stored as raw structs and
// compressed as one stream with the same zstd level.
TEST(ContainerRoundTrip, ColumnarChunksBeatRowWiseCompression) {
  TempFile f;
  BuildLikeStream gen(20000);
  std::vector<Event> batch, all;
  {
    auto w = TraceWriter::create(f.path(), test::sample_header());
    ASSERT_TRUE(w);
    while (all.size() < 200000) {
      batch.clear();
      gen.step(batch);
      for (const auto& p : gen.new_paths()) (*w)->intern(p);
      for (const Event& e : batch) ASSERT_TRUE((*w)->append(e).is_ok());
      all.insert(all.end(), batch.begin(), batch.end());
    }
    ASSERT_TRUE((*w)->finish({}).is_ok());
  }
  size_t columnar = test::read_bytes(f.path()).size();
  Compressor z(3);
  std::vector<uint8_t> rows(reinterpret_cast<const uint8_t*>(all.data()),
                            reinterpret_cast<const uint8_t*>(all.data() + all.size())),
      packed;
  z.compress(rows, packed);
  RecordProperty("bytes_per_event", std::to_string(static_cast<double>(columnar) / all.size()));
  RecordProperty("rowwise_bytes_per_event", std::to_string(static_cast<double>(packed.size()) / all.size()));
  EXPECT_LT(columnar * 3, packed.size() * 2) << "columnar " << columnar << " B, row-wise " << packed.size() << " B";
}

TEST(ContainerRoundTrip, WriterRejectsWrongRecordKind) {
  TempFile f;
  auto w = TraceWriter::create(f.path(), test::sample_header(PayloadKind::kResult));
  ASSERT_TRUE(w);
  EXPECT_THROW((void)(*w)->append(Event{}), std::logic_error);
}

TEST(ContainerRoundTrip, CreateInMissingDirectoryNamesThePath) {
  auto w = TraceWriter::create("/nonexistent-dir/x.trace", test::sample_header());
  ASSERT_FALSE(w);
  EXPECT_NE(w.message().find("/nonexistent-dir/x.trace"), std::string::npos);
}

}  // namespace
}  // namespace fsr

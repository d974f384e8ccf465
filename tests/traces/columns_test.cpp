// SPDX-License-Identifier: Apache-2.0
#include "traces/columns.h"

#include <gtest/gtest.h>

#include <limits>

namespace fsr {
namespace {

TEST(Columns, ZigzagRoundTripsExtremes) {
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{-100}, std::numeric_limits<int64_t>::max(),
                    std::numeric_limits<int64_t>::min()})
    EXPECT_EQ(unzigzag(zigzag(v)), v);
  EXPECT_EQ(zigzag(-1), 1u);
  EXPECT_EQ(zigzag(1), 2u);
}

TEST(Columns, VarintsRoundTrip) {
  ColumnBuilder b;
  std::vector<uint64_t> in = {0, 1, 127, 128, 300, 1ull << 35, std::numeric_limits<uint64_t>::max()};
  for (auto v : in) b.put(v);
  EXPECT_FALSE(b.all_zero());
  std::vector<uint64_t> out;
  ASSERT_TRUE(decode_column(b.bytes(), in.size(), out).is_ok());
  EXPECT_EQ(out, in);
}

TEST(Columns, ShortColumnIsAnError) {
  ColumnBuilder b;
  b.put(5);
  b.put(1000);
  std::vector<uint64_t> out;
  Status st = decode_column(b.bytes(), 3, out);
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("ends after 2 of 3"), std::string::npos) << st.message();
}

TEST(Columns, TrailingBytesAreAnError) {
  ColumnBuilder b;
  b.put(5);
  b.put(6);
  std::vector<uint64_t> out;
  EXPECT_FALSE(decode_column(b.bytes(), 1, out).is_ok());
}

TEST(Columns, OverlongVarintIsAnError) {
  std::vector<uint8_t> bad(11, 0xff);
  bad.push_back(0);
  std::vector<uint64_t> out;
  EXPECT_FALSE(decode_column(bad, 1, out).is_ok());
}

TEST(Columns, AllZeroIsDetected) {
  ColumnBuilder b;
  for (int i = 0; i < 10; ++i) b.put(0);
  EXPECT_TRUE(b.all_zero());
  b.put(1);
  EXPECT_FALSE(b.all_zero());
}

TEST(Columns, CompressorRoundTripsAndChecksSize) {
  Compressor c(3);
  Decompressor d;
  std::vector<uint8_t> in(10000);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i % 7);
  std::vector<uint8_t> z, out;
  c.compress(in, z);
  EXPECT_LT(z.size(), in.size() / 10);
  ASSERT_TRUE(d.decompress(z, in.size(), out).is_ok());
  EXPECT_EQ(out, in);
  EXPECT_FALSE(d.decompress(z, in.size() + 1, out).is_ok());
  std::vector<uint8_t> junk = {1, 2, 3, 4, 5, 6, 7, 8};
  EXPECT_FALSE(d.decompress(junk, 8, out).is_ok());
}

TEST(Columns, ThreadMajorOrderRoundTrips) {
  // Values of several lengths (one to ten bytes), threads interleaved
  // unevenly, built per thread and joined as the chunk writer does.
  const std::vector<uint32_t> thread_of = {2, 0, 0, 1, 2, 2, 0, 3, 1, 0};
  const std::vector<uint64_t> values = {7, 300, 0, 1ull << 40, 5, std::numeric_limits<uint64_t>::max(), 127, 128, 9, 2};
  ColumnBuilder parts[4], joined;
  for (size_t i = 0; i < values.size(); ++i) parts[thread_of[i]].put(values[i]);
  for (const auto& p : parts) joined.append(p);
  EXPECT_FALSE(joined.all_zero());
  std::vector<uint64_t> stored;
  ASSERT_TRUE(decode_column(joined.bytes(), values.size(), stored).is_ok());
  EXPECT_EQ(stored,
            (std::vector<uint64_t>{300, 0, 127, 2, 1ull << 40, 9, 7, 5, std::numeric_limits<uint64_t>::max(), 128}))
      << "thread 0's values, then thread 1's, ...";
  const std::vector<uint64_t> thread_col(thread_of.begin(), thread_of.end());
  std::vector<uint32_t> event_at, cursor;
  ASSERT_TRUE(thread_major_events(thread_col, 4, event_at, cursor));
  std::vector<uint64_t> back;
  ASSERT_TRUE(decode_column(joined.bytes(), values.size(), back, event_at.data()).is_ok());
  EXPECT_EQ(back, values) << "decoded back in event order";
}

TEST(Columns, AppendingKeepsGrowingAndTracksZeros) {
  ColumnBuilder a, b, joined;
  for (int i = 0; i < 1000; ++i) a.put(0);
  joined.append(a);
  EXPECT_TRUE(joined.all_zero());
  for (int i = 0; i < 5000; ++i) b.put(static_cast<uint64_t>(i) << 20);
  joined.append(b);
  joined.append(ColumnBuilder{});
  EXPECT_FALSE(joined.all_zero());
  std::vector<uint64_t> out;
  ASSERT_TRUE(decode_column(joined.bytes(), 6000, out).is_ok());
  EXPECT_EQ(out[999], 0u);
  EXPECT_EQ(out[5999], uint64_t{4999} << 20);
}

TEST(Columns, ThreadMajorEventsRefuseAnUnknownThread) {
  std::vector<uint32_t> event_at, cursor;
  const std::vector<uint64_t> thread_col = {0, 1, 2};
  EXPECT_FALSE(thread_major_events(thread_col, 2, event_at, cursor));
}

}  // namespace
}  // namespace fsr

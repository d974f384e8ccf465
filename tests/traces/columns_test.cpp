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

}  // namespace
}  // namespace fsr

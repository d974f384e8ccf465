// SPDX-License-Identifier: Apache-2.0
#include "traces/string_coding.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <gtest/gtest.h>

#include <cstring>

#include "schema.capnp.h"
#include "traces/model_codec.h"

namespace fsr {
namespace {

std::vector<std::string> round_trip(const std::vector<std::string>& in) {
  std::vector<std::string_view> views(in.begin(), in.end());
  std::vector<uint8_t> blob;
  front_code(views, blob);
  std::vector<std::string> out{"earlier"};
  Status st = front_decode(blob, in.size(), out);
  EXPECT_TRUE(st.is_ok()) << st.message();
  out.erase(out.begin());
  return out;
}

// The sorted coding's columns, decoded (what the block message stores, before zstd).
struct SortedColumns {
  std::vector<uint64_t> order, prefix, suffix_length;
  std::vector<uint8_t> suffix;
};
SortedColumns sorted_columns(const std::vector<std::string>& in) {
  std::vector<std::string_view> views(in.begin(), in.end());
  SortedStrings coded;
  sort_code(views, coded);
  SortedColumns c;
  EXPECT_TRUE(decode_column(coded.order.bytes(), in.size(), c.order).is_ok());
  EXPECT_TRUE(decode_column(coded.prefix.bytes(), in.size(), c.prefix).is_ok());
  EXPECT_TRUE(decode_column(coded.suffix_length.bytes(), in.size(), c.suffix_length).is_ok());
  c.suffix = coded.suffix;
  return c;
}
Status sorted_decode(const SortedColumns& c, std::vector<std::string>& table) {
  return sort_decode(c.order, c.prefix, c.suffix_length, c.suffix, table);
}
std::vector<std::string> sorted_round_trip(const std::vector<std::string>& in) {
  std::vector<std::string> out{"earlier"};
  Status st = sorted_decode(sorted_columns(in), out);
  EXPECT_TRUE(st.is_ok()) << st.message();
  out.erase(out.begin());
  return out;
}

TEST(StringCoding, EncodedFormIsReferencePrefixLengthRestLengthRest) {
  std::vector<std::string_view> in = {"/a/b", "/a/cd", "/a/c", "x"};
  std::vector<uint8_t> blob;
  front_code(in, blob);
  std::vector<uint8_t> want = {0, 0, 4, '/', 'a', '/', 'b', 0, 3, 2, 'c', 'd', 0, 4, 0, 0, 0, 1, 'x'};
  EXPECT_EQ(blob, want);
}

// Two walks interleaved: each string refers to the best of the strings before it.
TEST(StringCoding, ReferenceIsTheLongestSharedPrefixInTheWindow) {
  std::vector<std::string_view> in = {"/a/b/1", "/z/q", "/a/b/2", "/z/r"};
  std::vector<uint8_t> blob;
  front_code(in, blob);
  std::vector<uint8_t> want = {0,   0,   6,   '/', 'a', '/', 'b', '/', '1', 0, 1,  3,
                               'z', '/', 'q', 1,   5,   1,   '2', 1,   3,   1, 'r'};
  EXPECT_EQ(blob, want);
  std::vector<std::string> strs(in.begin(), in.end());
  std::vector<std::string> out;
  ASSERT_TRUE(front_decode(blob, in.size(), out).is_ok());
  EXPECT_EQ(out, strs);
  // Beyond the window, a string is not a reference.
  std::vector<std::string> far = {"/far/away/x"};
  for (size_t i = 0; i < kFrontCodingWindow; ++i) far.push_back("/n" + std::to_string(i));
  far.push_back("/far/away/y");
  std::vector<std::string_view> views(far.begin(), far.end());
  front_code(views, blob);
  std::vector<uint8_t> tail = {0, 1, 10, 'f', 'a', 'r', '/', 'a', 'w', 'a', 'y', '/', 'y'};
  ASSERT_GE(blob.size(), tail.size());
  EXPECT_EQ(std::vector<uint8_t>(blob.end() - static_cast<long>(tail.size()), blob.end()), tail)
      << "only \"/\" shared, with the nearest string";
  out.clear();
  ASSERT_TRUE(front_decode(blob, far.size(), out).is_ok());
  EXPECT_EQ(out, far);
}

TEST(StringCoding, RoundTripsEdgeCases) {
  std::string binary("\xff\xfe\0\x80/\0\xc3(", 8);  // NULs, invalid UTF-8
  std::string longs(100000, 'a');
  longs[50000] = 'b';
  std::vector<std::string> in = {
      "",  // empty first
      "",  // empty after empty
      "/home/u/repo/dir1/file1.c",
      "/home/u/repo/dir1/file1.c.o",  // extends the previous one
      "/home/u/repo/dir1/file1.c",    // a full prefix of the previous one (rest empty)
      "/home/u/repo/dir1/file1.c",    // equal to the previous one
      "zzz",                          // no shared prefix
      "",                             // empty in the middle
      binary,
      binary + binary,
      longs,
      longs + "tail",
      std::string(300, '\0'),  // rest lengths over one varint byte
      "/",
  };
  EXPECT_EQ(round_trip(in), in);
  EXPECT_TRUE(round_trip({}).empty());
  EXPECT_EQ(sorted_round_trip(in), in);
  EXPECT_TRUE(sorted_round_trip({}).empty());
}

TEST(StringCoding, SharedPrefixesShrinkTheBlob) {
  std::vector<std::string> in;
  for (int i = 0; i < 100; ++i) in.push_back("/home/u/repo/src/module/file" + std::to_string(i) + ".c");
  std::vector<std::string_view> views(in.begin(), in.end());
  std::vector<uint8_t> blob;
  front_code(views, blob);
  size_t raw = 0;
  for (auto& s : in) raw += s.size();
  EXPECT_LT(blob.size() * 4, raw) << "each string stores only what differs from the previous one";
  EXPECT_EQ(round_trip(in), in);
}

// Every way a blob can lie gives an error and leaves the table as it was.
void expect_rejected(const std::vector<uint8_t>& blob, uint64_t count, const std::string& why) {
  std::vector<std::string> table{"", "/kept"};
  Status st = front_decode(blob, count, table);
  EXPECT_FALSE(st.is_ok()) << why;
  EXPECT_EQ(table, (std::vector<std::string>{"", "/kept"})) << why;
}

TEST(StringCoding, CorruptBlobsAreRejected) {
  std::vector<std::string_view> in = {"/a/b", "/a/cd", std::string_view("x\0y", 3)};
  std::vector<uint8_t> good;
  front_code(in, good);
  for (size_t cut = 0; cut < good.size(); ++cut)
    expect_rejected({good.begin(), good.begin() + static_cast<long>(cut)}, 3, "cut at " + std::to_string(cut));
  expect_rejected(good, 2, "bytes left over");
  expect_rejected(good, 4, "one string too many claimed");
  expect_rejected(good, 1u << 30, "a count the blob cannot hold");
  expect_rejected({0, 0, 1, 'a', 0, 2, 0}, 2, "prefix longer than its reference");
  expect_rejected({0, 1, 0}, 1, "first string shares a prefix with nothing");
  expect_rejected({0, 0, 1, 'a', 1, 1, 0}, 2, "reference before the block");
  expect_rejected({0, 0, 1, 'a', 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 1, 0}, 2, "reference beyond 2^32");
  expect_rejected({0, 0, 0xff, 0xff, 0xff, 0xff, 0x7f}, 1, "rest length beyond 2^32");
  expect_rejected({0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 1, "overlong varint");
  expect_rejected({0, 0, 5, 'a', 'b'}, 1, "rest runs past the block");
  std::vector<uint8_t> ok = {0, 0, 1, 'a'};
  std::vector<std::string> table{""};
  EXPECT_TRUE(front_decode(ok, 1, table).is_ok());
  EXPECT_EQ(table.back(), "a");
}

// A short blob may not expand without bound: one 64 KiB string repeated by
// 5-byte entries would decode to 68 MB from 70 KB. Refused before decoding.
TEST(StringCoding, DecodedSizeIsBounded) {
  std::vector<uint8_t> blob = {0, 0, 0x80, 0x80, 0x04};  // p = 0, n = 65536
  blob.insert(blob.end(), 65536, 'x');
  const uint64_t repeats = kMaxStringBlockBytes / 65536 + 10;
  for (uint64_t i = 0; i < repeats; ++i) blob.insert(blob.end(), {0, 0x80, 0x80, 0x04, 0});  // p = 65536, n = 0
  std::vector<std::string> table{""};
  Status st = front_decode(blob, repeats + 1, table);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("more than"), std::string::npos) << st.message();
  EXPECT_EQ(table.size(), 1u);
}

TEST(StringCoding, SortedFormIsOrderPrefixSuffixLengthSuffix) {
  const auto c = sorted_columns({"/a/c", "/a/b", "x"});  // sorted: ids 1, 0, 2
  EXPECT_EQ(c.order, (std::vector<uint64_t>{zigzag(1), zigzag(-2), zigzag(1)}));
  EXPECT_EQ(c.prefix, (std::vector<uint64_t>{0, 3, 0}));
  EXPECT_EQ(c.suffix_length, (std::vector<uint64_t>{4, 1, 1}));
  EXPECT_EQ(std::string(c.suffix.begin(), c.suffix.end()), "/a/bcx");
}

// Two threads walking two directories, interleaved: in sorted order each
// walk comes out whole, every string after a directory's first sharing the
// directory with the one before.
TEST(StringCoding, SortedCodingUndoesTheInterleaving) {
  std::vector<std::string> in;
  for (int i = 0; i < 40; ++i) {
    in.push_back("/repo/dir14/f" + std::to_string(i) + ".txt");
    if (i % 3 != 1) in.push_back("/repo/dir28/f" + std::to_string(i) + ".txt");
  }
  const auto c = sorted_columns(in);
  size_t short_prefixes = 0;
  for (uint64_t p : c.prefix) short_prefixes += p < std::string("/repo/dir14/f").size();
  EXPECT_EQ(short_prefixes, 2u) << "only the first string of each directory";
  EXPECT_EQ(sorted_round_trip(in), in);
}

// Every way sorted columns can lie gives an error and leaves the table as it was.
void expect_sorted_rejected(const SortedColumns& c, const std::string& why) {
  std::vector<std::string> table{"", "/kept"};
  Status st = sorted_decode(c, table);
  EXPECT_FALSE(st.is_ok()) << why;
  EXPECT_EQ(table, (std::vector<std::string>{"", "/kept"})) << why;
}

TEST(StringCoding, CorruptSortedColumnsAreRejected) {
  const auto good = sorted_columns({"/a/b", "/a/cd", std::string("x\0y", 3)});
  std::vector<std::string> table{""};
  ASSERT_TRUE(sorted_decode(good, table).is_ok());
  auto c = good;
  c.order[1] = zigzag(-1);  // index 0 twice
  expect_sorted_rejected(c, "not a permutation");
  c = good;
  c.order[2] = zigzag(1);  // index 3 of 3
  expect_sorted_rejected(c, "index past the block");
  c = good;
  c.order[0] = zigzag(-2);
  expect_sorted_rejected(c, "index before the block");
  c = good;
  c.order[0] = ~uint64_t{0};
  expect_sorted_rejected(c, "step beyond int64");
  c = good;
  c.prefix[0] = 1;
  expect_sorted_rejected(c, "the first string shares a prefix with nothing");
  c = good;
  c.prefix[1] = 5;
  expect_sorted_rejected(c, "prefix longer than the string before");
  c = good;
  c.suffix.pop_back();
  expect_sorted_rejected(c, "suffix column cut short");
  c = good;
  c.suffix.push_back('z');
  expect_sorted_rejected(c, "suffix bytes left over");
  c = good;
  c.suffix_length[2] = ~uint64_t{0};
  expect_sorted_rejected(c, "suffix length beyond the column");
  c = good;
  c.prefix.pop_back();
  expect_sorted_rejected(c, "columns of different lengths");
  // One 64 KiB string repeated by entries of p = 65536: bounded like front coding.
  c = {};
  const uint64_t repeats = kMaxStringBlockBytes / 65536 + 10;
  for (uint64_t i = 0; i <= repeats; ++i) {
    c.order.push_back(0);
    c.prefix.push_back(i == 0 ? 0 : 65536);
    c.suffix_length.push_back(i == 0 ? 65536 : 0);
  }
  c.suffix.assign(65536, 'x');
  expect_sorted_rejected(c, "decodes to more than the limit");
}

// Blocks as written before front coding (a List(Data)) still decode, and a
// block that holds both forms is malformed.
std::vector<uint64_t> list_block(uint32_t first, const std::vector<std::string>& strs, bool also_front) {
  capnp::MallocMessageBuilder mb;
  auto w = mb.initRoot<wire::StringBlock>();
  w.setFirstId(first);
  auto list = w.initStrings(static_cast<unsigned>(strs.size()));
  for (size_t i = 0; i < strs.size(); ++i)
    list.set(i, kj::arrayPtr(reinterpret_cast<const kj::byte*>(strs[i].data()), strs[i].size()));
  if (also_front) {
    uint8_t blob[] = {0, 0, 1, 'q'};
    w.setCount(1);
    w.setFrontCoded(kj::arrayPtr(blob, 4));
  }
  auto words = capnp::messageToFlatArray(mb);
  std::vector<uint64_t> out(words.size());
  std::memcpy(out.data(), words.begin(), words.size() * sizeof(capnp::word));
  return out;
}
std::span<const capnp::word> as_words(const std::vector<uint64_t>& v) {
  return {reinterpret_cast<const capnp::word*>(v.data()), v.size()};
}

TEST(StringCoding, OldListBlocksStillDecode) {
  Decompressor z;
  std::vector<std::string> strs = {"/x", std::string("\xff\0", 2), ""};
  auto msg = list_block(1, strs, false);
  std::vector<std::string> table{""};
  ASSERT_TRUE(decode_strings(as_words(msg), z, table).is_ok());
  EXPECT_EQ(table, (std::vector<std::string>{"", "/x", std::string("\xff\0", 2), ""}));
  auto both = list_block(1, strs, true);
  table = {""};
  Status st = decode_strings(as_words(both), z, table);
  EXPECT_FALSE(st.is_ok());
  EXPECT_EQ(table.size(), 1u);
}

// A block as today's writer stores it (sorted coding), as message words.
std::vector<uint64_t> sorted_block(uint32_t first, const std::vector<std::string_view>& strs) {
  std::vector<uint8_t> bytes;
  Compressor c(1);
  encode_strings(first, strs, c, bytes);
  std::vector<uint64_t> msg(bytes.size() / 8);
  std::memcpy(msg.data(), bytes.data(), bytes.size());
  return msg;
}

TEST(StringCoding, NewBlocksRoundTripThroughTheMessage) {
  const auto msg = sorted_block(1, {"/home/b", "/home/a", ""});
  Decompressor z;
  std::vector<std::string> table{""};
  ASSERT_TRUE(decode_strings(as_words(msg), z, table).is_ok());
  EXPECT_EQ(table, (std::vector<std::string>{"", "/home/b", "/home/a", ""}));
  table = {"", "/home/b", "/home/a", ""};
  ASSERT_TRUE(decode_strings(as_words(msg), z, table).is_ok()) << "a block already loaded is skipped";
  EXPECT_EQ(table.size(), 4u);
  table = {"", "x"};
  Status st = decode_strings(as_words(msg), z, table);
  EXPECT_FALSE(st.is_ok()) << "a block that does not continue the table";
  EXPECT_NE(st.message().find("an earlier string block is missing"), std::string::npos) << st.message();
}

TEST(StringCoding, ABlockOfEmptyStringsIsStillSortedCoded) {
  const auto msg = sorted_block(1, {"", ""});
  Decompressor z;
  std::vector<std::string> table{""};
  ASSERT_TRUE(decode_strings(as_words(msg), z, table).is_ok());
  EXPECT_EQ(table, (std::vector<std::string>{"", "", ""}));
}

TEST(StringCoding, ABlockWithSortedAndFrontCodedStringsIsMalformed) {
  const auto msg = sorted_block(1, {"/b", "/a"});
  Decompressor z;
  const auto words = as_words(msg);
  capnp::FlatArrayMessageReader in(kj::arrayPtr(words.data(), words.size()));
  capnp::MallocMessageBuilder mb;
  mb.setRoot(in.getRoot<wire::StringBlock>());
  uint8_t blob[] = {0, 0, 2, '/', 'b', 0, 1, 1, 'a'};
  mb.getRoot<wire::StringBlock>().setFrontCoded(kj::arrayPtr(blob, sizeof blob));
  auto flat = capnp::messageToFlatArray(mb);
  std::vector<std::string> table{""};
  Status st = decode_strings({flat.begin(), flat.size()}, z, table);
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("more than one coding"), std::string::npos) << st.message();
  EXPECT_EQ(table.size(), 1u);
}

}  // namespace
}  // namespace fsr

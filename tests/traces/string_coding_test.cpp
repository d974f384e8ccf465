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
  std::vector<uint8_t> want = {0, 0, 6, '/', 'a', '/', 'b', '/', '1', 0, 1, 3, 'z', '/', 'q',
                               1, 5, 1, '2', 1, 3, 1, 'r'};
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
      "",                                 // empty first
      "",                                 // empty after empty
      "/home/u/repo/dir1/file1.c",
      "/home/u/repo/dir1/file1.c.o",      // extends the previous one
      "/home/u/repo/dir1/file1.c",        // a full prefix of the previous one (rest empty)
      "/home/u/repo/dir1/file1.c",        // equal to the previous one
      "zzz",                              // no shared prefix
      "",                                 // empty in the middle
      binary,
      binary + binary,
      longs,
      longs + "tail",
      std::string(300, '\0'),             // rest lengths over one varint byte
      "/",
  };
  EXPECT_EQ(round_trip(in), in);
  EXPECT_TRUE(round_trip({}).empty());
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
  std::vector<std::string> strs = {"/x", std::string("\xff\0", 2), ""};
  auto msg = list_block(1, strs, false);
  std::vector<std::string> table{""};
  ASSERT_TRUE(decode_strings(as_words(msg), table).is_ok());
  EXPECT_EQ(table, (std::vector<std::string>{"", "/x", std::string("\xff\0", 2), ""}));
  auto both = list_block(1, strs, true);
  table = {""};
  Status st = decode_strings(as_words(both), table);
  EXPECT_FALSE(st.is_ok());
  EXPECT_EQ(table.size(), 1u);
}

TEST(StringCoding, NewBlocksRoundTripThroughTheMessage) {
  std::vector<std::string_view> strs = {"/home/a", "/home/b", ""};
  std::vector<uint8_t> bytes;
  encode_strings(1, strs, bytes);
  std::vector<uint64_t> msg(bytes.size() / 8);
  std::memcpy(msg.data(), bytes.data(), bytes.size());
  std::vector<std::string> table{""};
  ASSERT_TRUE(decode_strings(as_words(msg), table).is_ok());
  EXPECT_EQ(table, (std::vector<std::string>{"", "/home/a", "/home/b", ""}));
  table = {"", "/home/a", "/home/b", ""};
  ASSERT_TRUE(decode_strings(as_words(msg), table).is_ok()) << "a block already loaded is skipped";
  EXPECT_EQ(table.size(), 4u);
  table = {"", "x"};
  Status st = decode_strings(as_words(msg), table);
  EXPECT_FALSE(st.is_ok()) << "a block that does not continue the table";
  EXPECT_NE(st.message().find("an earlier string block is missing"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace fsr

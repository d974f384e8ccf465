// SPDX-License-Identifier: Apache-2.0
// parse_record on hand-made records: every optional section in its place,
// absent sections take no bytes, and a record that is shorter than its header
// says is refused rather than read past.
#include "recorder/core/record_view.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "tests/recorder/record_bytes.h"

namespace fsr {
namespace {

using test::record_bytes;

constexpr uint64_t kArgs[6] = {11, 22, 33, 44, 55, 66};
constexpr fsr_inode kInode = {0x801, 4242, 1234, 0100644, 0};

fsr_rec header(uint8_t arg_mask, uint16_t flags) {
  fsr_rec h{};
  h.ts = 5;
  h.end = 7;
  h.ret = -2;
  h.pid = 100;
  h.tid = 101;
  h.nr = 257;
  h.kind = FSR_REC_SYSCALL;
  h.arg_mask = arg_mask;
  h.flags = flags;
  return h;
}

TEST(RecordView, ArgumentsReturnToTheirSlotsOthersAreZero) {
  std::vector<char> b = record_bytes(header(0b101010, 0), kArgs, kInode);
  EXPECT_EQ(b.size(), sizeof(fsr_rec) + 3 * 8) << "only the masked arguments take bytes";
  RecordView v;
  ASSERT_TRUE(parse_record(b.data(), b.size(), v));
  const uint64_t want[6] = {0, 22, 0, 44, 0, 66};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(v.args[i], want[i]) << "arg " << i;
  EXPECT_EQ(v.hdr.ts, 5u);
  EXPECT_EQ(v.hdr.end, 7u);
  EXPECT_EQ(v.hdr.ret, -2);
  EXPECT_EQ(v.hdr.tid, 101u);
  EXPECT_EQ(v.inode.ino, 0u) << "no inode section without FSR_RF_HAS_INODE";
}

TEST(RecordView, InodeSectionFollowsTheArgumentsOnlyWhenFlagged) {
  for (uint16_t flags : {uint16_t{0}, uint16_t{FSR_RF_HAS_INODE}}) {
    std::vector<char> b = record_bytes(header(0b11, flags), kArgs, kInode, "/a/b", std::string("x\0y\0", 4));
    RecordView v;
    ASSERT_TRUE(parse_record(b.data(), b.size(), v));
    EXPECT_EQ(v.args[0], 11u);
    EXPECT_EQ(v.args[1], 22u);
    const bool has = flags != 0;
    EXPECT_EQ(v.inode.dev, has ? 0x801u : 0u);
    EXPECT_EQ(v.inode.ino, has ? 4242u : 0u);
    EXPECT_EQ(v.inode.size, has ? 1234u : 0u);
    EXPECT_EQ(v.inode.mode, has ? 0100644u : 0u);
    ASSERT_EQ(v.hdr.len0, 5u);
    EXPECT_EQ(std::string(v.strings, v.hdr.len0), std::string("/a/b\0", 5));
    EXPECT_EQ(std::string(v.strings + v.hdr.len0, v.len1), std::string("x\0y\0", 4)) << "path1 is the rest";
  }
}

TEST(RecordView, NoSectionsIsJustTheHeader) {
  std::vector<char> b = record_bytes(header(0, 0), kArgs, kInode);
  EXPECT_EQ(b.size(), size_t{FSR_REC_SIZE});
  RecordView v;
  ASSERT_TRUE(parse_record(b.data(), b.size(), v));
  for (uint64_t a : v.args) EXPECT_EQ(a, 0u);
  EXPECT_EQ(v.hdr.len0, 0u);
  EXPECT_EQ(v.len1, 0u);
}

TEST(RecordView, RecordShorterThanItsSectionsIsRefused) {
  std::vector<char> b = record_bytes(header(0b1001, FSR_RF_HAS_INODE), kArgs, kInode, "/p");
  const size_t full = b.size();
  RecordView v;
  ASSERT_TRUE(parse_record(b.data(), full, v));
  // Every cut through the header, the arguments, the inode facts or path0.
  for (size_t n = 0; n < full; ++n) EXPECT_FALSE(parse_record(b.data(), n, v)) << "size " << n;
}

TEST(RecordView, MaskBitsPastTheLastArgumentAreRefused) {
  std::vector<char> b = record_bytes(header(0x40, 0), kArgs, kInode);
  b.resize(b.size() + 8);
  RecordView v;
  EXPECT_FALSE(parse_record(b.data(), b.size(), v));
}

TEST(RecordView, ParsesAtAnyAlignment) {
  std::vector<char> b = record_bytes(header(0b1, FSR_RF_HAS_INODE), kArgs, kInode, "/q");
  std::vector<char> shifted(b.size() + 3);
  std::memcpy(shifted.data() + 3, b.data(), b.size());
  RecordView v;
  ASSERT_TRUE(parse_record(shifted.data() + 3, b.size(), v));
  EXPECT_EQ(v.args[0], 11u);
  EXPECT_EQ(v.inode.ino, 4242u);
}

}  // namespace
}  // namespace fsr

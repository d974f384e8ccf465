// The reading side of a lane (recorder/lane_reader.h) against a writer that
// follows the protocol of bpf/fsreplay_record.h: frames in order, a frame
// never crossing a segment's end, the lane's wrap, the rewind, and damage.
#include "recorder/lane_reader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace fsr {
namespace {

// A lane in memory and a writer that places frames the way the BPF side does.
struct TestLane {
  explicit TestLane(uint32_t segs) : mem(static_cast<size_t>(segs) << FSR_SEG_SHIFT), mask(segs - 1) {}
  std::vector<uint8_t> mem;
  uint64_t mask;
  uint64_t head = 0, tail = 0, floor = 0, rewind_from = 0;

  uint64_t capacity() const { return (mask + 1) << FSR_SEG_SHIFT; }
  uint8_t* at(uint64_t pos) {
    return mem.data() + (((pos >> FSR_SEG_SHIFT) & mask) << FSR_SEG_SHIFT) + (pos & (FSR_SEG_SIZE - 1));
  }
  // A record of `len` bytes filled with `fill`; false if it would not fit.
  bool write(uint32_t len, uint8_t fill, bool allow_rewind = true) {
    uint64_t h = fsr_frame_at(head);
    if (allow_rewind && tail == head && (h & (capacity() - 1)) != 0) {
      rewind_from = tail;
      h = fsr_rewind_to(h, capacity());
      floor = h;
    }
    const uint64_t next = h + fsr_frame_size(len);
    if (next - std::max(tail, floor) > capacity()) return false;
    const uint64_t l = len;
    std::memcpy(at(h), &l, 8);
    std::memset(at(h) + FSR_FRAME_HDR, fill, len);
    head = next;
    return true;
  }
  // Reads everything; returns (length, fill) of each record.
  std::vector<std::pair<size_t, uint8_t>> read(bool* damaged = nullptr) {
    std::vector<std::pair<size_t, uint8_t>> out;
    LaneView v{mem.data(), mask, rewind_from, floor};
    uint64_t last_next = tail;
    bool dmg = false;
    tail = read_lane(
        v, tail, head,
        [&](const void* rec, size_t size, uint64_t next) {
          const auto* p = static_cast<const uint8_t*>(rec);
          bool uniform = true;
          for (size_t i = 0; i < size; ++i) uniform = uniform && p[i] == p[0];
          EXPECT_TRUE(uniform) << "record torn";
          // `next` is past the frame: the record lies below it, and the lane
          // may be freed up to it (the recorder's zero-copy merge relies on it).
          EXPECT_GT(next, last_next);
          EXPECT_LE(reinterpret_cast<uintptr_t>(p) + size,
                    reinterpret_cast<uintptr_t>(at(next - 1)) + 1) << "record beyond its `next`";
          last_next = next;
          out.emplace_back(size, size ? p[0] : 0);
        },
        &dmg);
    if (!dmg && !out.empty()) {
      EXPECT_EQ(last_next, tail) << "the last frame's next is where reading stopped";
    }
    if (damaged) *damaged = dmg;
    return out;
  }
};

TEST(LaneReader, EmptyLaneGivesNothing) {
  TestLane l(1);
  EXPECT_TRUE(l.read().empty());
  EXPECT_EQ(l.tail, 0u);
}

TEST(LaneReader, FramesComeBackInOrderWithTheirLengths) {
  TestLane l(1);
  for (uint8_t i = 1; i <= 50; ++i) ASSERT_TRUE(l.write(40 + i, i));
  auto got = l.read();
  ASSERT_EQ(got.size(), 50u);
  for (uint8_t i = 1; i <= 50; ++i) EXPECT_EQ(got[i - 1], std::make_pair(size_t{40u + i}, i));
  EXPECT_EQ(l.tail, l.head);
}

TEST(LaneReader, AFrameNeverCrossesASegmentEnd) {
  TestLane l(2);
  // Fill the first segment to just past where the largest frame still fits.
  const uint32_t big = 4000;
  std::vector<std::pair<size_t, uint8_t>> want;
  uint8_t n = 0;
  while (l.head < FSR_SEG_SIZE - FSR_FRAME_MAX + 1) {
    ASSERT_TRUE(l.write(big, ++n, false));
    want.emplace_back(big, n);
  }
  ASSERT_TRUE(l.write(FSR_REC_MAX, ++n, false));  // placed at the second segment
  want.emplace_back(FSR_REC_MAX, n);
  EXPECT_GE(l.head, uint64_t{FSR_SEG_SIZE} + FSR_FRAME_HDR + FSR_REC_MAX);
  EXPECT_EQ(l.read(), want);
}

TEST(LaneReader, PositionsWrapAroundTheLane) {
  TestLane l(2);
  uint8_t n = 0;
  // Several laps, reading after every few records, never letting the lane empty
  // (which would rewind).
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::pair<size_t, uint8_t>> want;
    for (int k = 0; k < 3; ++k) {
      ASSERT_TRUE(l.write(3000 + k, ++n, false));
      want.emplace_back(3000 + k, n);
    }
    auto got = l.read();
    ASSERT_EQ(got, want) << "round " << round;
  }
  EXPECT_GT(l.head, 4 * l.capacity());
}

TEST(LaneReader, AFullLaneRefusesAndFreesWhenRead) {
  TestLane l(1);
  size_t written = 0;
  while (l.write(1000, 7)) ++written;
  EXPECT_GT(written, 900u);
  EXPECT_EQ(l.read().size(), written);
  EXPECT_TRUE(l.write(1000, 8));
}

TEST(LaneReader, AReaderAtTheRewindContinuesAtTheFloor) {
  TestLane l(4);
  ASSERT_TRUE(l.write(100, 1));
  ASSERT_TRUE(l.write(100, 2));
  ASSERT_EQ(l.read().size(), 2u);
  // Empty and away from the first byte: the next write rewinds to the lane's
  // start, reusing the space of the records just read.
  ASSERT_TRUE(l.write(64, 3));
  EXPECT_EQ(l.floor, l.capacity());
  EXPECT_EQ(l.rewind_from, l.tail);
  ASSERT_TRUE(l.write(64, 4));
  auto got = l.read();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], std::make_pair(size_t{64}, uint8_t{3}));
  EXPECT_EQ(got[1], std::make_pair(size_t{64}, uint8_t{4}));
  // The space check counts from the floor: a whole lane fits after a rewind.
  size_t n = 0;
  while (l.write(4000, 5)) ++n;
  EXPECT_GT(n, (l.capacity() - 2 * FSR_SEG_SIZE) / 4008);
}

TEST(LaneReader, WithoutTheRewindSlotTheReaderWouldReadTheOverwrittenSpace) {
  // The rewound writer overwrites the bytes at rewind_from: the reader must
  // take the jump from the control block, not from anything in the lane.
  TestLane l(1);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(l.write(48, 1));
  l.read();
  ASSERT_TRUE(l.write(16, 9));  // rewinds to the start: frame at position capacity
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(l.write(16, 9));
  LaneView v{l.mem.data(), l.mask, 0, 0};  // as if the slot were not read
  bool damaged = false;
  size_t n = 0;
  read_lane(v, l.tail, l.head, [&](const void*, size_t, uint64_t) { ++n; }, &damaged);
  EXPECT_TRUE(damaged || n != 21u);
  EXPECT_EQ(l.read().size(), 21u);
}

TEST(LaneReader, AnImpossibleLengthStopsTheWalkAndIsReported) {
  TestLane l(1);
  ASSERT_TRUE(l.write(64, 1));
  ASSERT_TRUE(l.write(64, 2));
  const uint64_t bad = FSR_REC_MAX + 8;
  std::memcpy(l.at(FSR_FRAME_HDR + 64), &bad, 8);  // the second frame's length
  bool damaged = false;
  auto got = l.read(&damaged);
  EXPECT_TRUE(damaged);
  EXPECT_EQ(got.size(), 1u);
  EXPECT_EQ(l.tail, l.head);  // the rest is skipped, never read past head
}

}  // namespace
}  // namespace fsr

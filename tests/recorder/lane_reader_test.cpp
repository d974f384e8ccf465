// SPDX-License-Identifier: Apache-2.0
// The reading side of a lane (recorder/core/lane_reader.h) against a writer that
// follows the protocol of bpf/fsreplay_record.h: frames in order, a frame
// never crossing a segment's end, the lane's wrap, the rewind, and damage.
#include "recorder/core/lane_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <random>
#include <vector>

namespace fsr {
namespace {

// A lane in memory and a writer that places frames the way the BPF side does
// (fsr_plan_frame, the rule lane_open applies). The reader's position (`pos`)
// and what it has freed (`tail`) are apart, as in the recorder, whose merge
// holds the newest records back.
struct TestLane {
  explicit TestLane(uint32_t segs, uint64_t early_window = 0, uint64_t min_cycle_ns = 0)
      : mem(static_cast<size_t>(segs) << FSR_SEG_SHIFT),
        mask(segs - 1),
        window(early_window),
        min_cycle(min_cycle_ns) {}
  std::vector<uint8_t> mem;
  uint64_t mask;
  uint64_t window;     // early rewind threshold, 0: only empty lanes rewind
  uint64_t min_cycle;  // least ns the lap so far must have taken for an early rewind
  uint64_t head = 0, tail = 0, pos = 0, floor = 0, rewind_from = 0, lap_ns = 0;
  uint64_t now = 0;  // the writer's clock: the test moves it
  uint64_t early_rewinds = 0;

  uint64_t capacity() const { return (mask + 1) << FSR_SEG_SHIFT; }
  uint8_t* at(uint64_t p) {
    return mem.data() + (((p >> FSR_SEG_SHIFT) & mask) << FSR_SEG_SHIFT) + (p & (FSR_SEG_SIZE - 1));
  }
  // A record of `len` bytes filled with `fill`; false if it would not fit.
  bool write(uint32_t len, uint8_t fill, bool allow_rewind = true) {
    fsr_lane_plan plan = fsr_plan_frame(head, tail, floor, rewind_from, capacity(), {window, min_cycle, now, lap_ns});
    if (!allow_rewind && plan.rewind) plan = {fsr_frame_at(head), fsr_space_from(tail, floor, rewind_from), 0, 0};
    const uint64_t next = plan.start + fsr_frame_size(len);
    if (next - plan.space_from > capacity()) return false;  // the writer touches nothing
    if (plan.rewind) {
      rewind_from = head;
      floor = plan.start;
      if (plan.rewind == 2) ++early_rewinds;
    }
    if (plan.new_lap) lap_ns = now;
    const uint64_t l = len;
    std::memcpy(at(plan.start), &l, 8);
    std::memset(at(plan.start) + FSR_FRAME_HDR, fill, len);
    head = next;
    return true;
  }
  // Reads every frame not read yet: (length, fill) of each record and the
  // position past it. Frees nothing.
  std::vector<std::pair<std::pair<size_t, uint8_t>, uint64_t>> read_on(bool* damaged = nullptr) {
    std::vector<std::pair<std::pair<size_t, uint8_t>, uint64_t>> out;
    LaneView v{mem.data(), mask, rewind_from, floor};
    uint64_t last_next = pos;
    bool dmg = false;
    pos = read_lane(
        v, pos, head,
        [&](const void* rec, size_t size, uint64_t next) {
          const auto* p = static_cast<const uint8_t*>(rec);
          bool uniform = true;
          for (size_t i = 0; i < size; ++i) uniform = uniform && p[i] == p[0];
          EXPECT_TRUE(uniform) << "record torn";
          // `next` is past the frame: the record lies below it, and the lane
          // may be freed up to it (the recorder's zero-copy merge relies on it).
          EXPECT_GT(next, last_next);
          EXPECT_LE(reinterpret_cast<uintptr_t>(p) + size, reinterpret_cast<uintptr_t>(at(next - 1)) + 1)
              << "record beyond its `next`";
          last_next = next;
          out.push_back({{size, size ? p[0] : 0}, next});
        },
        &dmg);
    if (!dmg && !out.empty()) {
      EXPECT_EQ(last_next, pos) << "the last frame's next is where reading stopped";
    }
    if (damaged) *damaged = dmg;
    return out;
  }
  // Reads everything and frees it; returns (length, fill) of each record.
  std::vector<std::pair<size_t, uint8_t>> read(bool* damaged = nullptr) {
    std::vector<std::pair<size_t, uint8_t>> out;
    for (auto& r : read_on(damaged)) out.push_back(r.first);
    tail = pos;
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
  read_lane(
      v, l.tail, l.head, [&](const void*, size_t, uint64_t) { ++n; }, &damaged);
  EXPECT_TRUE(damaged || n != 21u);
  EXPECT_EQ(l.read().size(), 21u);
}

// The early rewind (bpf/fsreplay_record.h): a lane the reader keeps up with
// goes back to its start although it is never empty, so its writes stay in
// the first window's worth of memory; every record still comes back, in
// order and intact, through many laps of a reader that holds the newest
// records back the way the recorder's merge does.
TEST(LaneReader, ABusyLaneKeptUpWithRewindsEarlyAndLosesNothing) {
  const uint64_t window = 256 << 10;
  TestLane l(4, window, 10'000'000);
  std::mt19937 rng(7);
  uint8_t fill = 0;
  std::deque<std::pair<size_t, uint8_t>> want;
  std::deque<uint64_t> held;  // `next` of every record read and not freed yet
  uint64_t highest = 0, written = 0;
  for (int step = 0; step < 20000; ++step) {
    const int k = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < k; ++i) {
      const uint32_t len = 48 + rng() % 2000;
      if (++fill == 0) fill = 1;
      l.now += 100'000;  // 10,000 records/s: a 256 KiB window lasts ~25 ms
      ASSERT_TRUE(l.write(len, fill)) << "step " << step << ": a lane kept up with refused a record";
      want.emplace_back(len, fill);
      ++written;
      highest = std::max(highest, (l.head - 1) & (l.capacity() - 1));
    }
    for (auto& [rec, next] : l.read_on()) {
      ASSERT_FALSE(want.empty());
      ASSERT_EQ(rec, want.front()) << "step " << step;
      want.pop_front();
      held.push_back(next);
    }
    // Free all but the newest few, as the merge does: never all, so the lane
    // is never empty and never rewinds the old way.
    const size_t keep = 1 + rng() % 5;
    while (held.size() > keep) {
      l.tail = held.front();
      held.pop_front();
    }
  }
  EXPECT_TRUE(want.empty());
  EXPECT_GT(l.early_rewinds, 100u) << "the lane never rewound early: it was walked end to end";
  EXPECT_GT(l.head, 20 * l.capacity()) << "positions kept growing through many laps";
  // Written only below window + window/2 of backlog + the largest frame.
  EXPECT_LT(highest, window + window / 2 + FSR_FRAME_MAX) << written << " records";
}

// After an early rewind only the lane's start, up to the reader's tail, is
// free until the reader takes the jump: a writer the reader no longer keeps
// up with is refused there (a counted drop), never let over unread records;
// once the reader has read and freed past the jump, the whole lane is free.
TEST(LaneReader, AfterAnEarlyRewindTheUnreadRecordsAreNeverOverwritten) {
  const uint64_t window = 256 << 10;
  TestLane l(4, window, 1000);
  l.now = 1'000'000;
  uint8_t fill = 0;
  // Up to just past the window, read and freed but the last record.
  std::vector<uint64_t> nexts;
  while (l.tail < window) {
    l.now += 1000;
    ASSERT_TRUE(l.write(1000, ++fill));
    for (auto& r : l.read_on()) nexts.push_back(r.second);
    if (nexts.size() > 1) l.tail = nexts[nexts.size() - 2];
  }
  const uint64_t unread_from = l.tail, rewinds = l.early_rewinds;
  ASSERT_TRUE(l.write(1000, ++fill));
  ASSERT_EQ(l.early_rewinds, rewinds + 1) << "kept up with, past the window: rewinds";
  EXPECT_EQ(l.floor, l.capacity());
  EXPECT_EQ(l.head, l.capacity() + fsr_frame_size(1000));
  // The reader stops freeing: the writer fills the start up to the tail.
  size_t after = 1;
  while (l.write(1000, ++fill)) ++after;
  EXPECT_LE(l.head, unread_from + l.capacity()) << "wrote over unread records";
  EXPECT_GT(l.head + fsr_frame_size(1000), unread_from + l.capacity());
  EXPECT_GE(after, window / fsr_frame_size(1000) - 1);
  // Everything comes back: the unread record before the jump, then the rest.
  l.pos = unread_from;
  auto got = l.read();
  ASSERT_EQ(got.size(), after + 1);
  for (size_t i = 1; i < got.size(); ++i) EXPECT_EQ(static_cast<uint8_t>(got[i].second - got[i - 1].second), 1) << i;
  // Past the jump the lane's whole capacity counts again.
  size_t more = 0;
  while (l.write(4000, 5)) ++more;
  EXPECT_GT(more * 4008, l.capacity() - l.capacity() / 4);
}

// A storm's lane, kept up with but filled fast, never rewinds early: the
// room an early rewind leaves would last less than the least cycle.
TEST(LaneReader, AFastFilledLaneDoesNotRewindEarly) {
  const uint64_t window = 256 << 10;
  TestLane l(4, window, 10'000'000);
  std::deque<uint64_t> held;
  uint64_t highest = 0;
  for (int i = 0; i < 20000; ++i) {
    l.now += 2'000;  // 500,000 records/s of ~1 KB: the window fills in ~0.5 ms
    ASSERT_TRUE(l.write(1000, static_cast<uint8_t>(1 + i % 250)));
    highest = std::max(highest, (l.head - 1) & (l.capacity() - 1));
    for (auto& r : l.read_on()) held.push_back(r.second);
    while (held.size() > 2) {
      l.tail = held.front();
      held.pop_front();
    }
  }
  EXPECT_EQ(l.early_rewinds, 0u);
  EXPECT_GT(highest, l.capacity() - FSR_FRAME_MAX) << "the whole lane is used, lap after lap";
}

TEST(LaneReader, NoEarlyRewindWhileTheReaderLagsOrBeforeItPassedTheLastOne) {
  const uint64_t cap = 4u << FSR_SEG_SHIFT, w = 256 << 10;
  const fsr_lane_early on{w, 1000, 5000, 0}, off{0, 1000, 5000, 0};
  // Kept up with, past the window: rewinds to the next lap's start.
  fsr_lane_plan p = fsr_plan_frame(w + 4096, w + 1024, 0, 0, cap, on);
  EXPECT_EQ(p.rewind, 2u) << "an early rewind";
  EXPECT_EQ(p.start, cap);
  EXPECT_EQ(p.space_from, w + 1024) << "free space counts from the tail until the reader jumps";
  // The tail not yet a window into the lap.
  EXPECT_EQ(fsr_plan_frame(w + 4096, w - 8, 0, 0, cap, on).rewind, 0u);
  // A backlog over half the window.
  EXPECT_EQ(fsr_plan_frame(2 * w + 8192, w + 4096, 0, 0, cap, on).rewind, 0u);
  // The reader has not passed the previous rewind (tail < floor).
  EXPECT_EQ(fsr_plan_frame(cap + w + 4096, w + 2048, cap, w + 3000, cap, on).rewind, 0u);
  // Head and tail in different laps.
  EXPECT_EQ(fsr_plan_frame(cap + 1024, cap - 4096 + 0, 0, 0, cap, on).rewind, 0u);
  // The lap begun too recently.
  EXPECT_EQ(fsr_plan_frame(w + 4096, w + 1024, 0, 0, cap, fsr_lane_early{w, 1000, 5000, 4500}).rewind, 0u);
  // Off: only an empty lane rewinds.
  EXPECT_EQ(fsr_plan_frame(w + 4096, w + 1024, 0, 0, cap, off).rewind, 0u);
  p = fsr_plan_frame(w + 4096, w + 4096, 0, 0, cap, off);
  EXPECT_EQ(p.rewind, 1u) << "an empty lane's rewind";
  EXPECT_EQ(p.space_from, cap) << "an emptied lane is all free after its rewind";
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

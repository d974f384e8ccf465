// SPDX-License-Identifier: Apache-2.0
// RingMerger: one order from the per-CPU lanes, without copying records.
#include "recorder/core/ring_merger.h"

#include <gtest/gtest.h>

#include <vector>

namespace fsr {
namespace {

// A record of CPU `cpu` ending at `end`, at lane position `pos`.
struct Rec {
  fsr_rec r{};
  uint32_t cpu;
  uint64_t pos;
};

std::vector<Rec> lanes_of(std::initializer_list<std::pair<uint32_t, uint64_t>> cpu_end) {
  std::vector<Rec> v;
  std::vector<uint64_t> pos(4, 0);
  for (auto [cpu, end] : cpu_end) {
    Rec x;
    x.r.end = end;
    x.r.ts = end - 1;
    x.cpu = cpu;
    x.pos = pos[cpu] += 64;  // `next`: just past this record's frame
    v.push_back(x);
  }
  return v;
}

TEST(RingMerger, ReleasesInEndOrderUpToTheHorizonWithoutCopying) {
  // Each CPU's records in end order (as lanes are); the CPUs interleave.
  std::vector<Rec> in = lanes_of({{0, 10}, {1, 5}, {0, 20}, {2, 15}, {1, 30}, {2, 25}, {0, 40}});
  RingMerger m(3);
  for (const Rec& x : in) m.push(x.cpu, &x.r, sizeof(x.r), x.pos);
  EXPECT_EQ(m.staged(), in.size());

  std::vector<const void*> out;
  EXPECT_EQ(m.release(25,
                      [&](const void* p, size_t size) {
                        EXPECT_EQ(size, sizeof(fsr_rec));
                        out.push_back(p);
                      }),
            5u);
  // 5, 10, 15, 20, 25: the very records pushed (pointers into the lane).
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0], &in[1].r);
  EXPECT_EQ(out[1], &in[0].r);
  EXPECT_EQ(out[2], &in[3].r);
  EXPECT_EQ(out[3], &in[2].r);
  EXPECT_EQ(out[4], &in[5].r);
  // What each lane may free: through its last released record, and the
  // records past the horizon stay staged.
  EXPECT_EQ(m.released_through(0), in[2].pos);
  EXPECT_EQ(m.released_through(1), in[1].pos);
  EXPECT_EQ(m.released_through(2), in[5].pos);
  EXPECT_EQ(m.staged(0), 1u);
  EXPECT_EQ(m.staged(1), 1u);
  EXPECT_EQ(m.staged(2), 0u);

  out.clear();
  EXPECT_EQ(m.release(UINT64_MAX, [&](const void* p, size_t) { out.push_back(p); }), 2u);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], &in[4].r);
  EXPECT_EQ(out[1], &in[6].r);
  EXPECT_EQ(m.staged(), 0u);
  EXPECT_EQ(m.released_through(0), in[6].pos);
  EXPECT_EQ(m.released_through(1), in[4].pos);
}

// Many drains that each leave some records staged: the queues compact
// without losing or reordering any.
TEST(RingMerger, KeepsOrderAcrossManyPartialReleases) {
  const uint32_t ncpu = 3;
  std::vector<Rec> in;
  std::vector<uint64_t> pos(ncpu, 0);
  for (uint64_t i = 0; i < 30000; ++i) {
    Rec x;
    x.cpu = static_cast<uint32_t>((i * 7) % ncpu);
    x.r.end = 1000 + i;
    x.pos = pos[x.cpu] += 64;
    in.push_back(x);
  }
  RingMerger m(ncpu);
  std::vector<uint64_t> ends;
  size_t pushed = 0;
  for (uint64_t horizon = 1000; pushed < in.size() || m.staged() > 0; horizon += 3000) {
    for (size_t k = 0; k < 5000 && pushed < in.size(); ++k, ++pushed)
      m.push(in[pushed].cpu, &in[pushed].r, sizeof(fsr_rec), in[pushed].pos);
    m.release(pushed == in.size() ? UINT64_MAX : horizon,
              [&](const void* p, size_t) { ends.push_back(static_cast<const fsr_rec*>(p)->end); });
  }
  ASSERT_EQ(ends.size(), in.size());
  for (size_t i = 0; i < ends.size(); ++i) ASSERT_EQ(ends[i], 1000 + i) << "at " << i;
}

}  // namespace
}  // namespace fsr

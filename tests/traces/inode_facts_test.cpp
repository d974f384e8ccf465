// SPDX-License-Identifier: Apache-2.0
#include "traces/inode_facts.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace fsr {
namespace {

Event stat_event(uint32_t path, uint64_t ino, uint64_t size = 11, uint32_t mode = 0100644) {
  Event e;
  e.path[0] = path;
  e.dev = 0xfe00;
  e.ino = ino;
  e.size = size;
  e.mode = mode;
  return e;
}

// What the columns hold (as the chunk stores them), and back through the decoder.
struct Coded {
  Event columns;  // dev, ino, size, mode as stored (ino and size unzigzagged)
  bool coded;
};

std::vector<Coded> encode(const std::vector<std::pair<uint32_t, Event>>& events, size_t threads) {
  FactsEncoder enc;
  std::vector<InodeFacts> slots(threads);
  std::vector<Coded> out;
  for (const auto& [t, e] : events) {
    const FactsCode f = enc.code(e, slots[t]);
    Event c = e;
    c.dev = f.dev;
    c.ino = static_cast<uint64_t>(f.ino);
    c.size = static_cast<uint64_t>(f.size);
    c.mode = f.mode;
    out.push_back({c, f.coded});
  }
  return out;
}

// Decodes as the chunk decoder does; `thread_of` says which thread each event is given to.
std::vector<Event> decode(const std::vector<Coded>& coded, const std::vector<uint32_t>& thread_of, size_t threads) {
  FactsScratch s;
  FactsDecoder dec(s, FactsCoding::kThread, true, threads);
  std::vector<Event> out;
  for (size_t i = 0; i < coded.size(); ++i) {
    Event e = coded[i].columns;
    if (coded[i].coded) dec.decode(e, thread_of[i]);
    out.push_back(e);
  }
  return out;
}

// Two threads walk their own directories, interleaved (git status' preload
// threads): each is coded against its own previous file, not the other's.
std::vector<std::pair<uint32_t, Event>> two_walks() {
  std::vector<std::pair<uint32_t, Event>> ev;
  for (uint32_t k = 0; k < 50; ++k) {
    ev.push_back({0, stat_event(1 + 2 * k, 11'035'341 + k)});
    ev.push_back({1, stat_event(2 + 2 * k, 11'036'806 + k)});
    if (k % 7 == 3) ev.push_back({1, stat_event(200 + k, 11'036'900 + k)});  // the interleaving is not regular
  }
  return ev;
}

TEST(InodeFacts, EachThreadIsCodedAgainstItsOwnPreviousFacts) {
  const auto ev = two_walks();
  const auto coded = encode(ev, 2);
  size_t ones = 0;
  for (size_t i = 2; i < coded.size(); ++i) {
    EXPECT_TRUE(coded[i].coded);
    EXPECT_EQ(coded[i].columns.dev, 0u) << i;
    EXPECT_EQ(coded[i].columns.mode, 0u) << i;
    EXPECT_EQ(coded[i].columns.size, 11u) << i << ": a new path's size is stored as it is";
    if (coded[i].columns.ino == 1) ++ones;
  }
  EXPECT_GE(ones, 2 * 49u - 14) << "consecutive files of one thread differ by one inode";
}

TEST(InodeFacts, InterleavedThreadsDecodeExactly) {
  const auto ev = two_walks();
  const auto coded = encode(ev, 2);
  std::vector<uint32_t> thread_of;
  for (const auto& [t, e] : ev) thread_of.push_back(t);
  const auto out = decode(coded, thread_of, 2);
  for (size_t i = 0; i < ev.size(); ++i) {
    EXPECT_EQ(out[i].ino, ev[i].second.ino) << i;
    EXPECT_EQ(out[i].dev, ev[i].second.dev) << i;
    EXPECT_EQ(out[i].size, ev[i].second.size) << i;
    EXPECT_EQ(out[i].mode, ev[i].second.mode) << i;
  }
}

TEST(InodeFacts, DecodingAgainstTheWrongThreadGivesOtherInodes) {
  // The test above would pass with a decoder that ignored threads only if
  // the reference did not matter: here it does. One reference for all (as
  // a chunk-wide "previous inode" would be) decodes other inodes.
  const auto ev = two_walks();
  const auto coded = encode(ev, 2);
  const std::vector<uint32_t> one_thread(ev.size(), 0);
  const auto out = decode(coded, one_thread, 2);
  size_t wrong = 0;
  for (size_t i = 0; i < ev.size(); ++i) wrong += out[i].ino != ev[i].second.ino;
  EXPECT_GT(wrong, ev.size() / 2);
}

TEST(InodeFacts, RandomStreamsDecodeExactly) {
  // Paths seen again (by any thread), events without a path (page faults),
  // events without facts, files of other devices and modes, inode 0.
  std::mt19937_64 rng(7);
  constexpr size_t kThreads = 5;
  std::vector<std::pair<uint32_t, Event>> ev;
  for (int i = 0; i < 3000; ++i) {
    const uint32_t t = static_cast<uint32_t>(rng() % kThreads);
    Event e;
    const uint64_t r = rng();
    if (r % 5 != 0) {
      e.path[0] = r % 11 == 0 ? kNoStr : 1 + static_cast<uint32_t>(rng() % 300);
      e.dev = r % 13 == 0 ? 0x803 : 0xfe00;
      e.ino = r % 17 == 0 ? 0 : 1'000'000 + rng() % 5000;
      e.size = r % 3 == 0 ? rng() : rng() % 100;
      e.mode = r % 4 == 0 ? 040755 : 0100644;
    } else {
      e.path[0] = 1 + static_cast<uint32_t>(rng() % 300);  // a close: no facts
    }
    ev.push_back({t, e});
  }
  const auto coded = encode(ev, kThreads);
  std::vector<uint32_t> thread_of;
  for (const auto& [t, e] : ev) thread_of.push_back(t);
  const auto out = decode(coded, thread_of, kThreads);
  for (size_t i = 0; i < ev.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(out[i].dev, ev[i].second.dev);
    EXPECT_EQ(out[i].ino, ev[i].second.ino);
    EXPECT_EQ(out[i].size, ev[i].second.size);
    EXPECT_EQ(out[i].mode, ev[i].second.mode);
  }
}

TEST(InodeFacts, APathSeenAgainCostsNothingWhicheverThreadSeesIt) {
  std::vector<std::pair<uint32_t, Event>> ev = {
      {0, stat_event(5, 77, 4096, 040755)}, {1, stat_event(9, 1234)}, {1, stat_event(5, 77, 4096, 040755)}};
  const auto coded = encode(ev, 2);
  const Event& again = coded[2].columns;
  EXPECT_TRUE(coded[2].coded);
  EXPECT_EQ(again.dev | again.ino | again.size | again.mode, 0u);
}

TEST(InodeFacts, ReferencesDoNotCrossChunks) {
  FactsEncoder enc;
  InodeFacts slot;
  const Event e = stat_event(3, 500);
  enc.code(e, slot);
  enc.next_chunk();
  InodeFacts fresh;  // the chunk encoder's thread slots are per chunk too
  const FactsCode f = enc.code(e, fresh);
  EXPECT_EQ(f.ino, 500) << "the first facts of a chunk are coded against zero";
  EXPECT_EQ(f.size, 11);
}

}  // namespace
}  // namespace fsr

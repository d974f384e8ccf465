// SPDX-License-Identifier: Apache-2.0
// A chunk says how it is coded (schema.capnp "Chunk": timing, inode facts,
// column order); a reader refuses codings it does not know, and columns that
// belong to another coding, with a message instead of decoding garbage.
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <gtest/gtest.h>

#include <functional>

#include "schema.capnp.h"
#include "traces/event_chunk.h"

namespace fsr {
namespace {

// One chunk of two interleaved threads, as the writer codes it; `edit`
// changes the message before it is decoded.
Status decode_edited(const std::function<void(wire::Chunk::Builder)>& edit, std::vector<Event>* out = nullptr) {
  EventChunkEncoder enc;
  for (uint32_t i = 0; i < 20; ++i) {
    Event e;
    e.pid = e.tid = 10 + i % 2;
    e.ts = 1000 * (i + 1);
    e.dur = 100;
    e.nr = 262;
    e.path[0] = 1 + i;
    e.dev = 0x803;
    e.ino = 500 + i;
    e.mode = 0100644;
    enc.add(e);
  }
  Compressor z(1);
  std::vector<uint8_t> bytes;
  enc.finish(z, 0, bytes);
  kj::ArrayPtr<const capnp::word> words(reinterpret_cast<const capnp::word*>(bytes.data()), bytes.size() / 8);
  capnp::FlatArrayMessageReader in(words);
  capnp::MallocMessageBuilder mb;
  mb.setRoot(in.getRoot<wire::Chunk>());
  edit(mb.getRoot<wire::Chunk>());
  auto flat = capnp::messageToFlatArray(mb);
  Decompressor d;
  ChunkScratch s;
  std::vector<Event> events;
  return decode_event_chunk({flat.begin(), flat.size()}, d, s, out ? *out : events, nullptr, 100);
}

TEST(ChunkCodings, TheWritersOwnChunkDecodes) {
  std::vector<Event> out;
  ASSERT_TRUE(decode_edited([](wire::Chunk::Builder) {}, &out).is_ok());
  ASSERT_EQ(out.size(), 20u);
  EXPECT_EQ(out[7].ino, 507u);
  EXPECT_EQ(out[7].tid, 11u);
}

TEST(ChunkCodings, UnknownColumnOrderIsRefused) {
  Status st = decode_edited([](wire::Chunk::Builder c) { c.setColumnOrder(static_cast<wire::Chunk::ColumnOrder>(9)); });
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("unknown column order 9"), std::string::npos) << st.message();
}

TEST(ChunkCodings, UnknownFactsCodingIsRefused) {
  Status st = decode_edited([](wire::Chunk::Builder c) { c.setFacts(static_cast<wire::Chunk::Facts>(4)); });
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("unknown inode facts coding 4"), std::string::npos) << st.message();
}

TEST(ChunkCodings, XorCodedInodesWithFactsByThreadAreRefused) {
  Status st = decode_edited([](wire::Chunk::Builder c) {
    for (auto col : c.getColumns())
      if (col.getId() == kEcInoDelta) col.setId(kEcIno);
  });
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("XOR-coded inode column"), std::string::npos) << st.message();
}

TEST(ChunkCodings, AThreadBeyondTheTableIsRefusedInThreadMajorChunks) {
  Status st = decode_edited([](wire::Chunk::Builder c) {
    const uint32_t pid = c.getThreads()[0].getPid(), tid = c.getThreads()[0].getTid();
    const uint64_t prev_end = c.getThreads()[0].getPrevEnd();
    auto one = c.initThreads(1);  // the second thread's events now name a thread the table lacks
    one[0].setPid(pid);
    one[0].setTid(tid);
    one[0].setPrevEnd(prev_end);
  });
  ASSERT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("beyond the chunk's 1"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// Bad input is normal: truncated files, flipped bits, wrong magic, unknown
// versions and hostile length fields must give every readable record and a
// clear message, never a crash or a large allocation.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>

#include "tests/traces/test_util.h"
#include "base/crc32c.h"
#include "traces/frame.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace fsr {
namespace {

using test::TempFile;

constexpr uint32_t kChunk = 50;

// Writes `chunks` full chunks of synthetic events; returns the file bytes.
std::vector<uint8_t> make_trace(const std::string& path, int chunks) {
  auto w = TraceWriter::create(path, test::sample_header(), {.chunk_events = kChunk});
  EXPECT_TRUE(w);
  test::SyntheticStream gen;
  for (int i = 1; i <= 20; ++i) (*w)->intern("/p" + std::to_string(i));
  for (uint32_t i = 0; i < kChunk * static_cast<uint32_t>(chunks); ++i) EXPECT_TRUE((*w)->append(gen.next(20)).is_ok());
  EXPECT_TRUE((*w)->finish({}).is_ok());
  return test::read_bytes(path);
}

struct ReadAll {
  uint64_t records = 0;
  ReadProblems problems;
  bool opened = false;
  std::string open_error;
};

ReadAll read_all(const std::string& path) {
  ReadAll out;
  auto r = TraceReader::open(path);
  if (!r) {
    out.open_error = r.message();
    return out;
  }
  out.opened = true;
  std::vector<Event> ev;
  while (true) {
    auto got = (*r)->next(ev);
    if (!got || !got.value()) break;
    out.records += ev.size();
  }
  out.problems = (*r)->problems();
  return out;
}

// Offsets of the event chunk frames, from the file's own index.
std::vector<uint64_t> chunk_offsets(const std::vector<uint8_t>& b) {
  std::vector<uint64_t> offs;
  for (uint64_t off = kFileHeaderSize; off + kFrameHeaderSize <= b.size();) {
    auto h = decode_frame_header(&b[off]);
    if (!h) break;
    if (h->type == FrameType::kEvents) offs.push_back(off);
    off += kFrameHeaderSize + h->payload_len;
  }
  return offs;
}

TEST(ContainerDamage, TruncationAnywhereYieldsEveryCompleteChunk) {
  TempFile f, cut;
  auto bytes = make_trace(f.path(), 4);
  auto chunks = chunk_offsets(bytes);
  ASSERT_EQ(chunks.size(), 4u);
  std::vector<uint64_t> chunk_end;
  for (uint64_t off : chunks)
    chunk_end.push_back(off + kFrameHeaderSize + decode_frame_header(&bytes[off])->payload_len);
  // Every byte near a frame boundary, every 7th byte elsewhere.
  std::vector<size_t> cuts;
  for (size_t n = 0; n < bytes.size(); n += 7) cuts.push_back(n);
  for (uint64_t off = kFileHeaderSize; off + kFrameHeaderSize <= bytes.size();) {
    for (uint64_t d = 0; d <= kFrameHeaderSize + 1 && off + d < bytes.size(); ++d) cuts.push_back(off + d);
    if (off >= 1) cuts.push_back(off - 1);
    auto h = decode_frame_header(&bytes[off]);
    if (!h) break;
    off += kFrameHeaderSize + h->payload_len;
  }
  const size_t index_end = bytes.size() - kTrailerSize;  // past the index frame the trailer is redundant
  for (size_t n : cuts) {
    test::write_bytes(cut.path(), std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(n)));
    ReadAll r = read_all(cut.path());
    uint64_t complete = 0;
    for (uint64_t e : chunk_end) complete += (e <= n) ? kChunk : 0;
    if (!r.opened) {
      // Only a cut inside the file header or the header frame may prevent opening.
      ASSERT_LT(n, chunks[0]) << "cut at " << n << ": " << r.open_error;
      EXPECT_NE(r.open_error.find(cut.path()), std::string::npos) << r.open_error;
      continue;
    }
    ASSERT_EQ(r.records, complete) << "cut at " << n;
    if (n >= index_end) {
      EXPECT_TRUE(r.problems.complete()) << "cut at " << n;
      continue;
    }
    EXPECT_TRUE(r.problems.truncated) << "cut at " << n;
    ASSERT_FALSE(r.problems.messages.empty());
    EXPECT_NE(r.problems.messages.back().find("without its footer and index"), std::string::npos)
        << r.problems.messages.back();
  }
  ReadAll whole = read_all(f.path());
  EXPECT_EQ(whole.records, 4u * kChunk);
  EXPECT_TRUE(whole.problems.complete());
}

TEST(ContainerDamage, PartialLastChunkIsCountedInTheMessage) {
  TempFile f, cut;
  auto bytes = make_trace(f.path(), 3);
  auto chunks = chunk_offsets(bytes);
  size_t n = chunks[2] + kFrameHeaderSize + 5;  // inside chunk 2's payload
  test::write_bytes(cut.path(), std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(n)));
  ReadAll r = read_all(cut.path());
  EXPECT_EQ(r.records, 2u * kChunk);
  ASSERT_FALSE(r.problems.messages.empty());
  EXPECT_NE(r.problems.messages.back().find("last chunk (50 records) is cut short"), std::string::npos)
      << r.problems.messages.back();
}

// The prestate comes block by block (4,096 entries a frame); a file cut
// inside it (the recorder killed while it walked the tree) is an error that
// says how far it got, never a silently smaller tree.
TEST(ContainerDamage, APrestateCutShortIsAnErrorAfterItsWholeBlocks) {
  TempFile f, cut;
  {
    auto w = TraceWriter::create(f.path(), test::sample_header());
    ASSERT_TRUE(w);
    for (int i = 0; i < 10000; ++i) {
      PrestateEntry e;
      e.path = "/p/dir" + std::to_string(i / 100) + "/file" + std::to_string(i);
      e.size = static_cast<uint64_t>(i);
      ASSERT_TRUE((*w)->add_prestate(e).is_ok());
    }
    ASSERT_TRUE((*w)->finish({}).is_ok());
  }
  auto whole = TraceReader::open(f.path());
  ASSERT_TRUE(whole);
  std::vector<size_t> blocks;
  auto n = (*whole)->for_each_prestate([&](std::span<const PrestateEntry> b) {
    blocks.push_back(b.size());
    return Status::ok();
  });
  ASSERT_TRUE(n) << n.message();
  EXPECT_EQ(n.value(), 10000u);
  EXPECT_EQ(blocks, (std::vector<size_t>{4096, 4096, 1808}));
  EXPECT_EQ((*whole)->prestate_count().value(), 10000u);

  auto bytes = test::read_bytes(f.path());
  test::write_bytes(cut.path(),
                    std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(bytes.size() * 6 / 10)));
  auto r = TraceReader::open(cut.path());
  ASSERT_TRUE(r);
  uint64_t seen = 0;
  auto m = (*r)->for_each_prestate([&](std::span<const PrestateEntry> b) {
    seen += b.size();
    return Status::ok();
  });
  ASSERT_FALSE(m);
  EXPECT_NE(m.message().find("ends inside its prestate"), std::string::npos) << m.message();
  EXPECT_NE(m.message().find(std::to_string(seen) + " entries"), std::string::npos) << m.message();
  EXPECT_GT(seen, 0u);
  EXPECT_FALSE((*r)->prestate()) << "the whole prestate of a cut file";
}

TEST(ContainerDamage, CorruptedChunkIsReportedByNumberAndSkipped) {
  TempFile f;
  auto bytes = make_trace(f.path(), 4);
  auto chunks = chunk_offsets(bytes);
  bytes[chunks[1] + kFrameHeaderSize + 10] ^= 0x40;  // flip a bit in chunk 1's payload
  test::write_bytes(f.path(), bytes);
  ReadAll r = read_all(f.path());
  EXPECT_EQ(r.records, 3u * kChunk);
  EXPECT_EQ(r.problems.bad_chunks, 1u);
  EXPECT_EQ(r.problems.missing_records, kChunk);
  EXPECT_FALSE(r.problems.truncated);
  ASSERT_EQ(r.problems.messages.size(), 1u);
  EXPECT_NE(r.problems.messages[0].find("chunk 1 "), std::string::npos) << r.problems.messages[0];
  EXPECT_NE(r.problems.messages[0].find("checksum mismatch"), std::string::npos) << r.problems.messages[0];
}

TEST(ContainerDamage, CorruptedFrameHeaderResynchronises) {
  TempFile f;
  auto bytes = make_trace(f.path(), 4);
  auto chunks = chunk_offsets(bytes);
  bytes[chunks[2] + 9] ^= 0xff;  // payload length field of chunk 2: header CRC fails
  test::write_bytes(f.path(), bytes);
  ReadAll r = read_all(f.path());
  EXPECT_EQ(r.records, 3u * kChunk) << "chunks 0, 1 and 3 survive";
  EXPECT_EQ(r.problems.bad_chunks, 1u);
  ASSERT_FALSE(r.problems.messages.empty());
  EXPECT_NE(r.problems.messages[0].find("not a valid frame header"), std::string::npos) << r.problems.messages[0];
}

TEST(ContainerDamage, RandomAccessSurvivesAMissingIndex) {
  TempFile f, cut;
  auto bytes = make_trace(f.path(), 3);
  auto chunks = chunk_offsets(bytes);
  size_t n = chunks[2] + kFrameHeaderSize + decode_frame_header(&bytes[chunks[2]])->payload_len;
  test::write_bytes(cut.path(), std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(n)));
  auto r = TraceReader::open(cut.path());
  ASSERT_TRUE(r);
  auto count = (*r)->chunk_count();
  ASSERT_TRUE(count);
  EXPECT_EQ(count.value(), 3u) << "the index is rebuilt by scanning frame headers";
  std::vector<Event> ev;
  ASSERT_TRUE((*r)->read_chunk(2, ev).value());
  EXPECT_EQ(ev.size(), kChunk);
}

TEST(ContainerDamage, WrongMagicIsAClearError) {
  TempFile f;
  auto bytes = make_trace(f.path(), 1);
  bytes[0] = 'X';
  test::write_bytes(f.path(), bytes);
  auto r = TraceReader::open(f.path());
  ASSERT_FALSE(r);
  EXPECT_NE(r.message().find("not an fsreplay trace"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find(f.path()), std::string::npos);
}

TEST(ContainerDamage, UnknownVersionIsAClearError) {
  TempFile f;
  auto bytes = make_trace(f.path(), 1);
  uint16_t v = 99;
  std::memcpy(&bytes[8], &v, 2);
  test::write_bytes(f.path(), bytes);
  auto r = TraceReader::open(f.path());
  ASSERT_FALSE(r);
  EXPECT_NE(r.message().find("format version 99 is not supported"), std::string::npos) << r.message();
}

TEST(ContainerDamage, EmptyAndTinyFilesAreClearErrors) {
  TempFile f;
  test::write_bytes(f.path(), {});
  auto r = TraceReader::open(f.path());
  ASSERT_FALSE(r);
  EXPECT_NE(r.message().find("too short"), std::string::npos) << r.message();
  auto missing = TraceReader::open("/nonexistent/trace");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.message().find("cannot open"), std::string::npos);
}

// A directory opens (O_RDONLY) and has a size: it is named as a directory,
// not as a file too short to be one.
TEST(ContainerDamage, ADirectoryIsCalledADirectory) {
  char tpl[] = "/tmp/fsreplay-test-dir-XXXXXX";
  ASSERT_NE(mkdtemp(tpl), nullptr);
  const std::string dir = tpl;
  auto r = TraceReader::open(dir);
  rmdir(dir.c_str());
  ASSERT_FALSE(r);
  EXPECT_NE(r.message().find(dir + ": is a directory, not an fsreplay file"), std::string::npos) << r.message();
  EXPECT_EQ(r.message().find("too short"), std::string::npos) << r.message();
}

// A frame header with a valid CRC but absurd lengths must be refused before
// anything is allocated for it.
TEST(ContainerDamage, HostileLengthFieldsAreRefused) {
  uint8_t h[kFrameHeaderSize];
  FrameHeader fh;
  fh.type = FrameType::kEvents;
  fh.encoding = FrameEncoding::kZstdCapnp;
  fh.payload_len = 0xFFFFFFF8u;
  fh.raw_len = 0xFFFFFFF8u;
  encode_frame_header(fh, h);
  EXPECT_FALSE(decode_frame_header(h)) << "4 GiB payload";
  fh.payload_len = 100;
  fh.raw_len = kMaxFrameRaw + 8;
  encode_frame_header(fh, h);
  EXPECT_FALSE(decode_frame_header(h)) << "raw length over the limit";
  fh.raw_len = 1024;
  encode_frame_header(fh, h);
  EXPECT_TRUE(decode_frame_header(h));

  // In a file: a valid-CRC header claiming 60 MiB of payload at the end of a
  // small file is a truncation, not a 60 MiB read.
  TempFile f;
  auto bytes = make_trace(f.path(), 1);
  auto chunks = chunk_offsets(bytes);
  FrameHeader big;
  big.type = FrameType::kEvents;
  big.encoding = FrameEncoding::kCapnp;
  big.payload_len = big.raw_len = 60u << 20;
  big.records = 1u << 30;
  encode_frame_header(big, &bytes[chunks[0]]);
  test::write_bytes(f.path(), bytes);
  ReadAll r = read_all(f.path());
  EXPECT_EQ(r.records, 0u);
  EXPECT_TRUE(r.problems.truncated);
}

}  // namespace
}  // namespace fsr

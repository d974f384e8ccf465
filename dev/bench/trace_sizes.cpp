// SPDX-License-Identifier: Apache-2.0
// Where a trace's bytes go: bytes per event by frame type and, for event
// chunks and sorted-coded string blocks, by column (compressed size as stored). Walks the frames directly,
// so it reports every encoding the reader accepts. Prints figures; asserts
// nothing. Usage: fsreplay_trace_sizes FILE...
#include <capnp/serialize.h>
#include <fmt/core.h>

#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "schema.capnp.h"
#include "traces/chunk_message.h"
#include "traces/columns.h"
#include "traces/frame.h"

namespace {

const char* column_name(uint16_t id) {
  static const char* kNames[] = {"?",    "thread", "ts(ns)", "dur(ns)",    "nr",     "ret",     "arg0",    "arg1",
                                 "arg2", "arg3",   "arg4",   "arg5",       "path0",  "path1",   "dev",     "ino(xor)",
                                 "size", "mode",   "flags",  "ino(delta)", "ts exp", "ts mant", "dur exp", "dur mant"};
  return id < sizeof kNames / sizeof kNames[0] ? kNames[id] : "?";
}

int report(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<uint8_t> b{std::istreambuf_iterator<char>(f), {}};
  if (b.size() < fsr::kFileHeaderSize + fsr::kTrailerSize) {
    fmt::print(stderr, "trace_sizes: {}: too short\n", path);
    return 1;
  }
  std::map<std::string, uint64_t> by_frame;
  std::map<uint16_t, uint64_t> by_column, by_string_column;
  uint64_t events = 0, chunk_overhead = 0, strings = 0, string_bytes = 0;
  fsr::Decompressor z;
  std::vector<uint8_t> raw;
  size_t off = fsr::kFileHeaderSize;
  while (off + fsr::kFrameHeaderSize <= b.size()) {
    auto h = fsr::decode_frame_header(&b[off]);
    if (!h || off + fsr::kFrameHeaderSize + h->payload_len > b.size()) break;
    const uint8_t* p = &b[off + fsr::kFrameHeaderSize];
    by_frame[fsr::frame_type_name(h->type)] += fsr::kFrameHeaderSize + h->payload_len;
    if (h->encoding == fsr::FrameEncoding::kZstdCapnp) {
      if (!z.decompress({p, h->payload_len}, h->raw_len, raw)) break;
    } else {
      raw.assign(p, p + h->payload_len);
    }
    std::vector<capnp::word> words(raw.size() / sizeof(capnp::word));
    std::memcpy(words.data(), raw.data(), words.size() * sizeof(capnp::word));
    capnp::FlatArrayMessageReader mr(kj::arrayPtr(words.data(), words.size()), fsr::untrusted_options(words.size()));
    if (h->type == fsr::FrameType::kEvents) {
      auto chunk = mr.getRoot<fsr::wire::Chunk>();
      events += chunk.getCount();
      uint64_t cols = 0;
      for (auto c : chunk.getColumns()) {
        by_column[c.getId()] += c.getData().size();
        cols += c.getData().size();
      }
      chunk_overhead += fsr::kFrameHeaderSize + h->payload_len - cols;
    } else if (h->type == fsr::FrameType::kStrings) {
      strings += h->records;
      string_bytes += h->raw_len;
      for (auto c : mr.getRoot<fsr::wire::StringBlock>().getColumns())
        by_string_column[c.getId()] += c.getData().size();
    }
    off += fsr::kFrameHeaderSize + h->payload_len;
  }
  const double n = events ? static_cast<double>(events) : 1.0;
  fmt::print("{}: {} events, {} bytes, {:.2f} B/event\n", path, events, b.size(), b.size() / n);
  for (const auto& [name, bytes] : by_frame)
    fmt::print("  frames {:<10} {:>9} B  {:>6.2f} B/event\n", name, bytes, bytes / n);
  fmt::print("  strings: {} in {} raw (capnp) bytes\n", strings, string_bytes);
  fmt::print("  chunk framing (frame and capnp headers, thread tables) {:>6.2f} B/event\n", chunk_overhead / n);
  static const char* kStringColumns[] = {"?", "order", "prefix", "suffix len", "suffix"};
  for (const auto& [id, bytes] : by_string_column)
    fmt::print("  string column {:<10} {:>9} B  {:>6.2f} B/event\n", id < 5 ? kStringColumns[id] : "?", bytes,
               bytes / n);
  for (const auto& [id, bytes] : by_column)
    fmt::print("  column {:>2} {:<11} {:>9} B  {:>6.2f} B/event\n", id, column_name(id), bytes, bytes / n);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: fsreplay_trace_sizes FILE...\n");
    return 2;
  }
  int rc = 0;
  for (int i = 1; i < argc; ++i) {
    try {
      rc |= report(argv[i]);
    } catch (const kj::Exception& e) {
      fmt::print(stderr, "trace_sizes: {}: malformed message: {}\n", argv[i], e.getDescription().cStr());
      rc = 1;
    }
  }
  return rc;
}

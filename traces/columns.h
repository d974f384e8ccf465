// SPDX-License-Identifier: Apache-2.0
// Column coding for chunks: zigzag + LEB128 varints, one byte vector per
// column, each compressed with zstd on its own (column-wise
// storage is what gets a trace under 4 bytes per event). Decoding is bounded:
// a column never decodes more values than the chunk says it holds.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "base/status.h"

namespace fsr {

// Column ids (schema.capnp "Chunk"). Append only: they are part of the format.
enum EventColumn : uint16_t {
  kEcThread = 1,
  kEcTs,
  kEcDur,
  kEcNr,
  kEcRet,
  kEcArg0,
  kEcArg1,
  kEcArg2,
  kEcArg3,
  kEcArg4,
  kEcArg5,
  kEcPath0,
  kEcPath1,
  kEcDev,
  kEcIno,
  kEcSize,
  kEcMode,
  kEcFlags,
  // Replaces kEcIno in chunks written since it was added: the inode as a
  // difference (schema.capnp "Chunk"). Old chunks keep kEcIno.
  kEcInoDelta,
  // Replace kEcTs and kEcDur in chunks with quantised timing: gaps and
  // durations with 6 significant bits and steps of at most 512 ns, each as
  // an exponent column and a mantissa column (schema.capnp "Timing
  // quantisation", timing_quant.h). Older chunks keep kEcTs / kEcDur in ns.
  kEcTsExp,
  kEcTsMant,
  kEcDurExp,
  kEcDurMant,
  kEcCount
};
// Columns of a string block (schema.capnp "StringBlock", format version 3).
enum StringColumn : uint16_t { kScOrder = 1, kScPrefix, kScSuffixLength, kScSuffix, kScCount };
enum OpColumn : uint16_t {
  kOcEventIndex = 1,
  kOcStart,
  kOcLatency,
  kOcLateness,
  kOcDepWait,
  kOcGap,
  kOcRet,
  kOcRecordedRet,
  kOcWaitedOn,
  kOcRecordedDur,
  kOcPid,
  kOcTid,
  kOcWorker,
  kOcPath,
  kOcNr,
  kOcFlags,
  kOcCount
};

inline uint64_t zigzag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
inline int64_t unzigzag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

// Appends values as varints; tracks whether any value was non-zero. The
// buffer only grows (amortised, from 64 bytes: a chunk keeps a builder per
// column per thread), so a warm builder never allocates.
class ColumnBuilder {
 public:
  ColumnBuilder() = default;
  ColumnBuilder(ColumnBuilder&&) noexcept = default;
  ColumnBuilder& operator=(ColumnBuilder&&) noexcept = default;
  void put(uint64_t v) {
    nonzero_ |= v;
    if (cap_ - len_ < 10) grow();
    uint8_t* p = buf_.get() + len_;
    while (v >= 0x80) {
      *p++ = static_cast<uint8_t>(v | 0x80);
      v >>= 7;
    }
    *p++ = static_cast<uint8_t>(v);
    len_ = static_cast<size_t>(p - buf_.get());
  }
  void put_signed(int64_t v) { put(zigzag(v)); }
  bool all_zero() const { return nonzero_ == 0; }
  std::span<const uint8_t> bytes() const { return {buf_.get(), len_}; }
  // Appends the values of `other` (a thread's part of a thread-major column).
  void append(const ColumnBuilder& other) {
    if (cap_ - len_ < other.len_ + 10) grow(len_ + other.len_ + 10);
    if (other.len_ > 0) std::memcpy(buf_.get() + len_, other.buf_.get(), other.len_);
    len_ += other.len_;
    nonzero_ |= other.nonzero_;
  }
  void clear() {
    len_ = 0;
    nonzero_ = 0;
  }
  // Room for `bytes` in all, without further growth up to there.
  void reserve(size_t bytes) {
    if (cap_ < bytes) grow(bytes);
  }
  size_t size() const { return len_; }

 private:
  // Copies the bytes in use only, and leaves the new space uninitialised (a
  // std::vector's resize zeroed the new space and copied the whole old
  // capacity).
  void grow(size_t at_least = 0) {
    const size_t cap = std::max({size_t{64}, cap_ * 2, at_least});
    std::unique_ptr<uint8_t[]> b(new uint8_t[cap]);
    if (len_ > 0) std::memcpy(b.get(), buf_.get(), len_);
    buf_ = std::move(b);
    cap_ = cap;
  }
  std::unique_ptr<uint8_t[]> buf_;
  size_t len_ = 0, cap_ = 0;
  uint64_t nonzero_ = 0;
};

// Decodes exactly `count` varints from `in` into `out`: the i-th into
// out[i], or with `to` (a permutation of 0 .. count-1) into out[to[i]].
// Fails on a short or over-long column or a varint longer than 10 bytes.
Status decode_column(std::span<const uint8_t> in, size_t count, std::vector<uint64_t>& out,
                     const uint32_t* to = nullptr);

// Thread-major columns (schema.capnp "Chunk", format version 3): a column
// holds the values of the table's first thread, then the second's, and so
// on, each thread's in chunk order. What a thread does repeats (the next
// file of its directory, the same syscalls), but threads interleave at random
// and that hides the repeats from zstd (git status lstats from eight threads).
// The writer builds each thread's part on its own and appends them.
//
// Which event each value of a thread-major column belongs to, from the
// thread column (event order): a permutation for decode_column's `to`, which
// puts the values back in event order. False if an event names a thread >=
// `threads`.
bool thread_major_events(std::span<const uint64_t> thread_col, size_t threads, std::vector<uint32_t>& event_at,
                         std::vector<uint32_t>& cursor);

// zstd helpers with reusable contexts (one per writer / reader).
class Compressor {
 public:
  explicit Compressor(int level);
  ~Compressor();
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;
  // Replaces `out` with the compressed form of `in`.
  void compress(std::span<const uint8_t> in, std::vector<uint8_t>& out);

 private:
  void* cctx_;
  int level_;
  // Room for the worst case, kept between calls: sizing `out` to the bound
  // and back zeroed the difference on every call.
  std::unique_ptr<uint8_t[]> bound_buf_;
  size_t bound_cap_ = 0;
};

class Decompressor {
 public:
  Decompressor();
  ~Decompressor();
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;
  // Decompresses a frame that must expand to exactly `expected` bytes
  // (`expected` is checked against a limit by the caller before calling).
  Status decompress(std::span<const uint8_t> in, size_t expected, std::vector<uint8_t>& out);

 private:
  void* dctx_;
};

}  // namespace fsr

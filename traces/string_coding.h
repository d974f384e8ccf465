// SPDX-License-Identifier: Apache-2.0
// The coding of string blocks (schema.capnp "StringBlock"). Format version
// 3, sorted coding: the strings in sorted order, each as the length of the
// prefix it shares with the one before in that order, the length of the rest
// and the rest, plus the order. Version 2, front coding: in id order, each
// as which of the few strings before it shares the longest prefix with it,
// the length of that prefix, the length of the rest, and the rest (the
// writer is kept so that tests can make version-2 blocks). Decoding treats
// its input as untrusted: it never reads past it, and never produces more
// than kMaxStringBlockBytes of strings (a short blob could otherwise expand
// quadratically: each string may repeat all of the previous one).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "traces/columns.h"
#include "traces/frame.h"
#include "base/status.h"

namespace fsr {

// What one string block may decode to, counting kStringOverhead bytes per
// string: a block stored as a List(Data) (an 8-byte pointer per string, its
// bytes padded to 8) could not hold more either, its raw message being
// limited to kMaxFrameRaw. The writer splits blocks by the same measure.
inline constexpr uint64_t kStringOverhead = 8;
inline constexpr uint64_t kMaxStringBlockBytes = kMaxFrameRaw;

// How many earlier strings the writer considers as a string's reference.
// Paths are interned in walk order, but threads that walk different
// directories interleave (git status lstats from several threads): on six
// git status traces, a window of 8 instead of 1 (the previous string only)
// took the strings from 0.23-1.67 to 0.20-1.05 B/event (the more the threads
// interleaved, the more it saved); on git clone traces (mostly hash-named
// objects) it cost 0.03 B/event.
inline constexpr size_t kFrontCodingWindow = 8;

// Strings a version-3 block may hold (the writer splits blocks before):
// bounds what a reader allocates for the varint columns.
inline constexpr uint64_t kMaxStringBlockStrings = 1u << 20;

// A block in sorted coding, before compression: `count` varints in each of
// order, prefix and suffix_length, and the suffix bytes.
struct SortedStrings {
  ColumnBuilder order, prefix, suffix_length;
  std::vector<uint8_t> suffix;
};

// Replaces `out` with the sorted coding of `strings`.
void sort_code(std::span<const std::string_view> strings, SortedStrings& out);

// Appends the strings of a sorted-coded block to `table`, from its decoded
// columns (as many values in each as the block holds strings) and its
// suffix bytes. The block is checked whole before anything is allocated for
// the strings; on error (see schema.capnp) `table` is left as it was.
Status sort_decode(std::span<const uint64_t> order, std::span<const uint64_t> prefix,
                   std::span<const uint64_t> suffix_length, std::span<const uint8_t> suffix,
                   std::vector<std::string>& table);

// Replaces `out` with the front-coded form of `strings`.
void front_code(std::span<const std::string_view> strings, std::vector<uint8_t>& out);

// Appends the `count` strings of `blob` to `table`. The blob is checked
// whole before anything is allocated; on error (it ends early, has bytes left
// over, a reference outside the block, a prefix longer than its reference,
// more than kMaxStringBlockBytes in all) `table` is left as it was.
Status front_decode(std::span<const uint8_t> blob, uint64_t count, std::vector<std::string>& table);

}  // namespace fsr

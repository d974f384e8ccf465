// Front coding of a string block (schema.capnp "StringBlock"): each string as
// which of the few strings before it shares the longest prefix with it, the
// length of that prefix, the length of the rest, and the rest. Decoding treats the blob as untrusted: it never reads
// past it, and never produces more than kMaxStringBlockBytes of strings
// (a short blob could otherwise expand quadratically: each string may repeat
// all of the previous one).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "traces/frame.h"
#include "traces/status.h"

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

// Replaces `out` with the front-coded form of `strings`.
void front_code(std::span<const std::string_view> strings, std::vector<uint8_t>& out);

// Appends the `count` strings of `blob` to `table`. The blob is checked
// whole before anything is allocated; on error (it ends early, has bytes left
// over, a reference outside the block, a prefix longer than its reference,
// more than kMaxStringBlockBytes in all) `table` is left as it was.
Status front_decode(std::span<const uint8_t> blob, uint64_t count, std::vector<std::string>& table);

}  // namespace fsr

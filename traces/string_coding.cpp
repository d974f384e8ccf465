// SPDX-License-Identifier: Apache-2.0
#include "traces/string_coding.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace fsr {
namespace {

void put_varint(std::vector<uint8_t>& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}

// Reads a varint below 2^32 (string lengths); false at the end of the blob or past 2^32.
bool get_length(std::span<const uint8_t> in, size_t& pos, uint64_t& v) {
  v = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    if (pos >= in.size()) return false;
    uint8_t b = in[pos++];
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return v <= UINT32_MAX;
  }
  return false;
}

// Eight bytes at a time: the writer compares each new string with eight.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the first differing byte is the lowest");
size_t shared_prefix(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  size_t p = 0;
  for (; p + 8 <= n; p += 8) {
    uint64_t x, y;
    std::memcpy(&x, a.data() + p, 8);
    std::memcpy(&y, b.data() + p, 8);
    if (x != y) return p + static_cast<size_t>(__builtin_ctzll(x ^ y) / 8);  // little-endian
  }
  while (p < n && a[p] == b[p]) ++p;
  return p;
}

}  // namespace

void sort_code(std::span<const std::string_view> strings, SortedStrings& out) {
  out.order.clear();
  out.prefix.clear();
  out.suffix_length.clear();
  out.suffix.clear();
  std::vector<uint32_t> idx(strings.size());
  std::iota(idx.begin(), idx.end(), 0u);
  std::sort(idx.begin(), idx.end(),
            [&](uint32_t a, uint32_t b) { return strings[a] < strings[b] || (strings[a] == strings[b] && a < b); });
  int64_t prev_i = -1;
  std::string_view prev;
  for (uint32_t i : idx) {
    const std::string_view s = strings[i];
    const size_t p = shared_prefix(s, prev);
    out.order.put(zigzag(static_cast<int64_t>(i) - prev_i - 1));
    out.prefix.put(p);
    out.suffix_length.put(s.size() - p);
    out.suffix.insert(out.suffix.end(), s.begin() + static_cast<long>(p), s.end());
    prev_i = i;
    prev = s;
  }
}

Status sort_decode(std::span<const uint64_t> order, std::span<const uint64_t> prefix,
                   std::span<const uint64_t> suffix_length, std::span<const uint8_t> suffix,
                   std::vector<std::string>& table) {
  const uint64_t count = order.size();
  if (prefix.size() != count || suffix_length.size() != count)
    return Status::error("sorted string columns disagree on the number of strings");
  if (count > kMaxStringBlockStrings)
    return Status::error("string block claims " + std::to_string(count) + " strings (limit " +
                         std::to_string(kMaxStringBlockStrings) + ")");
  // First pass: the order is a permutation and the lengths fit, before the
  // strings take any memory.
  std::vector<uint32_t> index(count);
  std::vector<bool> seen(count);
  int64_t prev_i = -1;
  uint64_t prev_len = 0, used = 0, total = 0;
  for (uint64_t k = 0; k < count; ++k) {
    auto fail = [&](const std::string& why) {
      return Status::error("sorted string " + std::to_string(k) + " of " + std::to_string(count) + ": " + why);
    };
    const int64_t step = unzigzag(order[k]);
    const int64_t next = prev_i + 1;  // in [0, count]
    if (step < -next || step >= static_cast<int64_t>(count) - next) return fail("its index is outside the block");
    const int64_t i = next + step;
    if (seen[static_cast<size_t>(i)]) return fail("its index " + std::to_string(i) + " appears twice");
    seen[static_cast<size_t>(i)] = true;
    index[k] = static_cast<uint32_t>(i);
    const uint64_t p = prefix[k], n = suffix_length[k];
    if (p > prev_len)
      return fail("shares " + std::to_string(p) + " bytes with a string of " + std::to_string(prev_len));
    if (n > suffix.size() - used) return fail("its " + std::to_string(n) + " bytes run past the suffix column");
    used += n;
    total += p + n + kStringOverhead;
    if (total > kMaxStringBlockBytes)
      return fail("the block decodes to more than " + std::to_string(kMaxStringBlockBytes) + " bytes");
    prev_i = i;
    prev_len = p + n;
  }
  if (used != suffix.size())
    return Status::error("sorted strings: " + std::to_string(suffix.size() - used) + " suffix bytes left over after " +
                         std::to_string(count) + " strings");
  // Second pass: the block is known to be well formed.
  const size_t base = table.size();
  table.resize(base + count);
  const std::string* prev = nullptr;
  size_t pos = 0;
  for (uint64_t k = 0; k < count; ++k) {
    std::string& s = table[base + index[k]];
    const size_t p = prefix[k], n = suffix_length[k];
    s.reserve(p + n);
    if (p > 0) s.assign(*prev, 0, p);
    s.append(reinterpret_cast<const char*>(suffix.data() + pos), n);
    pos += n;
    prev = &s;
  }
  return Status::ok();
}

void front_code(std::span<const std::string_view> strings, std::vector<uint8_t>& out) {
  out.clear();
  for (size_t i = 0; i < strings.size(); ++i) {
    const std::string_view s = strings[i];
    // The reference: the string among the last kFrontCodingWindow that shares
    // the longest prefix (the nearest on a tie).
    size_t back = 0, p = 0;
    for (size_t k = 0; k < kFrontCodingWindow && k < i; ++k) {
      const size_t q = shared_prefix(s, strings[i - 1 - k]);
      if (q > p) {
        p = q;
        back = k;
      }
    }
    put_varint(out, back);
    put_varint(out, p);
    put_varint(out, s.size() - p);
    out.insert(out.end(), s.begin() + static_cast<long>(p), s.end());
  }
}

Status front_decode(std::span<const uint8_t> blob, uint64_t count, std::vector<std::string>& table) {
  // Every string takes at least three bytes (its three varints).
  if (count > blob.size() / 3)
    return Status::error("front-coded strings claim " + std::to_string(count) + " strings in " +
                         std::to_string(blob.size()) + " bytes");
  // First pass: lengths only, so that a bad blob is refused before anything
  // is allocated beyond the lengths (4 bytes per 3 bytes of blob at most).
  std::vector<uint32_t> lengths;
  lengths.reserve(count);
  size_t pos = 0;
  uint64_t total = 0;
  for (uint64_t i = 0; i < count; ++i) {
    auto fail = [&](const std::string& why) {
      return Status::error("front-coded string " + std::to_string(i) + " of " + std::to_string(count) + ": " + why);
    };
    uint64_t back, p, n;
    if (!get_length(blob, pos, back) || !get_length(blob, pos, p) || !get_length(blob, pos, n))
      return fail("lengths cut short or out of range");
    if (p > 0 && back >= i)
      return fail("refers to string " + std::to_string(back + 1) + " before it, outside the block");
    const uint64_t ref_len = p > 0 ? lengths.at(i - 1 - back) : 0;  // at(): the check above is the guard
    if (p > ref_len) return fail("shares " + std::to_string(p) + " bytes with a string of " + std::to_string(ref_len));
    if (n > blob.size() - pos) return fail("its " + std::to_string(n) + " bytes run past the block");
    total += p + n + kStringOverhead;
    if (total > kMaxStringBlockBytes)
      return fail("the block decodes to more than " + std::to_string(kMaxStringBlockBytes) + " bytes");
    pos += n;
    lengths.push_back(static_cast<uint32_t>(p + n));
  }
  if (pos != blob.size())
    return Status::error("front-coded strings: " + std::to_string(blob.size() - pos) + " bytes left over after " +
                         std::to_string(count) + " strings");
  // Second pass: the blob is known to be well formed.
  const size_t base = table.size();
  table.reserve(base + count);
  pos = 0;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t back, p, n;
    get_length(blob, pos, back);
    get_length(blob, pos, p);
    get_length(blob, pos, n);
    std::string s;
    s.reserve(p + n);
    if (p > 0) s.append(table[base + i - 1 - back], 0, p);
    s.append(reinterpret_cast<const char*>(blob.data() + pos), n);
    pos += n;
    table.push_back(std::move(s));
  }
  return Status::ok();
}

}  // namespace fsr

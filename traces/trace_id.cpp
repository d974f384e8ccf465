// SPDX-License-Identifier: Apache-2.0
#include "traces/trace_id.h"

#include <cstring>

namespace fsr {
namespace {

// The finaliser of MurmurHash3 (fmix64): a bijection that spreads every bit.
uint64_t fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

}  // namespace

void TraceIdHasher::add(uint64_t word) {
  state_ = fmix64(state_ ^ fmix64(word + 0x9e3779b97f4a7c15ull)) + 0x632be59bd9b4e019ull;
}

void TraceIdHasher::add_bytes(const void* data, size_t len) {
  const auto* p = static_cast<const unsigned char*>(data);
  add(len);
  for (; len >= 8; p += 8, len -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    add(w);
  }
  uint64_t tail = 0;
  std::memcpy(&tail, p, len);
  add(tail);
}

uint64_t TraceIdHasher::value() const {
  const uint64_t v = fmix64(state_);
  return v == kNoTraceId ? 1 : v;
}

std::string format_trace_id(uint64_t id) {
  if (id == kNoTraceId) return "none";
  static const char kHex[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, id >>= 4) s[static_cast<size_t>(i)] = kHex[id & 15];
  return s;
}

std::optional<uint64_t> parse_trace_id(std::string_view text) {
  if (text.size() != 16) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0) return std::nullopt;
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  return v;
}

}  // namespace fsr

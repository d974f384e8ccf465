// SPDX-License-Identifier: Apache-2.0
#include "traces/columns.h"

#include <algorithm>
#include <zstd.h>

#include <stdexcept>
#include <utility>
#include <string>

namespace fsr {

namespace {

template <bool kScatter>
Status decode_varints(std::span<const uint8_t> in, size_t count, uint64_t* out, const uint32_t* to) {
  size_t pos = 0;
  const size_t n = in.size();
  const uint8_t* d = in.data();
  for (size_t i = 0; i < count; ++i) {
    uint64_t& slot = out[kScatter ? to[i] : i];
    if (pos < n && d[pos] < 0x80) {  // most values fit one byte
      slot = d[pos++];
      continue;
    }
    uint64_t v = 0;
    int shift = 0;
    while (true) {
      if (pos >= n)
        return Status::error("column ends after " + std::to_string(i) + " of " + std::to_string(count) + " values");
      uint8_t b = in[pos++];
      if (shift == 63 && b > 1) return Status::error("varint overflows 64 bits");
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
      shift += 7;
      if (shift > 63) return Status::error("varint longer than 10 bytes");
    }
    slot = v;
  }
  if (pos != n)
    return Status::error("column has " + std::to_string(n - pos) + " bytes past its " + std::to_string(count) +
                         " values");
  return Status::ok();
}

}  // namespace

Status decode_column(std::span<const uint8_t> in, size_t count, std::vector<uint64_t>& out, const uint32_t* to) {
  out.resize(count);
  return to ? decode_varints<true>(in, count, out.data(), to) : decode_varints<false>(in, count, out.data(), nullptr);
}

bool thread_major_events(std::span<const uint64_t> thread_col, size_t threads, std::vector<uint32_t>& event_at,
                         std::vector<uint32_t>& cursor) {
  cursor.assign(threads, 0);
  for (uint64_t t : thread_col) {
    if (t >= threads) return false;
    ++cursor[t];
  }
  uint32_t start = 0;  // counts -> each thread's first position
  for (auto& c : cursor) start += std::exchange(c, start);
  event_at.resize(thread_col.size());
  for (size_t i = 0; i < thread_col.size(); ++i) event_at[cursor[thread_col[i]]++] = static_cast<uint32_t>(i);
  return true;
}

Compressor::Compressor(int level) : cctx_(ZSTD_createCCtx()), level_(level) {}
Compressor::~Compressor() { ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(cctx_)); }

void Compressor::compress(std::span<const uint8_t> in, std::vector<uint8_t>& out) {
  const size_t bound = ZSTD_compressBound(in.size());
  if (bound_cap_ < bound) {
    bound_cap_ = std::max(bound, 2 * bound_cap_);
    bound_buf_.reset(new uint8_t[bound_cap_]);
  }
  size_t r = ZSTD_compressCCtx(static_cast<ZSTD_CCtx*>(cctx_), bound_buf_.get(), bound, in.data(), in.size(), level_);
  if (ZSTD_isError(r)) throw std::logic_error(std::string("zstd compress: ") + ZSTD_getErrorName(r));
  out.assign(bound_buf_.get(), bound_buf_.get() + r);
}

Decompressor::Decompressor() : dctx_(ZSTD_createDCtx()) {}
Decompressor::~Decompressor() { ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(dctx_)); }

Status Decompressor::decompress(std::span<const uint8_t> in, size_t expected, std::vector<uint8_t>& out) {
  unsigned long long declared = ZSTD_getFrameContentSize(in.data(), in.size());
  if (declared == ZSTD_CONTENTSIZE_ERROR) return Status::error("not a zstd frame");
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != expected)
    return Status::error("zstd frame declares " + std::to_string(declared) + " bytes, expected " +
                         std::to_string(expected));
  out.resize(expected);
  size_t r = ZSTD_decompressDCtx(static_cast<ZSTD_DCtx*>(dctx_), out.data(), out.size(), in.data(), in.size());
  if (ZSTD_isError(r)) return Status::error(std::string("zstd: ") + ZSTD_getErrorName(r));
  if (r != expected)
    return Status::error("zstd frame expanded to " + std::to_string(r) + " bytes, expected " +
                         std::to_string(expected));
  return Status::ok();
}

}  // namespace fsr

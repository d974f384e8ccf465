// SPDX-License-Identifier: Apache-2.0
#include "traces/frame_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/crc32c.h"

namespace fsr {
namespace {
constexpr size_t kResyncBlock = 1 << 20;
}  // namespace

void FrameFile::refresh_size() {
  struct stat st {};
  if (::fstat(fd.get(), &st) == 0) size = static_cast<uint64_t>(st.st_size);
}

bool FrameFile::pread_all(void* buf, size_t n, uint64_t off) {
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(fd.get(), static_cast<char*>(buf) + done, n - done, static_cast<off_t>(off + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    done += static_cast<size_t>(r);
  }
  return true;
}

FrameFile::Got FrameFile::read_frame(uint64_t off, FrameHeader& h, std::string& why) {
  if (off + kFrameHeaderSize > size) return off == size ? Got::kEnd : Got::kPartial;
  uint8_t hb[kFrameHeaderSize];
  if (!pread_all(hb, sizeof hb, off)) return Got::kPartial;
  auto dh = decode_frame_header(hb);
  if (!dh) {
    // The trailer follows the index frame; anything else here is damage.
    why = "not a valid frame header";
    return Got::kBadHeader;
  }
  h = *dh;
  if (off + kFrameHeaderSize + h.payload_len > size) return Got::kPartial;
  payload.resize(h.payload_len);
  if (!pread_all(payload.data(), h.payload_len, off + kFrameHeaderSize)) return Got::kPartial;
  if (crc32c(payload.data(), payload.size()) != h.payload_crc) {
    why = "checksum mismatch";
    return Got::kBadPayload;
  }
  words.resize(h.raw_len / sizeof(uint64_t));
  if (h.encoding == FrameEncoding::kZstdCapnp) {
    std::vector<uint8_t>& raw = scratch.raw;
    if (Status st = z.decompress(payload, h.raw_len, raw); !st) {
      why = st.message();
      return Got::kBadPayload;
    }
    std::memcpy(words.data(), raw.data(), h.raw_len);
  } else {
    std::memcpy(words.data(), payload.data(), h.raw_len);
  }
  return Got::kFrame;
}

uint64_t FrameFile::resync(uint64_t off) {
  std::vector<uint8_t> buf;
  for (uint64_t pos = off + 1; pos + kFrameHeaderSize <= size;) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(kResyncBlock + kFrameHeaderSize, size - pos));
    buf.resize(n);
    if (!pread_all(buf.data(), n, pos)) return 0;
    for (size_t i = 0; i + kFrameHeaderSize <= n; ++i)
      if (buf[i] == 0x46 && decode_frame_header(&buf[i])) return pos + i;
    if (n <= kFrameHeaderSize) break;
    pos += n - kFrameHeaderSize + 1;
  }
  return 0;
}

}  // namespace fsr

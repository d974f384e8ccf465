// SPDX-License-Identifier: Apache-2.0
#include "traces/frame.h"

#include <cstring>

#include "base/crc32c.h"

namespace fsr {
namespace {
void put16(uint8_t* p, uint16_t v) { std::memcpy(p, &v, 2); }
void put32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }
uint16_t get16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
uint32_t get32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
}  // namespace

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the container is little-endian");

void encode_file_header(uint8_t out[kFileHeaderSize], uint16_t version, uint16_t kind) {
  std::memcpy(out, kFileMagic, 8);
  put16(out + 8, version);
  put16(out + 10, kind);
  put32(out + 12, 0);
}

// Layout: magic u32 | type u16 | encoding u16 | payload_len u32 | raw_len u32 |
//         records u32 | payload_crc u32 | reserved u32 | header_crc u32
void encode_frame_header(const FrameHeader& h, uint8_t out[kFrameHeaderSize]) {
  put32(out, kFrameMagic);
  put16(out + 4, static_cast<uint16_t>(h.type));
  put16(out + 6, static_cast<uint16_t>(h.encoding));
  put32(out + 8, h.payload_len);
  put32(out + 12, h.raw_len);
  put32(out + 16, h.records);
  put32(out + 20, h.payload_crc);
  put32(out + 24, 0);
  put32(out + 28, crc32c(out, 28));
}

std::optional<FrameHeader> decode_frame_header(const uint8_t in[kFrameHeaderSize]) {
  if (get32(in) != kFrameMagic) return std::nullopt;
  if (get32(in + 28) != crc32c(in, 28)) return std::nullopt;
  FrameHeader h;
  uint16_t type = get16(in + 4), enc = get16(in + 6);
  if (type < 1 || type > 8 || enc > 1) return std::nullopt;
  h.type = static_cast<FrameType>(type);
  h.encoding = static_cast<FrameEncoding>(enc);
  h.payload_len = get32(in + 8);
  h.raw_len = get32(in + 12);
  h.records = get32(in + 16);
  h.payload_crc = get32(in + 20);
  if (h.payload_len > kMaxFramePayload || h.raw_len > kMaxFrameRaw) return std::nullopt;
  if (h.encoding == FrameEncoding::kCapnp && h.raw_len != h.payload_len) return std::nullopt;
  if (h.raw_len % 8 != 0) return std::nullopt;  // capnp messages are whole words
  return h;
}

std::string frame_type_name(FrameType t) {
  switch (t) {
    case FrameType::kHeader:
      return "header";
    case FrameType::kStrings:
      return "strings";
    case FrameType::kPrestate:
      return "prestate";
    case FrameType::kEvents:
      return "events";
    case FrameType::kOps:
      return "ops";
    case FrameType::kFooter:
      return "footer";
    case FrameType::kIndex:
      return "index";
    case FrameType::kProfile:
      return "profile";
  }
  return "?";
}

}  // namespace fsr

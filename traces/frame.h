// SPDX-License-Identifier: Apache-2.0
// The container's framing: file header, frame headers, trailer. Every frame
// header carries its own CRC, so a reader can tell a torn tail (header fine,
// payload cut) from damage (header fails its CRC) and resynchronise on the
// next valid header. Limits here bound every allocation a reader makes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "base/status.h"

namespace fsr {

inline constexpr char kFileMagic[8] = {'F', 'S', 'R', 'E', 'P', 'L', 'A', 'Y'};
inline constexpr char kTrailerMagic[8] = {'F', 'S', 'R', 'I', 'N', 'D', 'E', 'X'};
inline constexpr uint32_t kFrameMagic = 0x314D5246;  // "FRM1"
inline constexpr size_t kFileHeaderSize = 16;
inline constexpr size_t kFrameHeaderSize = 32;
inline constexpr size_t kTrailerSize = 16;

// Hard limits on what a reader will allocate for one frame, whatever the file says.
inline constexpr uint32_t kMaxFramePayload = 64u << 20;
inline constexpr uint32_t kMaxFrameRaw = 64u << 20;
inline constexpr uint32_t kMaxChunkRecords = 1u << 20;

enum class FrameType : uint16_t {
  kHeader = 1,
  kStrings = 2,
  kPrestate = 3,
  kEvents = 4,
  kOps = 5,
  kFooter = 6,
  kIndex = 7,
  kProfile = 8,  // a probe's measurements (traces/profile.h); readers of traces skip it
};
enum class FrameEncoding : uint16_t { kCapnp = 0, kZstdCapnp = 1 };

struct FrameHeader {
  FrameType type = FrameType::kHeader;
  FrameEncoding encoding = FrameEncoding::kZstdCapnp;
  uint32_t payload_len = 0;  // bytes stored after the header
  uint32_t raw_len = 0;      // bytes after decompression (== payload_len when not compressed)
  uint32_t records = 0;      // events/ops/entries/strings in the frame
  uint32_t payload_crc = 0;
};

void encode_file_header(uint8_t out[kFileHeaderSize], uint16_t version, uint16_t kind);
void encode_frame_header(const FrameHeader& h, uint8_t out[kFrameHeaderSize]);

// Decodes a frame header; nullopt when the magic or its CRC is wrong, or a
// field is out of range (type, encoding, limits).
std::optional<FrameHeader> decode_frame_header(const uint8_t in[kFrameHeaderSize]);

std::string frame_type_name(FrameType t);

}  // namespace fsr

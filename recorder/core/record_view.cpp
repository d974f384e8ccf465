// SPDX-License-Identifier: Apache-2.0
#include "recorder/core/record_view.h"

#include <cstring>

namespace fsr {

static_assert(sizeof(fsr_rec) == FSR_REC_SIZE, "fsr_rec layout changed: update FSR_REC_SIZE");
static_assert(sizeof(fsr_inode) == FSR_INODE_SIZE, "fsr_inode layout changed: update FSR_INODE_SIZE");
static_assert(sizeof(fsr_rec) % 8 == 0 && sizeof(fsr_inode) % 8 == 0, "sections must stay 8-byte aligned");
static_assert(FSR_ARGS_MAX <= 8 * sizeof(fsr_rec::arg_mask), "arg_mask too narrow");

bool parse_record(const void* data, size_t size, RecordView& out) {
  const auto* p = static_cast<const char*>(data);
  if (size < sizeof(fsr_rec)) return false;
  std::memcpy(&out.hdr, p, sizeof(fsr_rec));
  size_t at = sizeof(fsr_rec);
  const unsigned mask = out.hdr.arg_mask;
  if (mask >> FSR_ARGS_MAX) return false;  // bits past the last argument: not a record of ours
  for (int i = 0; i < FSR_ARGS_MAX; ++i) {
    out.args[i] = 0;
    if (!(mask & (1u << i))) continue;
    if (size - at < sizeof(uint64_t)) return false;
    std::memcpy(&out.args[i], p + at, sizeof(uint64_t));
    at += sizeof(uint64_t);
  }
  out.inode = fsr_inode{};
  if (out.hdr.flags & FSR_RF_HAS_INODE) {
    if (size - at < sizeof(fsr_inode)) return false;
    std::memcpy(&out.inode, p + at, sizeof(fsr_inode));
    at += sizeof(fsr_inode);
  }
  if (size - at < out.hdr.len0) return false;
  out.strings = p + at;
  out.len1 = size - at - out.hdr.len0;
  return true;
}

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// RecordView: one kernel record (bpf/fsreplay_record.h) with its optional
// sections unpacked: the arguments named by arg_mask back in their argument
// slots, the inode facts when the record has them, and where its strings
// are. The only user-side code that knows the order of the sections. Never
// trusts a record: one whose sections or strings would overrun its size is
// refused, never read past.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bpf/fsreplay_record.h"

namespace fsr {

struct RecordView {
  fsr_rec hdr{};
  uint64_t args[FSR_ARGS_MAX] = {};  // 0 where the record carries no such argument
  fsr_inode inode{};                 // all 0 without FSR_RF_HAS_INODE
  const char* strings = nullptr;     // hdr.len0 bytes of path0, then len1 of path1
  size_t len1 = 0;                   // path1: the rest of the record
};

// Unpacks the record of `size` bytes at `data` (any alignment). False when
// it is shorter than its header and sections say.
bool parse_record(const void* data, size_t size, RecordView& out);

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// Record builder: the bytes of kernel records (bpf/fsreplay_record.h) made in
// user space, the inverse of record_view's parse_record. write_record lays
// out given fields; record_for_event rebuilds the record the BPF side wrote
// for an event that EventDecoder decoded, so that the drain pipeline can be
// fed from a recorded trace without a kernel (dev/bench/drain_bench.cpp).
// Only the layout is shared with the kernel side: nothing here may depend on
// a live kernel or on the decoder's state.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "bpf/fsreplay_record.h"
#include "traces/event.h"

namespace fsr {

// Replaces `out` with one record: `hdr`, the arguments of hdr.arg_mask,
// `inode` when hdr.flags has FSR_RF_HAS_INODE, then path0 and path1 as the
// kernel copies them (path0 with its NUL: hdr.len0 is set to its size, 0 =
// none; path1 the rest of the record).
void write_record(std::vector<char>& out, fsr_rec hdr, const uint64_t (&args)[FSR_ARGS_MAX], const fsr_inode& inode,
                  std::string_view path0, std::string_view path1);

// Replaces `out` with the record the BPF side submits for `e`, an event
// decoded in a trace whose monotonic start is `mono_start_ns`; path0 and
// path1 are the texts of e.path[0] and e.path[1] ("" for none). Syscall
// records carry the arguments of recorded_arg_mask, the inode facts when the
// event has some, and the event's paths where the kernel reads a path
// argument (an empty one, AT_EMPTY_PATH, only where it did not resolve);
// paths that the decoder takes from its fd table are left to it again. The
// paths go as the trace holds them (absolute where they were resolved), not
// as the program passed them: decoding the record gives the same event, at
// the cost of longer strings, except for the marks of relative paths
// (event.h kEfRelative0), which such a record no longer has: compare events
// through rebuilt_flags. False when `e` has no record form (a syscall
// number outside the table).
inline uint16_t rebuilt_flags(uint16_t flags) { return static_cast<uint16_t>(flags & ~(kEfRelative0 | kEfRelative1)); }

bool record_for_event(const Event& e, uint64_t mono_start_ns, std::string_view path0, std::string_view path1,
                      std::vector<char>& out);

}  // namespace fsr

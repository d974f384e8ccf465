// SPDX-License-Identifier: Apache-2.0
// Test helpers: kernel records in the ring layout that
// the recorder's BPF programs write (header, arguments of arg_mask, inode
// facts when FSR_RF_HAS_INODE, path0, path1 to the end), laid out by
// recorder/record_builder rather than through the parser under test; and
// records as the BPF side fills them in, for tests that feed a decoder a
// process's life.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "recorder/core/record_builder.h"
#include "recorder/core/syscall_arity.h"
#include "traces/syscalls.h"

namespace fsr::test {

// `hdr.len0` is set from path0 (NUL included; none when empty). path1 is
// copied as given (exec argv: NUL-separated, NUL-terminated).
inline std::vector<char> record_bytes(fsr_rec hdr, const uint64_t (&args)[6], const fsr_inode& inode,
                                      std::string_view path0 = {}, std::string_view path1 = {}) {
  std::vector<char> out;
  write_record(out, hdr, args, inode, path0.empty() ? std::string() : std::string(path0) + '\0', path1);
  return out;
}

// One record's parts.
struct RawRecord {
  fsr_rec hdr{};
  uint64_t args[6] = {};
  fsr_inode inode{};
  std::string path0, path1;  // as the kernel copies them (NUL included)
  std::vector<char> bytes() const {
    std::vector<char> out;
    write_record(out, hdr, args, inode, path0, path1);
    return out;
  }
};

inline std::string with_nul(std::string s) { return s.empty() ? s : s + '\0'; }

// Enter and exit times that only grow, over all the records a test makes.
inline uint64_t next_tick() {
  static uint64_t clock = 1'000'000;
  return clock += 500;
}

// A syscall record as sys_exit submits it: the arguments of the call's
// recorded mask; paths given without their NUL (none when empty); the inode
// section when `inode` has a mode.
inline RawRecord syscall_record(uint32_t pid, uint32_t tid, uint16_t nr, std::vector<uint64_t> args, int64_t ret,
                                std::string p0 = {}, std::string p1 = {}, uint16_t flags = 0, fsr_inode inode = {}) {
  RawRecord r;
  r.hdr.ts = next_tick();
  r.hdr.end = next_tick();
  r.hdr.ret = ret;
  r.hdr.pid = pid;
  r.hdr.tid = tid;
  r.hdr.nr = nr;
  r.hdr.kind = FSR_REC_SYSCALL;
  r.hdr.flags = flags | (inode.mode ? FSR_RF_HAS_INODE : 0);
  const SyscallInfo* info = syscall_info(nr);
  r.hdr.arg_mask = info ? recorded_arg_mask(*info) : 0x3f;
  for (size_t i = 0; i < args.size() && i < 6; ++i) r.args[i] = args[i];
  r.inode = inode;
  r.path0 = with_nul(std::move(p0));
  r.path1 = with_nul(std::move(p1));
  return r;
}

// A fork, exec, exit or fault record (FSR_REC_*): the first args.size()
// arguments; exec's argv in p1 as the kernel copies it (NUL-separated and
// -terminated).
inline RawRecord process_record(uint8_t kind, uint32_t pid, uint32_t tid, std::vector<uint64_t> args,
                                std::string p0 = {}, std::string p1 = {}, uint16_t flags = 0, fsr_inode inode = {}) {
  RawRecord r = syscall_record(pid, tid, 0, args, 0, std::move(p0), {}, flags, inode);
  r.hdr.kind = kind;
  r.hdr.arg_mask = static_cast<uint8_t>((1u << args.size()) - 1);
  r.path1 = std::move(p1);
  if (kind == FSR_REC_EXIT) r.hdr.ret = static_cast<int64_t>(args[0]);
  return r;
}

}  // namespace fsr::test

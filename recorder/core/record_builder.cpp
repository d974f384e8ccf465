// SPDX-License-Identifier: Apache-2.0
#include "recorder/core/record_builder.h"

#include <sys/syscall.h>

#include <bit>
#include <cstring>
#include <string>

#include "recorder/core/syscall_arity.h"
#include "traces/syscalls.h"

namespace fsr {
namespace {

// The decoder copies these record flags into the event unchanged.
static_assert(kEfPathTruncated == FSR_RF_PATH_TRUNC && kEfUnfinished == FSR_RF_UNFINISHED &&
              kEfThreadClone == FSR_RF_THREAD && kEfSharedFiles == FSR_RF_SHARED_FILES &&
              kEfFdIsPipe == FSR_RF_FD_IS_PIPE);
constexpr uint16_t kPassedFlags = kEfPathTruncated | kEfUnfinished | kEfThreadClone | kEfSharedFiles | kEfFdIsPipe;

// A string as the kernel copies it: its bytes and a NUL; nothing for none.
std::string with_nul(std::string_view s) { return s.empty() ? std::string() : std::string(s) + '\0'; }

}  // namespace

void write_record(std::vector<char>& out, fsr_rec hdr, const uint64_t (&args)[FSR_ARGS_MAX], const fsr_inode& inode,
                  std::string_view path0, std::string_view path1) {
  hdr.len0 = static_cast<uint16_t>(path0.size());
  const bool has_inode = (hdr.flags & FSR_RF_HAS_INODE) != 0;
  out.resize(sizeof(hdr) + 8 * std::popcount(hdr.arg_mask & ((1u << FSR_ARGS_MAX) - 1)) +
             (has_inode ? sizeof(inode) : 0) + path0.size() + path1.size());
  char* at = out.data();
  auto put = [&at](const void* p, size_t n) {
    if (n) std::memcpy(at, p, n);
    at += n;
  };
  put(&hdr, sizeof(hdr));
  for (int i = 0; i < FSR_ARGS_MAX; ++i)
    if (hdr.arg_mask & (1u << i)) put(&args[i], sizeof(args[i]));
  if (has_inode) put(&inode, sizeof(inode));
  put(path0.data(), path0.size());
  put(path1.data(), path1.size());
}

bool record_for_event(const Event& e, uint64_t mono_start_ns, std::string_view path0, std::string_view path1,
                      std::vector<char>& out) {
  fsr_rec h{};
  h.ts = mono_start_ns + e.ts;
  h.end = h.ts + e.dur;
  h.ret = e.ret;
  h.pid = e.pid;
  h.tid = e.tid;
  h.flags = e.flags & kPassedFlags;
  uint64_t args[FSR_ARGS_MAX] = {};
  for (int i = 0; i < FSR_ARGS_MAX; ++i) args[i] = e.args[i];
  fsr_inode inode{};
  if (e.dev || e.ino || e.size || e.mode) {  // the decoder fills them only from FSR_RF_HAS_INODE
    inode = {e.dev, e.ino, e.size, e.mode, 0};
    h.flags |= FSR_RF_HAS_INODE;
  }
  std::string s0, s1;

  // Non-syscall records (begin_rec in the BPF program): the first n arguments, nr 0.
  auto process_rec = [&](uint8_t kind, int nargs) {
    h.kind = kind;
    h.arg_mask = static_cast<uint8_t>((1u << nargs) - 1);
  };
  switch (e.nr) {
    case kEvProcFork:
      process_rec(FSR_REC_FORK, 2);  // child tid, child tgid; CLONE_FS is a flag
      if (e.args[2]) h.flags |= FSR_RF_SHARED_FS;
      break;
    case kEvProcExec:
      process_rec(FSR_REC_EXEC, 1);  // the old pid; filename, then argv (the decoder drops its last NUL)
      s0 = with_nul(path0);
      s1 = with_nul(path1);
      break;
    case kEvProcExit:
      process_rec(FSR_REC_EXIT, 2);  // exit code (also in ret), whether the group is gone
      break;
    case kEvPageFault:
      process_rec(FSR_REC_FAULT, 3);  // file offset, address, error code; the file is the inode's
      break;
    default: {
      const SyscallInfo* info = syscall_info(e.nr);
      if (!info || e.nr >= FSR_MAX_NR) return false;
      h.kind = FSR_REC_SYSCALL;
      h.nr = e.nr;
      h.arg_mask = recorded_arg_mask(*info);
      // exit and exit_group never return: the BPF side submits them at task
      // exit, marked unfinished (the decoder clears the mark), like any call
      // a task died in. Such records carry neither inode facts nor paths.
      if (e.nr == SYS_exit || e.nr == SYS_exit_group) h.flags |= FSR_RF_UNFINISHED;
      if (h.flags & FSR_RF_UNFINISHED) {
        h.flags &= static_cast<uint16_t>(~FSR_RF_HAS_INODE);
        break;
      }
      if (path_only_on_failure(*info) && e.ret == 0) break;
      std::string* s[2] = {&s0, &s1};
      const std::string_view p[2] = {path0, path1};
      for (int i = 0; i < 2; ++i) {
        if (info->path[i] < 0) continue;
        *s[i] = with_nul(p[i]);
        // No path but an unresolved one: the empty path of AT_EMPTY_PATH on
        // an fd the decoder did not know (it resolves to nothing). The kernel
        // copied its NUL.
        if (p[i].empty() && info->dirfd[i] >= 0 && (e.flags & kEfPathUnresolved)) s[i]->assign(1, '\0');
      }
      break;
    }
  }
  if (s0.size() > UINT16_MAX) return false;  // len0 is 16 bits (the kernel reads at most FSR_PATH_MAX)
  write_record(out, h, args, inode, s0, s1);
  return true;
}

}  // namespace fsr

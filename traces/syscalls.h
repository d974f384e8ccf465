// SPDX-License-Identifier: Apache-2.0
// The one syscall table of fsreplay (x86-64): number -> name -> class, plus what
// the recorder needs to know to capture each call and what the replayer needs to
// re-issue it. The recorder, the replayer, the reports and the tests all read it;
// nothing else may hard-code syscall numbers or classes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace fsr {

// Attribution classes (docs/design.md "Attribution"). Order is part of the file
// format (class ids are stored in drop counters): append only.
enum class SyscallClass : uint8_t {
  kStat = 0,
  kOpen,
  kClose,
  kRead,
  kWrite,
  kReaddir,
  kMkdir,
  kRmdir,
  kUnlink,
  kRename,
  kLink,
  kAttr,
  kXattr,
  kSync,
  kMmap,
  kCopy,
  kFd,
  kProcess,
  kWait,
  kOther,
  kCount
};
inline constexpr int kClassCount = static_cast<int>(SyscallClass::kCount);

std::string_view class_name(SyscallClass c);
std::optional<SyscallClass> class_from_name(std::string_view name);

// Pseudo-syscall numbers for events that are not syscalls. They share the
// `nr` field of an event; real x86-64 syscall numbers stay below 1000.
inline constexpr uint16_t kEvProcExec = 1000;  // sched_process_exec: path0=filename, path1=argv (NUL-joined)
inline constexpr uint16_t kEvProcExit = 1001;  // sched_process_exit: arg0=exit code (wait status form)
inline constexpr uint16_t kEvPageFault =
    1002;  // first user fault on a file page: path0=file, arg0=file offset, arg1=vaddr
inline constexpr uint16_t kEvProcFork = 1003;   // sched_process_fork: arg0=child tid, arg1=child tgid
inline constexpr uint16_t kMaxSyscallNr = 512;  // table bound for per-nr arrays (BPF side too)

// AT_FDCWD as a recorded dirfd argument holds it (Linux's value, fixed by the ABI).
inline constexpr int kAtFdcwd = -100;
// The same as a raw argument (Event::args), sign-extended as the recorder stores it.
inline constexpr uint64_t kAtFdcwdArg = static_cast<uint64_t>(static_cast<int64_t>(kAtFdcwd));

// Flags describing a syscall's shape.
enum SyscallFlag : uint16_t {
  kSfReturnsFd = 1 << 0,       // a non-negative return is a new fd (open, dup, pipe: see kSfFdPairOut)
  kSfFdPairOut = 1 << 1,       // writes two fds to an int[2] at arg0 (pipe, pipe2) / arg3 (socketpair);
                               // the recorder stores them in that arg slot as fd0 | fd1 << 32
  kSfBlocking = 1 << 2,        // may block waiting for another thread (causal wait)
  kSfWakes = 1 << 3,           // may end another thread's wait (write to pipe, futex wake, exit)
  kSfStatBuf = 1 << 4,         // fills a struct stat at arg `stat_buf`
  kSfStatxBuf = 1 << 5,        // fills a struct statx at arg `stat_buf`
  kSfLiteralPath0 = 1 << 6,    // path0 is stored as given, never resolved (symlink target)
  kSfPathOptional = 1 << 7,    // a NULL path is legal (utimensat, execveat with AT_EMPTY_PATH)
  kSfIoUring = 1 << 8,         // io_uring: counted, not replayed
  kSfNamespace = 1 << 9,       // changes a directory's entries (create/unlink/rename/mkdir/rmdir/link)
  kSfEmptyPathForm = 1 << 10,  // with AT_EMPTY_PATH and path0 "", acts on the dirfd's own file (fchownat, linkat)
};

struct SyscallInfo {
  uint16_t nr;
  std::string_view name;
  SyscallClass cls;
  int8_t path[2];    // argument index holding a path string, -1 = none
  int8_t dirfd[2];   // argument index of the dirfd that path[i] is relative to, -1 = cwd
  int8_t fd;         // argument index of an fd operand, -1 = none
  int8_t stat_buf;   // argument index of a stat/statx output buffer, -1 = none
  uint8_t ptr_mask;  // bit i set: arg i is a user pointer; its raw value is never stored
  uint16_t flags;    // SyscallFlag bits
};

// Every syscall the recorder may emit (and the pseudo events), ordered by nr.
std::span<const SyscallInfo> syscall_table();

// nullptr when `nr` is not in the table.
const SyscallInfo* syscall_info(uint32_t nr);

// Class of any number; numbers outside the table are kOther.
SyscallClass class_of(uint32_t nr);

// "openat", or "sys_123" for numbers outside the table.
std::string syscall_name(uint32_t nr);

std::optional<uint16_t> syscall_from_name(std::string_view name);

// The open flags an open-like call passed, from its number and arguments
// (open: arg 1, openat: arg 2, creat: O_CREAT|O_WRONLY|O_TRUNC); 0 (O_RDONLY)
// for any other call, openat2 included (its flags are behind a pointer).
uint32_t open_flags(uint32_t nr, uint64_t arg1, uint64_t arg2);

}  // namespace fsr

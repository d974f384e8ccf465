// SPDX-License-Identifier: Apache-2.0
// slowfs_opcounts: one counter per FUSE request kind that slowfs answers, for
// `--op-stats`: the ground truth of how many requests a workload (or its
// replay) sent to the mount.
//
// Counting is one relaxed fetch_add per request, no lock: it runs on every
// request thread. Never touches the file system except in write_file(), which
// runs off the request path (at unmount or on SIGUSR1).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace fsr {

// The requests slowfs implements, named as in the FUSE protocol
// (FUSE_LOOKUP -> "LOOKUP"). BATCH_FORGET is one request carrying many forgets.
// FLOCK is FUSE_SETLK/SETLKW with the flock flag. Requests libfuse answers
// itself (INIT, DESTROY, INTERRUPT, STATX's ENOSYS) never reach slowfs.
enum class FuseOp : uint8_t {
  kLookup,
  kForget,
  kBatchForget,
  kGetattr,
  kSetattr,
  kReadlink,
  kMknod,
  kMkdir,
  kSymlink,
  kLink,
  kUnlink,
  kRmdir,
  kRename,
  kOpen,
  kCreate,
  kRead,
  kWrite,
  kFlush,
  kRelease,
  kFsync,
  kFallocate,
  kFlock,
  kStatfs,
  kAccess,
  kSetxattr,
  kGetxattr,
  kListxattr,
  kRemovexattr,
  kOpendir,
  kReaddir,
  kReaddirplus,
  kReleasedir,
  kFsyncdir,
  kCount
};
constexpr size_t kFuseOpCount = static_cast<size_t>(FuseOp::kCount);

std::string_view fuse_op_name(FuseOp op);

// Writes `text` to path.tmp, then renames it to `path`, so a reader polling
// for the file never sees half of it. Returns "" or a one-line error.
std::string write_text_atomically(const std::string& path, const std::string& text);

// Per-opcode request counts. Relaxed: a count is read only after the request
// that incremented it was answered (the dump happens after the caller saw its
// syscall return), and no other memory is published through it.
class OpCounters {
 public:
  void add(FuseOp op) { count_[static_cast<size_t>(op)].fetch_add(1, std::memory_order_relaxed); }
  uint64_t get(FuseOp op) const { return count_[static_cast<size_t>(op)].load(std::memory_order_relaxed); }
  // "opcode count" header, then one "NAME N" line per opcode, every opcode
  // listed (zeros included) in enum order.
  std::string format() const;
  // Writes format() to `path` atomically (path.tmp, then rename), so a reader
  // polling for the file never sees half of it. Returns "" or a one-line error.
  std::string write_file(const std::string& path) const;

 private:
  std::array<std::atomic<uint64_t>, kFuseOpCount> count_{};
};

}  // namespace fsr

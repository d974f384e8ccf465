// Internal to the executor (executor.cpp, exec_files.cpp, exec_io.cpp): one
// op's context and the helpers every family of calls uses. Not an API.
#pragma once

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <string>

#include "replayer/executor.h"
#include "replayer/resolver.h"
#include "traces/syscalls.h"

namespace fsr::exec {

inline int64_t rc(long r) { return r < 0 ? -errno : r; }

struct Ctx {
  uint32_t i;
  ExecEnv& env;
  const Event& e;
  const PlanOp& op;
  char* buf;
  uint64_t buf_size;
  uint16_t& flags;

  const Features& feat() const { return *env.features; }
  int dirfd(int k) const {
    return env.root[static_cast<int>(env.plan->paths[op.path[k]].mapped.root)];
  }
  const std::string& relpath(int k) const { return env.plan->paths[op.path[k]].mapped.rel; }
  const char* rel(int k) const {
    const std::string& r = relpath(k);
    return r.empty() ? "." : r.c_str();
  }
  int fd() const { return op.ofd == kNoOfd ? -1 : env.ofd_fd[op.ofd]; }
  int fd2() const { return op.ofd2 == kNoOfd ? -1 : env.ofd_fd[op.ofd2]; }
  uint64_t io_len(int count_arg) const {
    return e.ret >= 0 ? static_cast<uint64_t>(e.ret) : (count_arg >= 0 ? e.args[count_arg] : 4096);
  }
  void fallback(Feature f) {
    feat().used_fallback(f);
    flags |= kOfFallback;
  }
  int64_t skipped() {  // not issued: the recorded result stands
    flags |= kOfSkipped;
    return e.ret;
  }
};

// Runs `fn(parent_fd, base)` on the parent of path k opened beneath its root.
template <typename F>
int64_t with_parent(Ctx& c, int k, F fn) {
  std::string base;
  int pfd = open_parent_beneath(c.dirfd(k), c.relpath(k), base, c.feat());
  if (pfd < 0) return pfd;
  int64_t r = fn(pfd, base.c_str());
  close(pfd);
  return r;
}

// Runs `fn(fd)` on path k opened O_PATH beneath its root (following the last link unless asked).
template <typename F>
int64_t with_opath(Ctx& c, int k, bool nofollow, F fn) {
  int fd = open_beneath(c.dirfd(k), c.relpath(k), O_PATH | (nofollow ? O_NOFOLLOW : 0), 0, c.feat());
  if (fd < 0) return fd;
  int64_t r = fn(fd);
  close(fd);
  return r;
}

// The families: each answers the calls it knows, std::nullopt for the others.
std::optional<int64_t> files_op(Ctx& c);  // opens, stats, names, attributes, xattrs (exec_files.cpp)
std::optional<int64_t> io_op(Ctx& c);     // reads, writes, copies, syncs, fd calls (exec_io.cpp)
int64_t device_op(Ctx& c);                // any call on a character device's stand-in (exec_files.cpp)

}  // namespace fsr::exec

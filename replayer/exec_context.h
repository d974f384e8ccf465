// Internal to the executor (executor.cpp, exec_files.cpp, exec_io.cpp): one
// op's context and the helpers every family of calls uses. Not an API.
#pragma once

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <string>
#include <string_view>

#include "replayer/executor.h"
#include "replayer/resolver.h"
#include "traces/paths.h"
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
  DirCache* dirs;
  mutable std::string tailed[2] = {};  // relpath()'s text for a path with a tail

  const Features& feat() const { return *env.features; }
  const LinkRoots* links() const { return &env.links; }
  int dirfd(int k) const {
    return env.root[static_cast<int>(env.plan->paths[op.path[k]].mapped.root)];
  }
  // Path k beneath its root as the plan maps it (normalised: "x/" and "x/."
  // are x), and the ending the original passed, which its result depended on.
  const std::string& mapped_rel(int k) const { return env.plan->paths[op.path[k]].mapped.rel; }
  std::string_view tail(int k) const { return tail_text(static_cast<PathTail>(event_tail_code(e, k))); }
  // Path k as the call is to name it: the mapped path with its tail.
  const std::string& relpath(int k) const {
    const std::string& r = mapped_rel(k);
    const std::string_view t = tail(k);
    if (t.empty()) return r;
    std::string& s = tailed[k];
    s.assign(r.empty() ? "." : r);
    s += t;
    return s;
  }
  const char* rel(int k) const {
    const std::string& r = relpath(k);
    return r.empty() ? "." : r.c_str();
  }
  int fd() const { return op.ofd == kNoOfd ? -1 : env.ofd_fd[op.ofd]; }
  int fd2() const { return op.ofd2 == kNoOfd ? -1 : env.ofd_fd[op.ofd2]; }
  // The buffer for a call of `len` bytes, and its size in `size`: the
  // worker's, or the shared one when the call is larger and there is one.
  char* io_buf(uint64_t len, uint64_t& size) const {
    if (len > buf_size && env.big_buf_size > buf_size) {
      size = env.big_buf_size;
      return env.big_buf;
    }
    size = buf_size;
    return buf;
  }
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

// Path k as an absolute path in `out` (its root's path joined with the mapped
// one), for read-only calls that take no directory fd; false when the root's
// path is not known or the result does not fit. Like fstatat from the root's
// fd, the walk follows symlinks as the original's did.
inline bool abs_path(const Ctx& c, int k, char* out, size_t n) {
  const std::string& root = c.env.root_path[static_cast<int>(c.env.plan->paths[c.op.path[k]].mapped.root)];
  const std::string& rel = c.relpath(k);
  if (root.empty() || root[0] != '/' || root.size() + rel.size() + 2 > n) return false;
  char* p = std::copy(root.begin(), root.end(), out);
  if (!rel.empty()) {
    *p++ = '/';
    p = std::copy(rel.begin(), rel.end(), p);
  }
  *p = '\0';
  return true;
}

// Runs `fn(parent_fd, base)` on the parent of path k opened beneath its root
// (kept in the worker's cache for the next call in that directory).
template <typename F>
int64_t with_parent(Ctx& c, int k, F fn) {
  const std::string& rel = c.mapped_rel(k);
  std::string_view parent;
  size_t at = 0;
  if (!split_parent(rel, parent, at)) return -EINVAL;
  const char* base = rel.c_str() + at;
  std::string tailed;  // "name/", "name/.": the call's answer depends on it
  if (const std::string_view t = c.tail(k); !t.empty()) {
    tailed.assign(base).append(t);
    base = tailed.c_str();
  }
  bool owned = true;
  int pfd = c.dirs ? c.dirs->open(c.dirfd(k), parent, c.feat(), owned, c.links())
                   : open_beneath(c.dirfd(k), parent, O_PATH | O_DIRECTORY, 0, c.feat(), c.links());
  if (pfd < 0) return pfd;
  if (c.dirs) c.dirs->hold();  // a nested lookup (rename's second name) must not close pfd
  int64_t r = fn(pfd, base);
  if (c.dirs) c.dirs->release();
  if (owned) close(pfd);
  return r;
}

// A rename or an rmdir was issued: cached parents may name other directories.
inline void tree_changed(Ctx& c) { c.env.tree_gen.fetch_add(1, std::memory_order_release); }

// Runs `fn(fd)` on path k opened O_PATH beneath its root (following the last link unless asked).
template <typename F>
int64_t with_opath(Ctx& c, int k, bool nofollow, F fn) {
  int fd = open_beneath(c.dirfd(k), c.relpath(k), O_PATH | (nofollow ? O_NOFOLLOW : 0), 0, c.feat(), c.links());
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

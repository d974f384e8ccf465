// SPDX-License-Identifier: Apache-2.0
// Internal to the executor (executor.cpp, exec_files.cpp, exec_io.cpp): one
// op's context and the helpers every family of calls uses. Not an API.
#pragma once

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "replayer/exec/executor.h"
#include "replayer/exec/resolver.h"
#include "base/paths.h"
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
  mutable std::string tailed[2] = {};   // relpath()'s text for a path with a tail
  mutable int base_[2] = {-2, -2};      // walk_from(): -2 not yet looked at, -1 the root
  mutable bool anchored_made_[2] = {};  // anchored_text(k) holds this op's path k (mapped_rel)

  // The worker thread's text of an anchored path k: made once per op, in
  // a buffer kept across ops (an absolute path's walk from the mount's root
  // is most ops under walks as passed; no allocation each).
  static std::string& anchored_text(int k) {
    thread_local std::string text[2];
    return text[k];
  }
  const Features& feat() const { return *env.features; }
  const LinkRoots* links() const { return &env.links; }
  int root_fd(int k) const { return env.root[static_cast<int>(env.plan->paths[op.path[k]].mapped.root)]; }
  // The fd of the directory path k's walk starts from, as the original's did
  // (its dirfd's or its cwd's: PlanOp::walk), or -1 for the root. Read once
  // per op: the fd and the text walked from it go together.
  int walk_from(int k) const {
    if (base_[k] == -2) {
      const uint32_t w = op.walk[k];
      base_[k] = w == kNoOfd || !env.plan->walks_as_passed ? -1 : w == kWalkFromRoot ? root_fd(k) : env.ofd_fd[w];
      if (base_[k] < 0) base_[k] = -1;  // (its open failed, or its chdir is not replayed yet)
    }
    return base_[k];
  }
  // An absolute path under walks as passed: walked from the root of the
  // root's mount, through the root's own components (ExecEnv::anchor).
  bool anchored(int k) const {
    return walk_from(k) < 0 && env.plan->walks_as_passed &&
           env.anchor[static_cast<int>(env.plan->paths[op.path[k]].mapped.root)] >= 0;
  }
  // Where path k's walk starts: its dirfd's or cwd's directory, else the
  // root's mount (anchored), else its root.
  int dirfd(int k) const {
    const int b = walk_from(k);
    if (b >= 0) return b;
    const int r = static_cast<int>(env.plan->paths[op.path[k]].mapped.root);
    return env.plan->walks_as_passed && env.anchor[r] >= 0 ? env.anchor[r] : env.root[r];
  }
  // The plan's text of path k beneath its root (the whole walk, from the root).
  const std::string& plan_rel(int k) const { return env.plan->paths[op.path[k]].mapped.rel; }
  // Path k beneath dirfd(k) (NUL-terminated): the plan's mapped text
  // (normalised: "x/" and "x/." are x), less the walk base's and its '/'.
  // Then the ending the original passed, which its result depended on.
  std::string_view mapped_rel(int k) const {
    const std::string& r = env.plan->paths[op.path[k]].mapped.rel;
    if (anchored(k)) {
      std::string& a = anchored_text(k);
      if (!anchored_made_[k]) {
        a.assign(env.anchor_prefix[static_cast<int>(env.plan->paths[op.path[k]].mapped.root)]);
        if (!r.empty()) a.append("/").append(r);
        anchored_made_[k] = true;
      }
      return a;
    }
    if (walk_from(k) < 0 || op.walk[k] == kWalkFromRoot) return r;
    const size_t skip = env.plan->paths[env.plan->ofds[op.walk[k]].path].mapped.rel.size();
    return std::string_view(r).substr(std::min(r.size(), skip + 1));
  }
  std::string_view tail(int k) const { return tail_text(static_cast<PathTail>(event_tail_code(e, k))); }
  // Path k as the call is to name it: the mapped path with its tail (NUL-terminated).
  std::string_view relpath(int k) const {
    const std::string_view r = mapped_rel(k);
    const std::string_view t = tail(k);
    if (t.empty()) return r;
    std::string& s = tailed[k];
    s.assign(r.empty() ? std::string_view(".") : r);
    s += t;
    return s;
  }
  const char* rel(int k) const {
    const std::string_view r = relpath(k);
    return r.empty() ? "." : r.data();
  }
  // Path k as the call names it (relpath), opened from its walk's base.
  int open_path(int k, int flags, mode_t mode) const { return walk_open(k, relpath(k), flags, mode, 0, tail(k)); }
  // The directory `parent` of path k: a prefix of mapped_rel(k), as
  // split_parent cut it (with_parent), opened O_PATH from the walk's base.
  int open_parent(int k, std::string_view parent) const {
    return walk_open(k, parent, O_PATH | O_DIRECTORY, 0, mapped_rel(k).size() - parent.size(), {});
  }
  // An open of `rel` beneath dirfd(k). From a walk base, a refusal to leave
  // it (a symlink to elsewhere beneath the root: EXDEV) is walked again from
  // the root, where the original's stayed. From the mount's root (anchored),
  // only a walk that meets no symlink is taken (it then stays beneath the
  // root's components, lexically); one that meets a link (ELOOP) is walked
  // again from the root. The walk from the root names the same file: the
  // plan's text of path k less its last `drop` characters, then `tail`.
  int walk_open(int k, std::string_view rel, int flags, mode_t mode, size_t drop, std::string_view tail) const {
    const bool anchor = anchored(k);
    const int fd = anchor ? openat2_beneath(dirfd(k), rel, flags, mode, RESOLVE_NO_SYMLINKS)
                          : open_beneath(dirfd(k), rel, flags, mode, feat(), links());
    if (anchor ? fd != -ELOOP : (fd != -EXDEV || walk_from(k) < 0)) return fd;
    const std::string& p = plan_rel(k);
    std::string whole(p, 0, p.size() >= drop ? p.size() - drop : 0);
    if (whole.empty()) whole = ".";
    whole += tail;
    return open_beneath(root_fd(k), whole, flags, mode, feat(), links());
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
// "/proc/self/fd/N": a name for an O_PATH fd the path calls accept.
inline std::string proc_fd(int fd) {
  char b[48];
  snprintf(b, sizeof b, "/proc/self/fd/%d", fd);
  return b;
}

inline bool abs_path(const Ctx& c, int k, char* out, size_t n) {
  // Walks as passed: from the root's fd or the walk's base, through /proc (a
  // walk from "/" would look up the root's own components on its mount).
  if (c.env.plan->walks_as_passed) return false;
  const std::string& root = c.env.root_path[static_cast<int>(c.env.plan->paths[c.op.path[k]].mapped.root)];
  const std::string_view rel = c.relpath(k);
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
  if (c.plan_rel(k).empty()) return -EINVAL;  // the root itself: never removed or renamed
  const std::string_view rel = c.mapped_rel(k);
  std::string_view parent;
  size_t at = 0;
  if (!split_parent(rel, parent, at)) return -EINVAL;
  const char* base = rel.data() + at;
  std::string tailed;  // "name/", "name/.": the call's answer depends on it
  if (const std::string_view t = c.tail(k); !t.empty()) {
    tailed.assign(base).append(t);
    base = tailed.c_str();
  }
  bool owned = true;
  // Walks as passed: each walk is made whole, as the original made it (a
  // parent kept from an earlier call would save the mount lookups it sent).
  DirCache* dirs = c.env.plan->walks_as_passed ? nullptr : c.dirs;
  int pfd;
  if (dirs) {
    pfd = dirs->open(c.dirfd(k), parent, c.feat(), owned, c.links());
  } else if (parent.empty()) {
    pfd = c.dirfd(k);
    owned = false;
  } else {
    pfd = c.open_parent(k, parent);
  }
  if (pfd < 0) return pfd;
  if (dirs) dirs->hold();  // a nested lookup (rename's second name) must not close pfd
  int64_t r = fn(pfd, base);
  if (dirs) dirs->release();
  if (owned) close(pfd);
  return r;
}

// A rename or an rmdir was issued: cached parents may name other directories.
inline void tree_changed(Ctx& c) { c.env.tree_gen.fetch_add(1, std::memory_order_release); }

// Runs `fn(fd)` on path k opened O_PATH beneath its root (following the last link unless asked).
// Without the path ("" with AT_EMPTY_PATH: kSfEmptyPathForm), on the fd's file.
template <typename F>
int64_t with_opath(Ctx& c, int k, bool nofollow, F fn) {
  if (c.op.path[k] == kNoPath) return c.fd() < 0 ? -EBADF : fn(c.fd());
  int fd = c.open_path(k, O_PATH | (nofollow ? O_NOFOLLOW : 0), 0);
  if (fd < 0) return fd;
  int64_t r = fn(fd);
  close(fd);
  return r;
}

// The families: each answers the calls it knows, std::nullopt for the others.
std::optional<int64_t> files_op(Ctx& c);  // opens, stats, names (exec_files.cpp)
std::optional<int64_t> attr_op(Ctx& c);   // attributes and xattrs (exec_attrs.cpp)
std::optional<int64_t> io_op(Ctx& c);     // reads, writes, copies, syncs, fd calls (exec_io.cpp)
int64_t device_op(Ctx& c);                // any call on a character device's stand-in (exec_files.cpp)

}  // namespace fsr::exec

// SPDX-License-Identifier: Apache-2.0
#include "replayer/exec/resolver.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <deque>
#include <vector>

#include "base/paths.h"

namespace fsr {
namespace {

constexpr int kMaxSymlinks = 40;

void split(std::string_view p, std::deque<std::string>& out, bool front) {
  std::vector<std::string_view> parts;
  split_path(p, parts);
  // "x/" names x only if it is a directory (after following it): as "x/." does.
  if (!parts.empty() && p.back() == '/') parts.push_back(".");
  if (front)
    out.insert(out.begin(), parts.begin(), parts.end());
  else
    out.insert(out.end(), parts.begin(), parts.end());
}

struct FdStack {
  std::vector<int> fds;  // fds[0] is the root (not owned)
  ~FdStack() {
    for (size_t i = 1; i < fds.size(); ++i) close(fds[i]);
  }
  int top() const { return fds.back(); }
};

// The root an absolute link text lies beneath, or -1.
int link_root(const LinkRoots* links, std::string_view target) {
  if (!links) return -1;
  for (int r = 0; r < links->n; ++r) {
    const std::string& p = links->path[r];
    if (links->fd[r] >= 0 && p.size() > 1 && p[0] == '/' && is_beneath(target, p)) return r;
  }
  return -1;
}

}  // namespace

int open_beneath_user(int rootfd, std::string_view rel, int flags, mode_t mode, const LinkRoots* links) {
  std::deque<std::string> rest;
  split(rel, rest, false);
  FdStack st;
  st.fds.push_back(rootfd);
  int hops = 0;
  const bool follow_last = !(flags & O_NOFOLLOW);
  while (true) {
    if (rest.empty()) {  // the root itself, or a path ending in ".."
      int fd = openat(st.top(), ".", (flags & ~(O_CREAT | O_EXCL)) | O_CLOEXEC, mode);
      return fd >= 0 ? fd : -errno;
    }
    std::string c = std::move(rest.front());
    rest.pop_front();
    if (c == ".") continue;
    if (c == "..") {
      if (st.fds.size() == 1) return -EXDEV;
      close(st.fds.back());
      st.fds.pop_back();
      continue;
    }
    const bool last = rest.empty();
    if (last) {
      int fd = openat(st.top(), c.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
      if (fd >= 0) {
        if (!(flags & O_PATH)) return fd;
        struct stat sb;  // O_PATH|O_NOFOLLOW opens the link itself
        if (fstat(fd, &sb) == 0 && !S_ISLNK(sb.st_mode)) return fd;
        close(fd);
        if (!follow_last) {
          int l = openat(st.top(), c.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
          return l >= 0 ? l : -errno;
        }
      } else if (!follow_last || (errno != ELOOP && !(errno == ENOTDIR && (flags & O_DIRECTORY)))) {
        // (O_DIRECTORY|O_NOFOLLOW on a link is ENOTDIR, not ELOOP: a link
        // to a directory is followed below, anything else stays ENOTDIR)
        return -errno;
      }
    } else {
      int fd = openat(st.top(), c.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) return -errno;
      struct stat sb;
      if (fstat(fd, &sb) != 0) {
        int err = errno;
        close(fd);
        return -err;
      }
      if (S_ISDIR(sb.st_mode)) {
        st.fds.push_back(fd);
        continue;
      }
      close(fd);
      if (!S_ISLNK(sb.st_mode)) return -ENOTDIR;
    }
    // A symlink: splice its target in front of what remains.
    if (++hops > kMaxSymlinks) return -ELOOP;
    char buf[4096];
    const int why = errno;  // what the last component's open met
    ssize_t n = readlinkat(st.top(), c.c_str(), buf, sizeof buf);
    if (n < 0) return errno == EINVAL && last ? -why : -errno;  // EINVAL: no link after all
    std::string_view target(buf, static_cast<size_t>(n));
    if (!target.empty() && target[0] == '/') {
      const int r = link_root(links, target);
      if (r < 0) return -EXDEV;
      for (size_t i = 1; i < st.fds.size(); ++i) close(st.fds[i]);
      st.fds.assign(1, links->fd[r]);  // on from that root, never above it
      target.remove_prefix(links->path[r].size());
    }
    split(target, rest, true);
  }
}

int openat2_beneath(int rootfd, std::string_view rel, int flags, mode_t mode, uint64_t extra_resolve) {
  // openat2 refuses with EINVAL what open(2) quietly drops, and the replayed
  // calls were open(2)'s: flags it does not know, flags beside O_PATH other
  // than these, and mode bits other than the permissions (Node's fs.cp
  // passes the source's st_mode, S_IFREG included: each of its creates
  // diverged).
  constexpr int kValid = O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND | O_NONBLOCK | O_SYNC | O_DSYNC |
                         O_ASYNC | O_DIRECT | O_LARGEFILE | O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC | O_PATH |
                         O_TMPFILE;
  constexpr int kPathFlags = O_DIRECTORY | O_NOFOLLOW | O_PATH | O_CLOEXEC;
  flags &= kValid;
  if (flags & O_PATH) flags &= kPathFlags;
  open_how how{};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
  how.mode = (flags & (O_CREAT | O_TMPFILE)) ? (mode & 07777) : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | extra_resolve;
  char path[4096];
  size_t n = rel.size() < sizeof path - 1 ? rel.size() : sizeof path - 1;
  rel.copy(path, n);
  path[n] = 0;
  if (n == 0) path[0] = '.', path[1] = 0;
  long fd = syscall(SYS_openat2, rootfd, path, &how, sizeof how);
  return fd >= 0 ? static_cast<int>(fd) : -errno;
}

int open_beneath(int rootfd, std::string_view rel, int flags, mode_t mode, const Features& f, const LinkRoots* links) {
  if (f.has(Feature::kOpenat2)) {
    // openat2 fails with EAGAIN when a rename or mount anywhere on the
    // system raced its walk through a ".." (a relative symlink's): it cannot
    // tell that the walk stayed beneath the root (openat2(2): the caller may
    // retry). A replayed build renames all along: a few retries, then this
    // call walks in user space, which checks each step itself.
    constexpr int kRetries = 4;
    // EXDEV: an absolute link on the way, which may join the roots.
    for (int k = 0; k < kRetries; ++k)
      if (const int fd = openat2_beneath(rootfd, rel, flags, mode); fd != -EAGAIN && (fd != -EXDEV || !links))
        return fd;
    return open_beneath_user(rootfd, rel, flags, mode, links);
  }
  f.used_fallback(Feature::kOpenat2);
  return open_beneath_user(rootfd, rel, flags, mode, links);
}

bool split_parent(std::string_view rel, std::string_view& parent, size_t& base_at) {
  const size_t k = rel.rfind('/');
  base_at = k == std::string_view::npos ? 0 : k + 1;
  parent = rel.substr(0, base_at ? base_at - 1 : 0);
  const std::string_view base = rel.substr(base_at);
  return !base.empty() && base != "." && base != "..";
}

int open_parent_beneath(int rootfd, std::string_view rel, std::string& base, const Features& f,
                        const LinkRoots* links) {
  std::string_view parent;
  size_t at = 0;
  const bool ok = split_parent(rel, parent, at);
  base.assign(rel.substr(at));
  if (!ok) return -EINVAL;
  return open_beneath(rootfd, parent, O_PATH | O_DIRECTORY, 0, f, links);
}

}  // namespace fsr

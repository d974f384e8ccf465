// SPDX-License-Identifier: Apache-2.0
#include "replayer/session/prepare.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "replayer/engine/interrupt.h"
#include "replayer/exec/resolver.h"
#include "traces/syscalls.h"

namespace fsr {

int remove_tree_at(int pfd, const char* base) {
  if (unlinkat(pfd, base, 0) == 0 || errno == ENOENT) return 0;
  if (errno != EISDIR && errno != EPERM) return -errno;
  int dfd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dfd < 0) return -errno;
  DIR* d = fdopendir(dfd);
  if (!d) {
    close(dfd);
    return -errno;
  }
  std::vector<std::string> names;
  while (dirent* de = readdir(d))
    if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) names.emplace_back(de->d_name);
  int r = 0;
  for (auto& n : names)
    if ((r = remove_tree_at(dirfd(d), n.c_str())) < 0) break;
  closedir(d);
  if (r < 0) return r;
  return unlinkat(pfd, base, AT_REMOVEDIR) == 0 || errno == ENOENT ? 0 : -errno;
}

namespace {

std::string where_str(const MappedPath& m) {
  return std::string(m.root == Root::kTarget ? "TARGET/" : "SCRATCH/") + m.rel;
}

struct Parent {
  int fd = -1;
  std::string base;
  ~Parent() {
    if (fd >= 0) close(fd);
  }
};

int open_parent(const int roots[2], Root root, const std::string& rel, Parent& p, const Features& f) {
  p.fd = open_parent_beneath(roots[static_cast<int>(root)], rel, p.base, f);
  return p.fd;
}
int open_parent(const int roots[2], const MappedPath& m, Parent& p, const Features& f) {
  return open_parent(roots, m.root, m.rel, p, f);
}

Status err(const MappedPath& m, const char* what, int e) {
  return Status::error(std::string(what) + " " + where_str(m) + ": " + strerror(e) +
                       " (check the target is writable, or remove it and prepare again)");
}

}  // namespace

namespace {

// Writes `size` filler bytes in large writes.
int fill(int fd, uint64_t size, std::vector<char>& buf) {
  uint64_t done = 0;
  while (done < size) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(size - done, buf.size()));
    ssize_t w = write(fd, buf.data(), n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    done += static_cast<uint64_t>(w);
  }
  return 0;
}

// A worker's buffers, reused entry after entry.
struct Scratch {
  std::vector<char> fill = std::vector<char>(1 << 20, 'x');
  std::string rel, rel_to;
};

// One entry; returns 1 when it already matched, 0 when (re)made, -errno on
// failure. A hard link to an entry of a root not being made is made as a file.
int make_entry(const TreeSpec& spec, size_t i, const int roots[2], const Features& f, unsigned which, Scratch& sc) {
  const TreeEntry& t = spec.entries[i];
  Parent p;
  spec.rel(i, sc.rel);
  if (open_parent(roots, spec.root(i), sc.rel, p, f) < 0) return p.fd;
  struct stat st;
  bool exists = fstatat(p.fd, p.base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
  if (t.link_to != UINT32_MAX && (which & root_bit(spec.root(t.link_to)))) {
    Parent q;
    spec.rel(t.link_to, sc.rel_to);
    if (open_parent(roots, spec.root(t.link_to), sc.rel_to, q, f) < 0) return q.fd;
    struct stat ts;
    if (fstatat(q.fd, q.base.c_str(), &ts, AT_SYMLINK_NOFOLLOW) != 0) return -errno;
    if (exists && st.st_ino == ts.st_ino && st.st_dev == ts.st_dev) return 1;
    if (exists && remove_tree_at(p.fd, p.base.c_str()) < 0) return -errno;
    return linkat(q.fd, q.base.c_str(), p.fd, p.base.c_str(), 0) == 0 ? 0 : -errno;
  }
  switch (t.kind) {
    case PrestateKind::kDir:
      if (exists && S_ISDIR(st.st_mode)) return 1;
      if (exists && remove_tree_at(p.fd, p.base.c_str()) < 0) return -errno;
      return mkdirat(p.fd, p.base.c_str(), (t.mode & 07777) | 0700) == 0 ? 0 : -errno;
    case PrestateKind::kSymlink: {
      if (exists && S_ISLNK(st.st_mode)) {
        char lb[4096];
        ssize_t n = readlinkat(p.fd, p.base.c_str(), lb, sizeof lb);
        if (n >= 0 && std::string_view(lb, static_cast<size_t>(n)) == spec.target(i)) return 1;
      }
      if (exists && remove_tree_at(p.fd, p.base.c_str()) < 0) return -errno;
      return symlinkat(std::string(spec.target(i)).c_str(), p.fd, p.base.c_str()) == 0 ? 0 : -errno;
    }
    default: {
      if (exists && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) == t.size) return 1;
      if (exists && !S_ISREG(st.st_mode) && remove_tree_at(p.fd, p.base.c_str()) < 0) return -errno;
      if (exists && S_ISREG(st.st_mode)) fchmodat(p.fd, p.base.c_str(), 0600, 0);
      int fd = openat(p.fd, p.base.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd < 0) return -errno;
      int r = fill(fd, t.size, sc.fill);
      if (r == 0 && fchmod(fd, t.mode & 07777) != 0) r = -errno;
      close(fd);
      return r;
    }
  }
}

}  // namespace

namespace {

// One materialise() call: the entries it makes in the roots `which` names,
// and what its threads counted.
class TreeMaker {
 public:
  TreeMaker(const TreeSpec& spec, const int roots[2], const Features& f, const ProgressFn& progress, unsigned which,
            bool stoppable)
      : spec_(spec), roots_(roots), f_(f), progress_(progress), which_(which), stoppable_(stoppable) {
    for (size_t i = 0; i < spec.entries.size(); ++i) total_ += chosen(i);
    for (const MappedPath& m : spec.created) total_ += (which & root_bit(m.root)) != 0;
  }
  Status remove_created();
  Status make_dirs(size_t& first_rest);
  void make_rest(size_t first_rest, size_t first_link, unsigned threads);
  Result<PrepareStats> finish(size_t first_link);

 private:
  bool stop_now() {
    if (stoppable_ && stop_signal()) stopped_.store(true, std::memory_order_relaxed);
    return stopped_.load(std::memory_order_relaxed);
  }
  bool chosen(size_t i) const { return (which_ & root_bit(spec_.root(i))) != 0; }
  void make_until(size_t end);

  const TreeSpec& spec_;
  const int* roots_;
  const Features& f_;
  const ProgressFn& progress_;
  const unsigned which_;
  const bool stoppable_;
  std::atomic<bool> stopped_{false};
  PrepareStats stats_;
  uint64_t total_ = 0;
  std::atomic<uint64_t> done_{0};
  std::atomic<size_t> next_{0};  // the next entry a thread takes
  std::atomic<uint64_t> kept_{0}, files_{0}, syms_{0}, bytes_{0};
  std::mutex mu_;  // guards what follows
  uint64_t unmade_ = 0;
  std::string first_unmade_;
  Status failure_;
};

// Paths the trace creates go first (deepest first), so that a replayed tree resets.
Status TreeMaker::remove_created() {
  for (const MappedPath& m : spec_.created) {
    if (!(which_ & root_bit(m.root))) continue;
    if (stop_now()) break;
    Parent p;
    if (open_parent(roots_, m, p, f_) >= 0) {
      struct stat st;
      if (fstatat(p.fd, p.base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        int r = remove_tree_at(p.fd, p.base.c_str());
        if (r < 0) return err(m, "cannot remove", -r);
        ++stats_.removed;
      }
    }
    ++done_;
  }
  return Status::ok();
}

// Directories in order (parents first); `first_rest` is the first entry after them.
Status TreeMaker::make_dirs(size_t& first_rest) {
  Scratch sc;
  for (; first_rest < spec_.entries.size() && spec_.entries[first_rest].kind == PrestateKind::kDir &&
         spec_.entries[first_rest].link_to == UINT32_MAX;
       ++first_rest) {
    if (!chosen(first_rest)) continue;
    if (stop_now()) break;
    int r = make_entry(spec_, first_rest, roots_, f_, which_, sc);
    if (r < 0) return err(spec_.where(first_rest), "cannot create directory", -r);
    ++(r == 1 ? stats_.kept : stats_.dirs);
    if (progress_) progress_(++done_, total_);
  }
  return Status::ok();
}

// The files and symlinks in parallel, then the hard links (their targets exist then).
void TreeMaker::make_rest(size_t first_rest, size_t first_link, unsigned threads) {
  next_ = first_rest;
  unsigned n = std::max(1u, threads);
  std::vector<std::thread> pool;
  for (unsigned k = 0; k + 1 < n; ++k) pool.emplace_back([this, first_link] { make_until(first_link); });
  std::thread reporter;
  std::atomic<bool> stop{false};
  if (progress_)
    reporter = std::thread([&] {
      while (!stop.load()) {
        progress_(done_.load(), total_);
        usleep(100000);
      }
    });
  make_until(first_link);
  for (auto& t : pool) t.join();
  // Hard links last: their targets exist now.
  next_ = first_link;
  make_until(spec_.entries.size());
  stop = true;
  if (reporter.joinable()) reporter.join();
}

// A thread's share: entries taken one by one until `end`.
void TreeMaker::make_until(size_t end) {
  Scratch b;
  for (size_t i; (i = next_.fetch_add(1)) < end;) {
    if (!chosen(i)) continue;
    if (stop_now()) break;
    int r = make_entry(spec_, i, roots_, f_, which_, b);
    const TreeEntry& t = spec_.entries[i];
    if (r == -ENOENT || r == -ENOTDIR || r == -ELOOP || r == -EXDEV) {
      std::lock_guard<std::mutex> g(mu_);
      if (unmade_++ == 0) first_unmade_ = where_str(spec_.where(i));
      ++done_;
      continue;
    }
    if (r < 0) {
      std::lock_guard<std::mutex> g(mu_);
      if (failure_.is_ok()) failure_ = err(spec_.where(i), "cannot create", -r);
      continue;
    }
    if (r == 1)
      ++kept_;
    else if (t.kind == PrestateKind::kSymlink)
      ++syms_;
    else
      ++files_, bytes_ += t.size;
    ++done_;
  }
}

Result<PrepareStats> TreeMaker::finish(size_t first_link) {
  if (stopped_.load()) {
    const char* sig = sigabbrev_np(stop_signal());
    return Status::error("stopped by SIG" + std::string(sig ? sig : "?") + " while preparing the tree",
                         StatusCode::kInterrupted);
  }
  if (!failure_.is_ok()) return failure_;
  stats_.kept += kept_;
  stats_.files = files_;
  stats_.symlinks = syms_;
  for (size_t i = first_link; i < spec_.entries.size(); ++i) stats_.links += chosen(i);
  stats_.bytes = bytes_;
  stats_.unmade = unmade_;
  stats_.first_unmade = first_unmade_;
  if (progress_) progress_(total_, total_);
  return stats_;
}

}  // namespace

Result<PrepareStats> materialise(const TreeSpec& spec, const int roots[2], const Features& f, unsigned threads,
                                 const ProgressFn& progress, unsigned which, bool stoppable) {
  TreeMaker maker(spec, roots, f, progress, which, stoppable);
  FSR_RETURN_IF_ERROR(maker.remove_created());
  size_t first_rest = 0;
  FSR_RETURN_IF_ERROR(maker.make_dirs(first_rest));
  size_t first_link = first_rest;
  while (first_link < spec.entries.size() && spec.entries[first_link].link_to == UINT32_MAX) ++first_link;
  maker.make_rest(first_rest, first_link, threads);
  return maker.finish(first_link);
}

Result<uint64_t> repoint_scratch_links(const TreeSpec& spec, const int roots[2], const Features& f) {
  const std::string& dir = spec.scratch_dir;
  if (dir.empty()) return uint64_t{0};
  Scratch sc;
  uint64_t made = 0;
  for (size_t i = 0; i < spec.entries.size(); ++i) {
    const TreeEntry& t = spec.entries[i];
    if (t.kind != PrestateKind::kSymlink || t.link_to != UINT32_MAX || spec.root(i) != Root::kTarget) continue;
    const std::string_view text = spec.target(i);
    if (text.size() <= dir.size() || text.compare(0, dir.size(), dir) != 0 || text[dir.size()] != '/') continue;
    const int r = make_entry(spec, i, roots, f, root_bit(Root::kTarget), sc);
    if (r < 0) return err(spec.where(i), "cannot point again", -r);
    made += r == 0;
  }
  return made;
}

namespace {
thread_local const TreeSpec* g_scan_spec = nullptr;
thread_local std::string g_scan_bad;
thread_local size_t g_scan_prefix = 0;

int scan_one(const char* path, const struct stat* sb, int type, struct FTW*) {
  if (type != FTW_SL || !sb) return 0;
  char lb[4096];
  ssize_t n = readlink(path, lb, sizeof lb);
  if (n < 0) return 0;
  std::string_view t(lb, static_cast<size_t>(n));
  std::string rel = std::string(path).substr(std::min(strlen(path), g_scan_prefix));
  std::string dir(parent_of("/" + rel).substr(1));
  bool ok;
  if (!t.empty() && t[0] == '/') {
    auto inside = [&](const std::string& d) {
      return !d.empty() && t.substr(0, d.size()) == d && (t.size() == d.size() || t[d.size()] == '/') &&
             t.find("/..") == std::string_view::npos;
    };
    ok = inside(g_scan_spec->target_dir) || inside(g_scan_spec->scratch_dir);
  } else {
    ok = stays_beneath(dir, t);
  }
  if (ok) return 0;
  g_scan_bad = rel + " -> " + std::string(t);
  return 1;
}
}  // namespace

Status verify_tree(const TreeSpec& spec, const int roots[2], const Features& f) {
  std::string rel;
  for (size_t i = 0; i < spec.entries.size(); ++i) {
    const TreeEntry& t = spec.entries[i];
    Parent p;
    struct stat st;
    spec.rel(i, rel);
    if (open_parent(roots, spec.root(i), rel, p, f) < 0 || fstatat(p.fd, p.base.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
      return Status::error(where_str(spec.where(i)) + " is missing: run 'fsreplay prepare' first");
    bool kind_ok = t.kind == PrestateKind::kDir ? S_ISDIR(st.st_mode)
                   : t.kind == PrestateKind::kSymlink
                       ? S_ISLNK(st.st_mode)
                       : S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) == t.size;
    if (!kind_ok)
      return Status::error(where_str(spec.where(i)) +
                           " differs from the trace's initial state: run "
                           "'fsreplay prepare' again");
  }
  for (const MappedPath& m : spec.created) {
    Parent p;
    struct stat st;
    if (open_parent(roots, m, p, f) >= 0 && fstatat(p.fd, p.base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
      return Status::error(where_str(m) + " exists but the trace creates it: run 'fsreplay prepare' again");
  }
  for (int r = 0; r < 2; ++r) {
    char rb[4096];
    std::string link = "/proc/self/fd/" + std::to_string(roots[r]);
    ssize_t rn = readlink(link.c_str(), rb, sizeof rb - 1);
    if (rn <= 0) return Status::error("cannot read the path of replay root " + link);
    std::string root(rb, static_cast<size_t>(rn));
    g_scan_spec = &spec;
    g_scan_bad.clear();
    g_scan_prefix = root.size() + 1;
    if (nftw(root.c_str(), scan_one, 32, FTW_PHYS) == 1)
      return Status::error(std::string(r == 0 ? "TARGET/" : "SCRATCH/") + g_scan_bad +
                           " points outside the replay roots: remove it before replaying");
  }
  return Status::ok();
}

}  // namespace fsr

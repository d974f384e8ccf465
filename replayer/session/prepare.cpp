#include "replayer/session/prepare.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
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
int make_entry(const TreeSpec& spec, size_t i, const int roots[2], const Features& f, unsigned which,
               Scratch& sc) {
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

Result<PrepareStats> materialise(const TreeSpec& spec, const int roots[2], const Features& f,
                                 unsigned threads, const ProgressFn& progress, unsigned which, bool stoppable) {
  std::atomic<bool> stopped{false};
  auto stop_now = [&] {
    if (stoppable && stop_signal()) stopped.store(true, std::memory_order_relaxed);
    return stopped.load(std::memory_order_relaxed);
  };
  PrepareStats stats;
  auto chosen = [&](size_t i) { return (which & root_bit(spec.root(i))) != 0; };
  uint64_t total = 0;
  for (size_t i = 0; i < spec.entries.size(); ++i) total += chosen(i);
  for (const MappedPath& m : spec.created) total += (which & root_bit(m.root)) != 0;
  std::atomic<uint64_t> done{0};
  // Paths the trace creates go first (deepest first), so that a replayed tree resets.
  for (const MappedPath& m : spec.created) {
    if (!(which & root_bit(m.root))) continue;
    if (stop_now()) break;
    Parent p;
    if (open_parent(roots, m, p, f) >= 0) {
      struct stat st;
      if (fstatat(p.fd, p.base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        int r = remove_tree_at(p.fd, p.base.c_str());
        if (r < 0) return err(m, "cannot remove", -r);
        ++stats.removed;
      }
    }
    ++done;
  }
  // Directories in order (parents first), then the rest in parallel.
  Scratch sc;
  size_t first_rest = 0;
  for (; first_rest < spec.entries.size() && spec.entries[first_rest].kind == PrestateKind::kDir &&
         spec.entries[first_rest].link_to == UINT32_MAX; ++first_rest) {
    if (!chosen(first_rest)) continue;
    if (stop_now()) break;
    int r = make_entry(spec, first_rest, roots, f, which, sc);
    if (r < 0) return err(spec.where(first_rest), "cannot create directory", -r);
    ++(r == 1 ? stats.kept : stats.dirs);
    if (progress) progress(++done, total);
  }
  size_t first_link = first_rest;
  while (first_link < spec.entries.size() && spec.entries[first_link].link_to == UINT32_MAX) ++first_link;
  std::atomic<size_t> next{first_rest};
  std::atomic<uint64_t> kept{0}, files{0}, syms{0}, bytes{0};
  uint64_t unmade = 0;
  std::string first_unmade;
  std::mutex mu;
  Status failure;
  auto work = [&](size_t end) {
    Scratch b;
    for (size_t i; (i = next.fetch_add(1)) < end;) {
      if (!chosen(i)) continue;
      if (stop_now()) break;
      int r = make_entry(spec, i, roots, f, which, b);
      const TreeEntry& t = spec.entries[i];
      if (r == -ENOENT || r == -ENOTDIR || r == -ELOOP || r == -EXDEV) {
        std::lock_guard<std::mutex> g(mu);
        if (unmade++ == 0) first_unmade = where_str(spec.where(i));
        ++done;
        continue;
      }
      if (r < 0) {
        std::lock_guard<std::mutex> g(mu);
        if (failure.is_ok()) failure = err(spec.where(i), "cannot create", -r);
        continue;
      }
      if (r == 1) ++kept;
      else if (t.kind == PrestateKind::kSymlink) ++syms;
      else ++files, bytes += t.size;
      ++done;
    }
  };
  unsigned n = std::max(1u, threads);
  std::vector<std::thread> pool;
  for (unsigned k = 0; k + 1 < n; ++k) pool.emplace_back(work, first_link);
  std::thread reporter;
  std::atomic<bool> stop{false};
  if (progress)
    reporter = std::thread([&] {
      while (!stop.load()) {
        progress(done.load(), total);
        usleep(100000);
      }
    });
  work(first_link);
  for (auto& t : pool) t.join();
  // Hard links last: their targets exist now.
  next = first_link;
  work(spec.entries.size());
  stop = true;
  if (reporter.joinable()) reporter.join();
  if (stopped.load())
    return Status::error("stopped by SIG" + std::string(sigabbrev_np(stop_signal()) ? sigabbrev_np(stop_signal()) : "?") +
                             " while preparing the tree",
                         StatusCode::kInterrupted);
  if (!failure.is_ok()) return failure;
  stats.kept += kept;
  stats.files = files;
  stats.symlinks = syms;
  for (size_t i = first_link; i < spec.entries.size(); ++i) stats.links += chosen(i);
  stats.bytes = bytes;
  stats.unmade = unmade;
  stats.first_unmade = first_unmade;
  if (progress) progress(total, total);
  return stats;
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

Status check_root_writable(int fd, const std::string& path, const TreeSpec& spec, Root which, std::string* warning) {
  const std::string what = which == Root::kTarget ? "target" : "scratch directory";
  const std::string opt = which == Root::kTarget ? "--target" : "--scratch (or TMPDIR)";
  struct statvfs sv;
  if (fstatvfs(fd, &sv) == 0) {
    if (sv.f_flag & ST_RDONLY)
      return Status::error(what + " " + path + " is on a read-only mount: remount it read-write or choose another " + opt);
    // What the tree still needs: entries not there yet, files not yet at their size.
    uint64_t bytes = 0, inodes = 0, largest = 0;
    std::string r, largest_rel;
    for (size_t i = 0; i < spec.entries.size(); ++i) {
      const TreeEntry& t = spec.entries[i];
      if (spec.root(i) != which) continue;
      struct stat st;
      spec.rel(i, r);
      const char* rel = r.empty() ? "." : r.c_str();
      const bool there = fstatat(fd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0;
      if (!there) ++inodes;
      if (t.kind == PrestateKind::kFile && t.link_to == UINT32_MAX &&
          (!there || static_cast<uint64_t>(st.st_size) != t.size)) {
        bytes += t.size;
        if (t.size > largest) largest = t.size, largest_rel = r;
      }
    }
    const uint64_t size_bytes = static_cast<uint64_t>(sv.f_blocks) * sv.f_frsize;
    // Headroom for the replay's own entries: 1 MiB, an eighth of a smaller file system.
    const uint64_t mib = std::min<uint64_t>(1u << 20, size_bytes / 8);
    const uint64_t free_bytes = static_cast<uint64_t>(sv.f_bavail) * sv.f_frsize;
    auto in_mib = [](uint64_t b) { return std::to_string((b + (1u << 20) - 1) >> 20); };  // rounded up
    if (sv.f_blocks == 0) {
      // FUSE without statfs, some network mounts: no size to check against.
      if (warning && bytes > 0)
        *warning = what + " " + path + " reports no size (its file system answers statfs with 0 blocks): the tree needs " +
                   in_mib(bytes) + " MiB there and its room is unknown; if writes fail with ENOSPC, free space or choose another " + opt;
    } else if (bytes + mib > free_bytes) {
      return Status::error(what + " " + path + " has " + std::to_string(free_bytes >> 20) + " MiB free (of " +
                           in_mib(size_bytes) + ") and the trace's initial tree needs " + in_mib(bytes) +
                           " MiB there plus " + (mib == (1u << 20) ? std::string("1 MiB") : std::to_string(mib >> 10) + " KiB") +
                           " of headroom" +
                           (largest > size_bytes / 2 ? " (its largest file, " + largest_rel + ", alone is " + in_mib(largest) + " MiB)" : std::string()) +
                           "; nothing was written: free space or choose another " + opt);
    }
    if (sv.f_files > 0 && sv.f_favail < inodes + 16)
      return Status::error(what + " " + path + " has " + std::to_string(sv.f_favail) + " free inodes and the tree needs " +
                           std::to_string(inodes) + " (plus 16): free some or choose another " + opt);
  }
  return Status::ok();
}

Status unwritable_root(const std::string& what, const std::string& path, int e, const std::string& opt) {
  if (e == EROFS) return Status::error(what + " " + path + " is on a read-only mount: remount it read-write or choose another " + opt);
  if (e == ENOSPC || e == EDQUOT) return Status::error(what + " " + path + " is full (" + strerror(e) + "): free space or choose another " + opt);
  if (e == EACCES || e == EPERM)
    return Status::error(what + " " + path + " is not writable by uid " + std::to_string(geteuid()) +
                         ": give this user write access (chown/chmod) or choose another " + opt);
  return Status::error(what + " " + path + ": cannot create entries in it (" + strerror(e) + "): choose another " + opt);
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
    if (open_parent(roots, spec.root(i), rel, p, f) < 0 ||
        fstatat(p.fd, p.base.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
      return Status::error(where_str(spec.where(i)) + " is missing: run 'fsreplay prepare' first");
    bool kind_ok = t.kind == PrestateKind::kDir ? S_ISDIR(st.st_mode)
                   : t.kind == PrestateKind::kSymlink ? S_ISLNK(st.st_mode)
                   : S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) == t.size;
    if (!kind_ok)
      return Status::error(where_str(spec.where(i)) + " differs from the trace's initial state: run "
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

#include "replayer/prepare.h"

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

#include "replayer/resolver.h"
#include "traces/syscalls.h"

namespace fsr {
namespace {

std::string key_of(const MappedPath& m) { return (m.root == Root::kTarget ? "T/" : "S/") + m.rel; }
size_t depth(const std::string& rel) {
  return rel.empty() ? 0 : 1 + static_cast<size_t>(std::count(rel.begin(), rel.end(), '/'));
}
std::string where_str(const MappedPath& m) {
  return std::string(m.root == Root::kTarget ? "TARGET/" : "SCRATCH/") + m.rel;
}
bool is_removal(uint16_t nr, int k) {
  return nr == SYS_unlink || nr == SYS_unlinkat || nr == SYS_rmdir ||
         (k == 0 && (nr == SYS_rename || nr == SYS_renameat || nr == SYS_renameat2));
}

// Removes `base` in directory `pfd`, recursively, never following a symlink.
int remove_at(int pfd, const char* base) {
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
    if ((r = remove_at(dirfd(d), n.c_str())) < 0) break;
  closedir(d);
  if (r < 0) return r;
  return unlinkat(pfd, base, AT_REMOVEDIR) == 0 || errno == ENOENT ? 0 : -errno;
}

struct Parent {
  int fd = -1;
  std::string base;
  ~Parent() {
    if (fd >= 0) close(fd);
  }
};

int open_parent(const int roots[2], const MappedPath& m, Parent& p, const Features& f) {
  p.fd = open_parent_beneath(roots[static_cast<int>(m.root)], m.rel, p.base, f);
  return p.fd;
}

Status err(const MappedPath& m, const char* what, int e) {
  return Status::error(std::string(what) + " " + where_str(m) + ": " + strerror(e) +
                       " (check the target is writable, or remove it and prepare again)");
}

// The trace holds readlink's length, not its text. A resolver's next lookup
// by the same thread usually is the target (realpath, which(1), gcc's own
// lookup): take it when its length fits, else a placeholder of that length.
std::string guess_link_target(const Plan& plan, const std::vector<Event>& ev, uint32_t i,
                              const std::string& link_abs, size_t len) {
  const uint32_t tid = ev[i].tid;
  for (uint32_t j = i + 1, seen = 0; j < ev.size() && seen < 16; ++j) {
    if (ev[j].tid != tid) continue;
    ++seen;
    uint32_t p = plan.ops[j].path[0];
    if (p == kNoPath) continue;
    const std::string& next = plan.paths[p].abs;
    if (next.size() == len) return next;
    std::string rel = relative_path(parent_of(link_abs).substr(1), std::string_view(next).substr(1));
    if (rel.size() == len) return rel;  // else realpath may be walking the target's parents: go on
  }
  return std::string(len, '_');
}

}  // namespace

TreeSpec tree_spec(const std::vector<PrestateEntry>& prestate, const Plan& plan,
                   const std::vector<Event>& events, const PathMap& map,
                   const std::string& target_dir, const std::string& scratch_dir) {
  TreeSpec spec;
  spec.target_dir = target_dir;
  spec.scratch_dir = scratch_dir;
  std::vector<TreeEntry> all;
  std::unordered_map<std::string, size_t> known;
  std::map<std::pair<uint64_t, uint64_t>, std::string> inodes;
  std::vector<std::pair<size_t, std::string>> links;  // entry -> key of the entry it links to
  auto add = [&](TreeEntry t) {
    std::string k = key_of(t.where);
    if (known.count(k)) return;
    known.emplace(k, all.size());
    all.push_back(std::move(t));
  };
  for (const PrestateEntry& p : prestate) {
    TreeEntry t;
    t.where = map.map(p.path);
    t.kind = p.kind;
    t.mode = p.mode;
    t.size = p.size;
    if (p.kind == PrestateKind::kOther) continue;
    if (p.kind == PrestateKind::kSymlink)
      t.target = map.symlink_target(p.path, p.target, target_dir, scratch_dir);
    if (p.kind == PrestateKind::kFile && p.nlink > 1) {
      auto [it, fresh] = inodes.try_emplace({p.dev, p.ino}, key_of(t.where));
      if (!fresh && !known.count(key_of(t.where))) links.push_back({all.size(), it->second});
    }
    add(std::move(t));
  }
  // Files the first process had open at start (stdin/stdout redirected to files).
  for (uint32_t o : plan.initial_ofds) {
    TreeEntry t;
    t.where = plan.paths[plan.ofds[o].path].mapped;
    t.kind = PrestateKind::kFile;
    t.mode = 0100644;
    add(std::move(t));
  }
  // What the trace shows existed at start, or created: per path, everything
  // up to its first namespace change (creation or removal) describes the start.
  struct Seen {
    bool settled = false, existed = false, has_facts = false;
    TreeEntry entry;
  };
  std::unordered_map<std::string, Seen> seen;
  std::vector<std::string> seen_order;
  std::vector<MappedPath> created, touched;
  for (uint32_t i = 0; i < plan.ops.size(); ++i) {
    const PlanOp& op = plan.ops[i];
    const Event& e = events[i];
    const SyscallInfo* si = syscall_info(e.nr);
    if (op.action != OpAction::kIssue || !si) continue;
    for (int k = 0; k < 2; ++k) {
      if (op.path[k] == kNoPath || (k == 0 && (si->flags & kSfLiteralPath0))) continue;
      const MappedPath& m = plan.paths[op.path[k]].mapped;
      std::string key = key_of(m);
      if (known.count(key)) continue;
      auto [it, fresh] = seen.try_emplace(key);
      Seen& sn = it->second;
      if (fresh) {
        seen_order.push_back(key);
        sn.entry.where = m;
      }
      if (sn.settled) continue;
      const bool ok = e.ret >= 0;
      const bool ns = op.flags & (kPfNs0 << k);
      if (ns && !is_removal(e.nr, k)) {
        sn.settled = true;
        if (ok && !sn.existed) created.push_back(m);
        continue;
      }
      if (ns) {  // removed by the trace: it existed
        sn.settled = true;
        if (ok && !sn.has_facts) {
          sn.existed = sn.has_facts = true;
          bool dir = e.nr == SYS_rmdir || (e.nr == SYS_unlinkat && (e.args[2] & AT_REMOVEDIR));
          sn.entry.kind = dir ? PrestateKind::kDir : PrestateKind::kFile;
          sn.entry.mode = dir ? 040755 : 0100644;
        }
        continue;
      }
      const bool is_readlink = e.nr == SYS_readlink || e.nr == SYS_readlinkat;
      if (is_readlink && e.ret == -EINVAL) {  // exists, and is no symlink (file or directory)
        sn.existed = true;
        continue;
      }
      if (!ok) continue;
      sn.existed = true;
      // A successful readlink proves a symlink, whatever a following stat said.
      if (k != 0 || (sn.has_facts && !(is_readlink && sn.entry.kind != PrestateKind::kSymlink))) continue;
      if (is_readlink) {
        sn.has_facts = true;
        sn.entry.kind = PrestateKind::kSymlink;
        std::string abs = plan.paths[op.path[0]].abs;
        std::string text = guess_link_target(plan, events, i, abs, static_cast<size_t>(e.ret));
        sn.entry.target = map.symlink_target(abs, text, target_dir, scratch_dir);
        continue;
      }
      if (e.nr == SYS_execve || e.nr == SYS_execveat) {
        sn.has_facts = true;  // an executable the workload ran: its size is unknown
        sn.entry.kind = PrestateKind::kFile;
        sn.entry.mode = 0100755;
        sn.entry.size = e.size;
      } else if ((S_ISREG(e.mode) || S_ISDIR(e.mode)) && !(e.flags & kEfNoInode)) {
        sn.has_facts = true;
        sn.entry.kind = S_ISDIR(e.mode) ? PrestateKind::kDir : PrestateKind::kFile;
        sn.entry.mode = e.mode;
        sn.entry.size = S_ISREG(e.mode) ? e.size : 0;
      }
    }
  }
  for (const std::string& key : seen_order) {
    Seen& sn = seen.at(key);
    if (!sn.existed) continue;
    if (sn.has_facts) add(std::move(sn.entry));
    else touched.push_back(sn.entry.where);
  }
  // Paths known only to exist (no kind, no size; e.g. the end of a symlink
  // chain that was only followed) become empty files, unless other paths lie
  // beneath them (then the ancestor walk makes them directories).
  {
    std::unordered_map<std::string, bool> above;
    auto mark = [&](const MappedPath& m) {
      std::string rel = m.rel;
      for (size_t s = rel.rfind('/'); s != std::string::npos; s = rel.rfind('/')) {
        rel.resize(s);
        if (!above.emplace(key_of({m.root, rel}), true).second) break;
      }
    };
    for (auto& t : all) mark(t.where);
    for (auto& c : created) mark(c);
    for (auto& c : touched) mark(c);
    std::vector<MappedPath> still;
    for (const MappedPath& m : touched) {
      if (m.rel.empty() || known.count(key_of(m)) || above.count(key_of(m))) {
        still.push_back(m);
        continue;
      }
      TreeEntry t;
      t.where = m;
      t.kind = PrestateKind::kFile;
      t.mode = 0100755;
      add(std::move(t));
    }
    touched = std::move(still);
  }
  // Every ancestor is a directory, except those the trace creates itself; an
  // implied entry beneath a prestate symlink or file cannot be made and is dropped.
  std::unordered_map<std::string, bool> created_keys;
  for (auto& c : created) created_keys.emplace(key_of(c), true);
  size_t n = all.size();
  std::vector<bool> drop;
  // (path, entry index or SIZE_MAX, whether it is a path the trace creates)
  std::vector<std::tuple<MappedPath, size_t, bool>> need;
  for (size_t i = 0; i < n; ++i) need.push_back({all[i].where, i, false});
  for (auto& c : created) need.push_back({c, SIZE_MAX, true});
  for (auto& c : touched) need.push_back({c, SIZE_MAX, false});
  for (const auto& [m, idx, is_created] : need) {
    std::vector<std::string> chain;
    bool blocked = false;
    std::string rel = m.rel;
    while (true) {
      size_t s = rel.rfind('/');
      if (s == std::string::npos) break;
      rel = rel.substr(0, s);
      std::string k = key_of({m.root, rel});
      auto it = known.find(k);
      if (it != known.end()) {
        blocked = all[it->second].kind != PrestateKind::kDir;
        break;
      }
      if (!created_keys.count(k)) {
        chain.push_back(rel);
      } else if (!is_created) {  // beneath something the trace creates: not there at start
        blocked = true;
        break;
      }
    }
    if (blocked) {
      if (idx != SIZE_MAX) {
        drop.resize(all.size());
        drop[idx] = true;
      }
      continue;
    }
    for (const std::string& r : chain) {
      TreeEntry d;
      d.where = {m.root, r};
      d.kind = PrestateKind::kDir;
      d.mode = 040755;
      add(std::move(d));
    }
  }
  drop.resize(all.size());
  for (auto& [idx, to] : links) all[idx].link_to = static_cast<uint32_t>(known.at(to));
  // Order: directories by depth, then files, symlinks, hard links (link_to remapped).
  std::vector<size_t> order;
  for (size_t i = 0; i < all.size(); ++i)
    if (!all[i].where.rel.empty() && !drop[i]) order.push_back(i);  // the roots themselves exist
  auto rank = [&](const TreeEntry& t) {
    if (t.link_to != UINT32_MAX) return 3;
    return t.kind == PrestateKind::kDir ? 0 : t.kind == PrestateKind::kFile ? 1 : 2;
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    int ra = rank(all[a]), rb = rank(all[b]);
    if (ra != rb) return ra < rb;
    return ra == 0 && depth(all[a].where.rel) < depth(all[b].where.rel);
  });
  std::vector<uint32_t> pos(all.size(), UINT32_MAX);
  for (size_t i = 0; i < order.size(); ++i) pos[order[i]] = static_cast<uint32_t>(i);
  for (size_t i : order) {
    TreeEntry t = all[i];
    if (t.link_to != UINT32_MAX) t.link_to = pos[t.link_to];
    spec.entries.push_back(std::move(t));
  }
  std::sort(created.begin(), created.end(), [](const MappedPath& a, const MappedPath& b) {
    return depth(a.rel) > depth(b.rel);
  });
  spec.created = std::move(created);
  return spec;
}

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

// One entry; returns 1 when it already matched, 0 when (re)made, -errno on failure.
int make_entry(const TreeSpec& spec, size_t i, const int roots[2], const Features& f,
               std::vector<char>& buf) {
  const TreeEntry& t = spec.entries[i];
  Parent p;
  if (open_parent(roots, t.where, p, f) < 0) return p.fd;
  struct stat st;
  bool exists = fstatat(p.fd, p.base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
  if (t.link_to != UINT32_MAX) {
    const TreeEntry& to = spec.entries[t.link_to];
    Parent q;
    if (open_parent(roots, to.where, q, f) < 0) return q.fd;
    struct stat ts;
    if (fstatat(q.fd, q.base.c_str(), &ts, AT_SYMLINK_NOFOLLOW) != 0) return -errno;
    if (exists && st.st_ino == ts.st_ino && st.st_dev == ts.st_dev) return 1;
    if (exists && remove_at(p.fd, p.base.c_str()) < 0) return -errno;
    return linkat(q.fd, q.base.c_str(), p.fd, p.base.c_str(), 0) == 0 ? 0 : -errno;
  }
  switch (t.kind) {
    case PrestateKind::kDir:
      if (exists && S_ISDIR(st.st_mode)) return 1;
      if (exists && remove_at(p.fd, p.base.c_str()) < 0) return -errno;
      return mkdirat(p.fd, p.base.c_str(), (t.mode & 07777) | 0700) == 0 ? 0 : -errno;
    case PrestateKind::kSymlink: {
      if (exists && S_ISLNK(st.st_mode)) {
        char lb[4096];
        ssize_t n = readlinkat(p.fd, p.base.c_str(), lb, sizeof lb);
        if (n >= 0 && std::string_view(lb, static_cast<size_t>(n)) == t.target) return 1;
      }
      if (exists && remove_at(p.fd, p.base.c_str()) < 0) return -errno;
      return symlinkat(t.target.c_str(), p.fd, p.base.c_str()) == 0 ? 0 : -errno;
    }
    default: {
      if (exists && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) == t.size) return 1;
      if (exists && !S_ISREG(st.st_mode) && remove_at(p.fd, p.base.c_str()) < 0) return -errno;
      if (exists && S_ISREG(st.st_mode)) fchmodat(p.fd, p.base.c_str(), 0600, 0);
      int fd = openat(p.fd, p.base.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd < 0) return -errno;
      int r = fill(fd, t.size, buf);
      if (r == 0 && fchmod(fd, t.mode & 07777) != 0) r = -errno;
      close(fd);
      return r;
    }
  }
}

}  // namespace

Result<PrepareStats> materialise(const TreeSpec& spec, const int roots[2], const Features& f,
                                 unsigned threads, const ProgressFn& progress) {
  PrepareStats stats;
  const uint64_t total = spec.entries.size() + spec.created.size();
  std::atomic<uint64_t> done{0};
  // Paths the trace creates go first (deepest first), so that a replayed tree resets.
  for (const MappedPath& m : spec.created) {
    Parent p;
    if (open_parent(roots, m, p, f) >= 0) {
      struct stat st;
      if (fstatat(p.fd, p.base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        int r = remove_at(p.fd, p.base.c_str());
        if (r < 0) return err(m, "cannot remove", -r);
        ++stats.removed;
      }
    }
    ++done;
  }
  // Directories in order (parents first), then the rest in parallel.
  std::vector<char> buf(1 << 20, 'x');
  size_t first_rest = 0;
  for (; first_rest < spec.entries.size() && spec.entries[first_rest].kind == PrestateKind::kDir &&
         spec.entries[first_rest].link_to == UINT32_MAX; ++first_rest) {
    int r = make_entry(spec, first_rest, roots, f, buf);
    if (r < 0) return err(spec.entries[first_rest].where, "cannot create directory", -r);
    ++(r == 1 ? stats.kept : stats.dirs);
    if (progress) progress(++done, total);
  }
  size_t first_link = first_rest;
  while (first_link < spec.entries.size() && spec.entries[first_link].link_to == UINT32_MAX) ++first_link;
  std::atomic<size_t> next{first_rest};
  std::atomic<uint64_t> kept{0}, files{0}, syms{0}, bytes{0};
  std::mutex mu;
  Status failure;
  auto work = [&](size_t end) {
    std::vector<char> b(1 << 20, 'x');
    for (size_t i; (i = next.fetch_add(1)) < end;) {
      int r = make_entry(spec, i, roots, f, b);
      const TreeEntry& t = spec.entries[i];
      if (r < 0) {
        std::lock_guard<std::mutex> g(mu);
        if (failure.is_ok()) failure = err(t.where, "cannot create", -r);
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
  if (!failure.is_ok()) return failure;
  stats.kept += kept;
  stats.files = files;
  stats.symlinks = syms;
  stats.links = spec.entries.size() - first_link;
  stats.bytes = bytes;
  if (progress) progress(total, total);
  return stats;
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
  for (const TreeEntry& t : spec.entries) {
    Parent p;
    struct stat st;
    if (open_parent(roots, t.where, p, f) < 0 ||
        fstatat(p.fd, p.base.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
      return Status::error(where_str(t.where) + " is missing: run 'fsreplay prepare' first");
    bool kind_ok = t.kind == PrestateKind::kDir ? S_ISDIR(st.st_mode)
                   : t.kind == PrestateKind::kSymlink ? S_ISLNK(st.st_mode)
                   : S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) == t.size;
    if (!kind_ok)
      return Status::error(where_str(t.where) + " differs from the trace's initial state: run "
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

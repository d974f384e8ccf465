// SPDX-License-Identifier: Apache-2.0
#include "replayer/plan/tree_spec.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <unordered_map>

#include "traces/syscalls.h"

namespace fsr {
namespace {

bool is_removal(uint16_t nr, int k) {
  return nr == SYS_unlink || nr == SYS_unlinkat || nr == SYS_rmdir ||
         (k == 0 && (nr == SYS_rename || nr == SYS_renameat || nr == SYS_renameat2));
}

// The trace holds readlink's length, not its text. A resolver's next lookup
// by the same thread usually is the target (realpath, which(1), gcc's own
// lookup): take it when its length fits, else a placeholder of that length.
// `to`: the plan path of the lookup taken, kNoPath for a placeholder.
std::string guess_link_target(const Plan& plan, uint64_t i, const std::string& link_abs, size_t len, uint32_t& to) {
  const uint32_t tid = plan.event(i).tid;
  to = kNoPath;
  for (uint64_t j = i + 1, seen = 0; j < plan.size && seen < 16; ++j) {
    if (plan.event(j).tid != tid) continue;
    ++seen;
    uint32_t p = plan.op(j).path[0];
    if (p == kNoPath) continue;
    const std::string& next = plan.paths[p].abs;
    to = p;
    if (next.size() == len) return next;
    std::string rel = relative_path(parent_of(link_abs).substr(1), std::string_view(next).substr(1));
    if (rel.size() == len) return rel;  // else realpath may be walking the target's parents: go on
  }
  to = kNoPath;
  return std::string(len, '_');
}

// Whether the call follows a symlink at the end of its path k (stat, open,
// exec, access: yes; lstat, readlink, O_NOFOLLOW, a name's own change: no).
bool follows_last_link(const Event& e, const SyscallInfo& si, int k, bool ns) {
  if (ns || k != 0) return false;
  const uint64_t* a = e.args;
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (e.nr) {
    case SYS_lstat: case SYS_readlink: case SYS_readlinkat: case SYS_lchown:
    case SYS_lgetxattr: case SYS_llistxattr: case SYS_lsetxattr: case SYS_lremovexattr:
      return false;
    case SYS_newfstatat: return !(a[3] & (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH));
    case SYS_statx: return !(a[2] & (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH));
    case SYS_faccessat2: return !(a[3] & AT_SYMLINK_NOFOLLOW);
    case SYS_open: case SYS_openat: case SYS_openat2: case SYS_creat: {
      const uint32_t fl = open_flags(e.nr, a[1], a[2]);
      return !(fl & O_NOFOLLOW) && (fl & (O_CREAT | O_EXCL)) != (O_CREAT | O_EXCL);
    }
    default:
      return si.cls == SyscallClass::kStat || si.cls == SyscallClass::kOpen;
  }
  // clang-format on
}

}  // namespace

// The node a symlink made by op (symlink/symlinkat) names: its replay text
// (path_map.h) taken relative to the link's directory, or absolute beneath
// the target or the scratch directory. PathTree::kNone when it names neither.
uint32_t TreeSpecBuilder::made_link_target(const Plan& plan, const PlanOp& op) {
  const std::string& text = plan.paths[op.path[0]].abs;
  const MappedPath& link = plan.paths[op.path[1]].mapped;
  MappedPath to;
  if (!text.empty() && text[0] == '/') {
    const std::string* dirs[2] = {&spec_.target_dir, &spec_.scratch_dir};
    int r = -1;
    for (int k = 0; k < 2; ++k)
      if (!dirs[k]->empty() && is_beneath(text, *dirs[k])) r = k;
    if (r < 0) return PathTree::kNone;
    to.root = r == 0 ? Root::kTarget : Root::kScratch;
    to.rel = normalize_abs(std::string_view(text).substr(dirs[r]->size())).substr(1);
  } else {
    to.root = link.root;
    to.rel = join_abs(parent_of("/" + link.rel), text).substr(1);
  }
  return spec_.paths.intern(to);
}

TreeSpecBuilder::TreeSpecBuilder(const PathMap& map, std::string target_dir, std::string scratch_dir) : map_(map) {
  spec_.target_dir = std::move(target_dir);
  spec_.scratch_dir = std::move(scratch_dir);
}

void TreeSpecBuilder::reserve(uint64_t entries) {
  all_.reserve(entries + 64);
  entry_of_.reserve(entries + entries / 16 + 64);
  spec_.paths.reserve(entries + entries / 16 + 64);
}

void TreeSpecBuilder::add(const TreeEntry& t) {
  if (entry_of(t.node) != UINT32_MAX) return;
  if (entry_of_.size() <= t.node)
    entry_of_.resize(std::max<size_t>(t.node + 1, std::max(entry_of_.capacity(), entry_of_.size() * 3 / 2)),
                     UINT32_MAX);
  entry_of_[t.node] = static_cast<uint32_t>(all_.size());
  all_.push_back(t);
}

uint32_t TreeSpecBuilder::node_of(const Plan& plan, uint32_t path) {
  if (plan_node_.size() <= path) plan_node_.resize(std::max<size_t>(path + 1, plan_node_.size() * 3 / 2), UINT32_MAX);
  uint32_t& n = plan_node_[path];
  if (n == UINT32_MAX) n = spec_.paths.intern(plan.paths[path].mapped);
  return n;
}

uint32_t TreeSpecBuilder::add_target(std::string text) {
  spec_.targets.push_back(std::move(text));
  return static_cast<uint32_t>(spec_.targets.size() - 1);
}

void TreeSpecBuilder::add_prestate(std::span<const PrestateEntry> prestate) {
  const std::string& target_dir = spec_.target_dir;
  const std::string& scratch_dir = spec_.scratch_dir;
  for (const PrestateEntry& p : prestate) {
    if (p.kind == PrestateKind::kOther) continue;
    TreeEntry t;
    t.node = spec_.paths.intern(map_.map(p.path));
    t.kind = p.kind;
    t.mode = p.mode;
    t.size = p.size;
    const bool known = entry_of(t.node) != UINT32_MAX;  // named twice: the first stays
    if (p.kind == PrestateKind::kFile && p.nlink > 1) {
      auto [it, fresh] = inodes_.try_emplace({p.dev, p.ino}, t.node);
      if (!fresh && !known) links_.push_back({static_cast<uint32_t>(all_.size()), it->second});
    }
    if (known) continue;
    if (p.kind == PrestateKind::kSymlink)
      t.target = add_target(map_.symlink_target(p.path, p.target, target_dir, scratch_dir));
    add(t);
  }
}

// Files the first process had open at start (stdin/stdout redirected to
// files), and its cwd (a directory: walks as passed start there).
void TreeSpecBuilder::add_initial(const Plan& plan) {
  for (uint32_t o : plan.initial_ofds) {
    TreeEntry t;
    t.node = node_of(plan, plan.ofds[o].path);
    const bool dir = plan.ofds[o].cwd;
    if (dir && plan.paths[plan.ofds[o].path].mapped.rel.empty()) continue;  // a root: there already
    t.kind = dir ? PrestateKind::kDir : PrestateKind::kFile;
    t.mode = dir ? 040755 : 0100644;
    add(t);
  }
}

// What the trace shows existed at start, or created: per path, everything
// up to its first namespace change (creation or removal) describes the start.
void TreeSpecBuilder::add_op(const Plan& plan, uint64_t i) {
  const PlanOp& op = plan.op(i);
  const Event& e = plan.event(i);
  const SyscallInfo* si = syscall_info(e.nr);
  if (op.action != OpAction::kIssue || !si) return;
  if (op.flags & kPfDevice) return;  // replayed on a stand-in device, not in the tree
  if (op.new_ofd != kNoOfd) offsets_.erase(op.new_ofd);
  if (op.ofd != kNoOfd) read_through(plan, op, e, si->cls);
  if (e.ret >= 0) track_made_links(plan, op, *si);
  for (int k = 0; k < 2; ++k)
    if (op.path[k] != kNoPath && !(k == 0 && (si->flags & kSfLiteralPath0))) see_path(plan, i, *si, k);
}

// The symlinks the trace made, while they stand (made_links_).
void TreeSpecBuilder::track_made_links(const Plan& plan, const PlanOp& op, const SyscallInfo& si) {
  for (int k = 0; k < 2 && !made_links_.empty(); ++k)  // a made link renamed or removed stands no more
    if (op.path[k] != kNoPath && (op.flags & (kPfNs0 << k)) && !(k == 0 && (si.flags & kSfLiteralPath0)))
      made_links_.erase(node_of(plan, op.path[k]));
  if ((si.flags & kSfLiteralPath0) && op.path[0] != kNoPath && op.path[1] != kNoPath)
    if (const uint32_t to = made_link_target(plan, op); to != PathTree::kNone)
      made_links_[node_of(plan, op.path[1])] = to;
}

// What op i shows of its path k as it was at start, until a namespace
// change settles it.
void TreeSpecBuilder::see_path(const Plan& plan, uint64_t i, const SyscallInfo& si, int k) {
  const PlanOp& op = plan.op(i);
  const Event& e = plan.event(i);
  uint32_t node = node_of(plan, op.path[k]);
  uint32_t path = op.path[k];
  // Seen through a link the trace made (`ln -sf /etc/hostname a; cat a`):
  // the facts are its target's, which must exist at start.
  if (!made_links_.empty() && follows_last_link(e, si, k, op.flags & (kPfNs0 << k)))
    if (auto l = made_links_.find(node); l != made_links_.end()) {
      node = l->second;
      path = kNoPath;
    }
  if (entry_of(node) != UINT32_MAX) return;
  auto [it, fresh] = seen_.try_emplace(node);
  Seen& sn = it->second;
  if (fresh) {
    seen_order_.push_back(node);
    sn.entry.node = node;
    sn.path = path;
  }
  const bool ns = op.flags & (kPfNs0 << k);
  if (sn.settled || ns) {
    settle(sn, node, op, e, k);
    return;
  }
  const bool is_readlink = e.nr == SYS_readlink || e.nr == SYS_readlinkat;
  if (is_readlink && e.ret == -EINVAL) {  // exists, and is no symlink (file or directory)
    sn.existed = true;
    return;
  }
  // A lookup of X/name that finds no name (not ENOTDIR) shows that X, if it
  // exists, is a directory: one known only to exist is then made one, not
  // an empty file (cmake readlinks /usr/lib32, then /usr/lib32/x86_64-linux-gnu).
  if (e.ret == -ENOENT && si.path[1] < 0) hint_dir(spec_.paths.parent(node));
  if (e.ret < 0) return;
  sn.existed = true;
  // A successful readlink proves a symlink, whatever a following stat said.
  // An execve's facts are a guess (the kernel's record of an exec has no
  // size): the first open or stat of the same file that shows the inode
  // replaces them. Else a script run from outside the root (a pyenv or nvm
  // shim, a build's driver) was prepared empty and its interpreter read 0
  // bytes of it, then lseek'd back by what it had read: -EINVAL.
  const bool inode = (S_ISREG(e.mode) || S_ISDIR(e.mode)) && !(e.flags & kEfNoInode);
  const bool refine = sn.exec_only && inode && e.nr != SYS_execve && e.nr != SYS_execveat;
  if (k != 0 || (sn.has_facts && !refine && !(is_readlink && sn.entry.kind != PrestateKind::kSymlink))) return;
  if (is_readlink) {
    see_readlink(plan, i, node, sn);
  } else if (e.nr == SYS_execve || e.nr == SYS_execveat) {
    sn.has_facts = sn.exec_only = true;  // an executable the workload ran: its size is unknown
    sn.entry.kind = PrestateKind::kFile;
    sn.entry.mode = 0100755;
    sn.entry.size = e.size;
  } else if (inode) {
    sn.has_facts = true;
    sn.exec_only = false;
    sn.entry.kind = S_ISDIR(e.mode) ? PrestateKind::kDir : PrestateKind::kFile;
    sn.entry.mode = e.mode;
    sn.entry.size = S_ISREG(e.mode) ? e.size : 0;
  }
}

// A namespace change on path k of op (or any op on a path one settled):
// created by the trace, or removed by it (then it existed).
void TreeSpecBuilder::settle(Seen& sn, uint32_t node, const PlanOp& op, const Event& e, int k) {
  const bool ok = e.ret >= 0;
  const bool ns = op.flags & (kPfNs0 << k);
  if (sn.settled) {
    // Settled as absent (e.g. `rm -rf x` failing before `mkdir x`): a later
    // creation still makes it a created path, never an implied ancestor.
    if (ns && ok && !sn.existed && !sn.made && !is_removal(e.nr, k)) {
      created_.push_back({node, op.path[k]});
      sn.made = true;
    }
    return;
  }
  sn.settled = true;
  if (!is_removal(e.nr, k)) {
    if (ok && !sn.existed) {
      created_.push_back({node, op.path[k]});
      sn.made = true;
    }
    return;
  }
  if (ok && !sn.has_facts) {  // removed by the trace: it existed
    sn.existed = sn.has_facts = true;
    bool dir = e.nr == SYS_rmdir || (e.nr == SYS_unlinkat && (e.args[2] & AT_REMOVEDIR));
    sn.entry.kind = dir ? PrestateKind::kDir : PrestateKind::kFile;
    sn.entry.mode = dir ? 040755 : 0100644;
  }
}

// A successful readlink: a symlink, its text guessed (guess_link_target).
// What an earlier open or stat saw here, it saw through the link: its
// target's facts (glibc opens /etc/localtime, then readlinks it), and
// passed on down a chain of links.
void TreeSpecBuilder::see_readlink(const Plan& plan, uint64_t i, uint32_t node, Seen& sn) {
  const Event& e = plan.event(i);
  std::optional<TreeEntry> through;
  if (sn.has_facts && sn.entry.kind != PrestateKind::kSymlink) {
    through = sn.entry;
  } else if (auto f = followed_.find(node); f != followed_.end()) {
    through = f->second;
  }
  sn.has_facts = true;
  sn.exec_only = false;
  sn.entry.kind = PrestateKind::kSymlink;
  const std::string& abs = plan.paths[plan.op(i).path[0]].abs;
  uint32_t to = kNoPath;
  std::string text = guess_link_target(plan, i, abs, static_cast<size_t>(e.ret), to);
  sn.entry.target = add_target(map_.symlink_target(abs, text, spec_.target_dir, spec_.scratch_dir));
  if (through && to != kNoPath) followed_.try_emplace(node_of(plan, to), *through);
}

// Where an fd's reads ended says how large its file was at least: a /proc
// or /sys file stats as 0 bytes, and the replay read nothing of it (cargo's
// 185 reads of /proc/PID/maps, 1 KiB each). Only files the trace described
// before their first change (not the prestate's, which are exact).
// Kept per OFD of such a file only, and dropped at its close.
void TreeSpecBuilder::read_through(const Plan& plan, const PlanOp& op, const Event& e, SyscallClass cls) {
  if (e.nr == SYS_close) {
    offsets_.erase(op.ofd);  // (a dup's later reads start over at 0: a smaller bound, never a wrong one)
    return;
  }
  const bool seek = e.nr == SYS_lseek;
  if ((!seek && cls != SyscallClass::kRead) || e.ret < 0 || op.ofd >= plan.ofds.size()) return;
  const uint32_t path = plan.ofds[op.ofd].path;
  if (path == kNoPath) return;
  auto it = seen_.find(node_of(plan, path));
  if (it == seen_.end()) return;
  Seen& sn = it->second;
  if (sn.settled || !sn.has_facts || sn.entry.kind != PrestateKind::kFile) return;
  uint64_t& off = offsets_[op.ofd];
  const uint64_t n = static_cast<uint64_t>(e.ret);
  if (seek) {
    off = n;
    return;
  }
  const bool positioned =
      e.nr == SYS_pread64 || e.nr == SYS_preadv || (e.nr == SYS_preadv2 && static_cast<int64_t>(e.args[3]) != -1);
  const uint64_t end = positioned ? e.args[3] + n : (off += n);
  sn.entry.size = std::max(sn.entry.size, end);
}

}  // namespace fsr

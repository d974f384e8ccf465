#include "replayer/tree_spec.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <tuple>
#include <unordered_map>

#include "traces/syscalls.h"

namespace fsr {
namespace {

std::string key_of(const MappedPath& m) { return (m.root == Root::kTarget ? "T/" : "S/") + m.rel; }
size_t depth(const std::string& rel) {
  return rel.empty() ? 0 : 1 + static_cast<size_t>(std::count(rel.begin(), rel.end(), '/'));
}
bool is_removal(uint16_t nr, int k) {
  return nr == SYS_unlink || nr == SYS_unlinkat || nr == SYS_rmdir ||
         (k == 0 && (nr == SYS_rename || nr == SYS_renameat || nr == SYS_renameat2));
}

// The trace holds readlink's length, not its text. A resolver's next lookup
// by the same thread usually is the target (realpath, which(1), gcc's own
// lookup): take it when its length fits, else a placeholder of that length.
std::string guess_link_target(const Plan& plan, uint64_t i, const std::string& link_abs, size_t len) {
  const uint32_t tid = plan.event(i).tid;
  for (uint64_t j = i + 1, seen = 0; j < plan.size && seen < 16; ++j) {
    if (plan.event(j).tid != tid) continue;
    ++seen;
    uint32_t p = plan.op(j).path[0];
    if (p == kNoPath) continue;
    const std::string& next = plan.paths[p].abs;
    if (next.size() == len) return next;
    std::string rel = relative_path(parent_of(link_abs).substr(1), std::string_view(next).substr(1));
    if (rel.size() == len) return rel;  // else realpath may be walking the target's parents: go on
  }
  return std::string(len, '_');
}

}  // namespace

TreeSpecBuilder::TreeSpecBuilder(const PathMap& map, std::string target_dir, std::string scratch_dir)
    : map_(map) {
  spec_.target_dir = std::move(target_dir);
  spec_.scratch_dir = std::move(scratch_dir);
}

void TreeSpecBuilder::add(TreeEntry t) {
  std::string k = key_of(t.where);
  if (known_.count(k)) return;
  known_.emplace(k, all_.size());
  all_.push_back(std::move(t));
}

void TreeSpecBuilder::add_prestate(const std::vector<PrestateEntry>& prestate) {
  const std::string& target_dir = spec_.target_dir;
  const std::string& scratch_dir = spec_.scratch_dir;
  for (const PrestateEntry& p : prestate) {
    TreeEntry t;
    t.where = map_.map(p.path);
    t.kind = p.kind;
    t.mode = p.mode;
    t.size = p.size;
    if (p.kind == PrestateKind::kOther) continue;
    if (p.kind == PrestateKind::kSymlink)
      t.target = map_.symlink_target(p.path, p.target, target_dir, scratch_dir);
    if (p.kind == PrestateKind::kFile && p.nlink > 1) {
      auto [it, fresh] = inodes_.try_emplace({p.dev, p.ino}, key_of(t.where));
      if (!fresh && !known_.count(key_of(t.where))) links_.push_back({all_.size(), it->second});
    }
    add(std::move(t));
  }
}

// Files the first process had open at start (stdin/stdout redirected to files).
void TreeSpecBuilder::add_initial(const Plan& plan) {
  for (uint32_t o : plan.initial_ofds) {
    TreeEntry t;
    t.where = plan.paths[plan.ofds[o].path].mapped;
    t.kind = PrestateKind::kFile;
    t.mode = 0100644;
    add(std::move(t));
  }
}

// What the trace shows existed at start, or created: per path, everything
// up to its first namespace change (creation or removal) describes the start.
void TreeSpecBuilder::add_op(const Plan& plan, uint64_t i) {
  const std::string& target_dir = spec_.target_dir;
  const std::string& scratch_dir = spec_.scratch_dir;
  auto& known = known_;
  auto& seen = seen_;
  auto& seen_order = seen_order_;
  auto& created = created_;
  const PathMap& map = map_;
  {
    const PlanOp& op = plan.op(i);
    const Event& e = plan.event(i);
    const SyscallInfo* si = syscall_info(e.nr);
    if (op.action != OpAction::kIssue || !si) return;
    if (op.flags & kPfDevice) return;  // replayed on a stand-in device, not in the tree
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
        sn.path = op.path[k];
      }
      const bool ok = e.ret >= 0;
      const bool ns = op.flags & (kPfNs0 << k);
      if (sn.settled) {
        // Settled as absent (e.g. `rm -rf x` failing before `mkdir x`): a later
        // creation still makes it a created path, never an implied ancestor.
        if (ns && ok && !sn.existed && !sn.made && !is_removal(e.nr, k)) {
          created.push_back({m, op.path[k]});
          sn.made = true;
        }
        continue;
      }
      if (ns && !is_removal(e.nr, k)) {
        sn.settled = true;
        if (ok && !sn.existed) {
          created.push_back({m, op.path[k]});
          sn.made = true;
        }
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
        std::string text = guess_link_target(plan, i, abs, static_cast<size_t>(e.ret));
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
}

TreeSpec TreeSpecBuilder::finish(const std::function<bool(uint32_t path)>& is_device) {
  TreeSpec spec = std::move(spec_);
  auto& all = all_;
  auto& known = known_;
  auto& links = links_;
  auto add = [this](TreeEntry t) { this->add(std::move(t)); };
  std::vector<MappedPath> created, touched;
  for (const auto& [m, p] : created_)
    if (p == kNoPath || !is_device(p)) created.push_back(m);
  for (const std::string& key : seen_order_) {
    Seen& sn = seen_.at(key);
    if (!sn.existed || (sn.path != kNoPath && is_device(sn.path))) continue;
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
      } else {  // a created path beneath a created one: nothing between existed at start
        chain.clear();
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

TreeSpec tree_spec(const std::vector<PrestateEntry>& prestate, const Plan& plan, const PathMap& map,
                   const std::string& target_dir, const std::string& scratch_dir) {
  TreeSpecBuilder b(map, target_dir, scratch_dir);
  b.add_prestate(prestate);
  b.add_initial(plan);
  for (uint64_t i = 0; i < plan.size; ++i) b.add_op(plan, i);
  return b.finish([](uint32_t) { return false; });  // (the plan's ops carry their device marks)
}

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
#include "predict/op_cost.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace fsr {
namespace {

enum PathBit : uint8_t { kExists = 1, kData = 2, kAttrStale = 4 };
enum OfdBit : uint8_t { kDirty = 1, kReadStarted = 2 };
enum TempFrom : uint8_t { kNoTemp = 0, kMeta = 1, kDataTemp = 2 };

uint64_t io_bytes(const Event& e, int count_arg) {
  if (e.ret >= 0) return static_cast<uint64_t>(e.ret);
  return count_arg >= 0 ? e.args[count_arg] : 4096;
}

bool creates(ProbeKind k) {
  return k == ProbeKind::kOpenCreate || k == ProbeKind::kMkdir || k == ProbeKind::kLink || k == ProbeKind::kSymlink;
}

}  // namespace

OpCost::OpCost(const WindowView& view, const LatencyModel* model, uint64_t seed, bool cold_start)
    : v_(view),
      model_(model),
      base_(model),
      cold_start_(cold_start),
      rng_(seed | 1),
      server_(model ? model->server() : ServerModel{}, model ? model->syscall_overhead_ns() : 0) {
  touched_.assign(v_.path_count(), 0);
  path_bits_.assign(v_.path_count(), 0);
  depth_.assign(v_.path_count(), 255);
  root_.assign(v_.path_count(), 0);
  ofd_bits_.assign(v_.ofd_count(), 0);
}

OpCost::OpCost(const WindowView& view, const PlacedModels* placed, uint64_t seed, bool cold_start)
    : OpCost(view, placed->rest, seed, cold_start) {
  placed_ = std::make_unique<PlacedPricer>(*placed);
  std::vector<const LatencyModel*> queue_model{placed->rest};
  slot_queue_.push_back(&server_);
  for (const LatencyModel* m : placed->rule_model) {
    size_t q = 0;
    while (q < queue_model.size() && queue_model[q] != m) ++q;
    if (q == queue_model.size()) {
      queue_model.push_back(m);
      mount_queues_.push_back(std::make_unique<ServerQueue>(m->server(), m->syscall_overhead_ns()));
    }
    slot_queue_.push_back(q == 0 ? &server_ : mount_queues_[q - 1].get());
  }
}

uint32_t OpCost::path_of(uint32_t i) const {
  const PlanOp& op = v_.op(i);
  const uint16_t nr = v_.event(i).nr;
  // The mapped file (its mmap may lie far behind the window).
  if (nr == kEvPageFault && op.ref_op != kNoOp) return v_.map_path(op.map);
  if (nr == SYS_munmap && op.ref_op != kNoOp) return v_.map_path(v_.plan().unmap(op.unmap_begin).map);
  const SyscallInfo* si = syscall_info(nr);
  if (si && (si->flags & kSfLiteralPath0)) return op.path[1];
  if (op.path[0] != kNoPath) return op.path[0];
  if (op.ofd != kNoOfd) return v_.plan().ofds[op.ofd].path;
  return kNoPath;
}

uint64_t OpCost::latency(uint32_t i, uint64_t now) {
  const Event& e = v_.event(i);
  if (!model_) return e.dur;
  last_wait_ = 0;
  const PlanOp& op = v_.op(i);
  if (op.new_ofd != kNoOfd) ofd_bits_[op.new_ofd] = 0;  // the slot of an OFD closed a window ago
  model_ = base_;
  uint64_t recorded = e.dur + model_->syscall_overhead_ns();
  const uint32_t p = path_of(i);
  if ((op.flags & kPfDevice) || p == kNoPath || in_scratch(p)) {
    ++notes_.local;  // the replay runs it on the local disk, as it was recorded
    return recorded;
  }
  if (placed_) {  // the mount its path lands on (a rename's or link's: its first path's)
    const bool two =
        e.nr == SYS_rename || e.nr == SYS_renameat || e.nr == SYS_renameat2 || e.nr == SYS_link || e.nr == SYS_linkat;
    model_ = placed_->model_for(v_.plan(), p, two ? op.path[1] : kNoPath);
    recorded = e.dur + model_->syscall_overhead_ns();
  }
  const auto cls = static_cast<size_t>(class_of(e.nr));
  Priced pr{};
  if (!classify(i, pr)) {
    ++notes_.unmeasured[cls];
    return recorded;
  }
  // A placed path's walk on the rest's mount, up to its SUBDIR: priced from
  // the rest's walk, queued there; the op's own case prices the walk inside.
  uint32_t outer[2] = {0, 0};
  if (placed_ && (pr.walk || LatencyModel::is_depth_kind(pr.kind)))
    for (int k = 0; k < 2; ++k)
      if (op.path[k] != kNoPath && !(k == 0 && pr.kind == ProbeKind::kSymlink)) outer[k] = outer_components(op, k);
  if (LatencyModel::is_depth_kind(pr.kind)) pr.param -= std::min<uint64_t>(pr.param, outer[0]);
  // Every outer component is SUBDIR or an ancestor of it, held by the bind
  // mount on SUBDIR: free where the rest's mount trusts held entries.
  uint64_t outer_ns = 0;
  if (!base_->held_entries_free())
    outer_ns =
        static_cast<uint64_t>(std::llround(base_->walk_ns_per_component(Temp::kWarm) * double(outer[0] + outer[1])));
  // A stat of a file written since the mount last answered for it, by path
  // or through its fd (git's fstat of each file it checks out, before the
  // close): the mount asks its server again, after however long it was idle.
  const bool written = (pr.kind == ProbeKind::kStat || pr.kind == ProbeKind::kFstat) && (path_bits_[p] & kAttrStale);
  const uint64_t idle_us = (now > idle_from_ ? now - idle_from_ : 0) / 1000;
  uint64_t written_extra = 0;
  if (written && !model_->has(ProbeKind::kStatWritten, Temp::kWarm))
    ++notes_.stat_written_unprobed;
  else if (written && pr.kind == ProbeKind::kFstat)
    written_extra = fstat_written_extra(idle_us);
  else if (written)
    pr = {ProbeKind::kStatWritten, idle_us, kNoTemp, op.path[0] != kNoPath};
  Temp t = pr.meta == kNoTemp ? Temp::kWarm : temperature(p, pr.meta == kMeta, e.ret >= 0, creates(pr.kind), now);
  if (!model_->has(pr.kind, t)) {
    if (t == Temp::kCold && model_->has(pr.kind, Temp::kWarm)) {
      t = Temp::kWarm;
      ++notes_.cold_as_warm;
    } else {
      ++notes_.unmeasured[cls];
      ++notes_.missing_kind[static_cast<size_t>(pr.kind)];
      return recorded;
    }
  }
  uint64_t ns = model_->sample(pr.kind, t, pr.param, next_bin());
  if (e.nr == SYS_copy_file_range || e.nr == SYS_sendfile) {  // a read, then a write, of its bytes
    if (!model_->has(ProbeKind::kWrite, Temp::kWarm)) {
      ++notes_.unmeasured[cls];
      return recorded;
    }
    ns += model_->sample(ProbeKind::kWrite, Temp::kWarm, pr.param, next_bin());
    ++notes_.copy_as_read_write;
  }
  if (pr.walk) {
    int64_t adj = 0;
    for (int k = 0; k < 2; ++k) {
      const uint32_t q = op.path[k];
      if (q == kNoPath || (k == 0 && pr.kind == ProbeKind::kSymlink)) continue;  // a symlink's text is not walked
      const uint32_t d = walk_depth(op, k);
      adj += model_->walk_adjust(t, d > outer[k] ? d - outer[k] : 0);
    }
    // Never below a quarter of the probe's own figure: a walk is not free.
    ns = static_cast<uint64_t>(std::max<int64_t>(static_cast<int64_t>(ns) + adj, static_cast<int64_t>(ns / 4)));
  }
  // A cached answer does not renew the mount's cache entry (an attribute
  // cache's clock runs from the last reply of the server, not the last hit).
  ns += written_extra;
  after(i, pr, now, pr.meta != kMeta || t == Temp::kCold);
  if (written && (pr.kind == ProbeKind::kStatWritten || pr.kind == ProbeKind::kFstat))
    path_bits_[p] &= ~kAttrStale, touched_[p] = now + 1;  // an fstat has no op path
  ++notes_.modeled;
  // The walk's lookups on the rest's mount come first, and queue there.
  if (outer_ns && server_.active()) outer_ns = server_.serve(now, outer_ns, {}), last_wait_ = server_.last_wait();
  ServerQueue& queue = placed_ ? *slot_queue_[placed_->last_slot()] : server_;  // the op's mount's
  if (queue.active()) ns = queue.serve(now + outer_ns, ns, transfer_of(op, pr)), last_wait_ += queue.last_wait();
  ns += outer_ns;
  idle_from_ = std::max(idle_from_, now + ns);
  if (placed_)
    placed_->priced(v_.plan(), ns,
                    pr.kind == ProbeKind::kOpenDir || pr.kind == ProbeKind::kReaddir || pr.kind == ProbeKind::kMkdir ||
                        pr.kind == ProbeKind::kRmdir);
  return ns;
}

Transfer OpCost::transfer_of(const PlanOp& op, const Priced& pr) const {
  const bool rw = pr.kind == ProbeKind::kRead || pr.kind == ProbeKind::kReadSeq || pr.kind == ProbeKind::kWrite;
  if (!rw) return {};
  const bool direct = op.ofd != kNoOfd && (v_.plan().ofds[op.ofd].open_flags & O_DIRECT);
  return {pr.param, pr.kind == ProbeKind::kWrite, direct};
}

uint32_t OpCost::depth(uint32_t q) {
  if (depth_[q] == 255) {
    const std::string& rel = v_.plan().paths[q].mapped.rel;
    const size_t d = rel.empty() ? 0 : 1 + static_cast<size_t>(std::count(rel.begin(), rel.end(), '/'));
    depth_[q] = static_cast<uint8_t>(std::min<size_t>(d, 254));
  }
  return depth_[q];
}

uint32_t OpCost::walk_depth(const PlanOp& op, int k) {
  const uint32_t d = depth(op.path[k]);
  const uint32_t w = op.walk[k];
  if (!v_.plan().walks_as_passed || w == kNoOfd || w == kWalkFromRoot) return d;
  const uint32_t base = v_.plan().ofds[w].path;
  if (base == kNoPath) return d;
  const uint32_t b = depth(base);
  return d > b ? d - b : 0;
}

// An fstat of a file written since the mount last answered for it walks no
// path: it costs the mount's fstat and what a written file adds to a stat
// (the stat-written case over the warm stat at the same depth: nothing on a
// mount that caches no attributes, where its fstat already asks the server;
// a round trip on one that does). Until 2026-12-07 it was priced as the
// stat-written case, a whole walk: git's checkout fstats each file it wrote
// (2.1 ms each on an uncached 9p-like slowfs, where the replay paid 0.52).
uint64_t OpCost::fstat_written_extra(uint64_t idle_us) {
  if (!model_->has(ProbeKind::kStat, Temp::kWarm)) return 0;
  const uint32_t b = next_bin();
  const uint64_t w = model_->sample(ProbeKind::kStatWritten, Temp::kWarm, idle_us, b);
  const uint64_t s = model_->sample(ProbeKind::kStat, Temp::kWarm, model_->ref_depth(), b);
  return w > s ? w - s : 0;
}

// A placed path (on a rule's mount): the components its walk looks up on
// the rest's mount before it enters SUBDIR, SUBDIR's own name last (a bind
// mount is crossed after the lookup of its name in its parent). From a base
// inside SUBDIR: none. An absolute walk starts at the mount's root, above
// the target: the rest's probed target lay that deep under its mount, and
// every case of its profile includes that walk; a placed op's profile does
// not. A path of the rest, or of a rule on the rest's profile: 0 (its walk
// is in that profile's cases). latency() prices them at the rest's walk
// slope, or at nothing where that mount trusts the entries the bind mount
// holds (LatencyModel::held_entries_free).
uint32_t OpCost::outer_components(const PlanOp& op, int k) {
  if (!placed_) return 0;
  const uint32_t s = placed_->slot(v_.plan(), op.path[k]);
  if (s == 0 || placed_->on_rest_model(s)) return 0;  // (SUBDIR on the rest's own mount: one profile)
  const uint32_t sd = placed_->subdir_depth(s);
  const uint32_t w = op.walk[k];
  if (!v_.plan().walks_as_passed || w == kWalkFromRoot) return sd;
  if (w == kNoOfd || v_.plan().ofds[w].path == kNoPath) return sd + base_->anchor_depth();
  const uint32_t b = depth(v_.plan().ofds[w].path);
  return sd > b ? sd - b : 0;
}

// (The plan's path entries are large and far apart: read once per path, not per op.)
bool OpCost::in_scratch(uint32_t q) {
  if (root_[q] == 0) root_[q] = v_.plan().paths[q].mapped.root == Root::kScratch ? 2 : 1;
  return root_[q] == 2;
}

Temp OpCost::temperature(uint32_t p, bool meta, bool ok, bool creating, uint64_t now) {
  if (!meta) return cold_start_ && !(path_bits_[p] & kData) ? Temp::kCold : Temp::kWarm;
  uint64_t last = touched_[p];
  const uint64_t life = model_->cache_lifetime_ns();
  if ((path_bits_[p] & kAttrStale) && life != kNoExpiry) return Temp::kCold;  // a write invalidated it
  if (last == 0) {
    // First touch in the trace: a path that existed was just made by prepare.
    if (!ok || creating || cold_start_) return Temp::kCold;
    last = 1;
  }
  return life == kNoExpiry || now - std::min(now, last - 1) <= life ? Temp::kWarm : Temp::kCold;
}

bool OpCost::classify(uint32_t i, Priced& pr) {
  const Event& e = v_.event(i);
  const PlanOp& op = v_.op(i);
  const uint64_t* a = e.args;
  const bool by_path = op.path[0] != kNoPath;
  pr = {ProbeKind::kFd, 0, kNoTemp, false};
  auto set = [&](ProbeKind k, uint8_t temp, uint64_t param = 0) {
    pr.kind = k, pr.meta = temp, pr.param = param;
    pr.walk = by_path && k != ProbeKind::kFstat && k != ProbeKind::kPageFault && k != ProbeKind::kMmap &&
              k != ProbeKind::kMunmap && k != ProbeKind::kFd;
    return true;
  };
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (e.nr) {
    case SYS_stat: case SYS_lstat: case SYS_newfstatat: case SYS_statx: case SYS_access:
    case SYS_faccessat: case SYS_faccessat2: case SYS_readlink: case SYS_readlinkat: case SYS_statfs:
    case SYS_chdir: {
      if (!by_path) return set(ProbeKind::kFstat, kNoTemp);
      set(e.ret < 0 ? ProbeKind::kStatMissing : ProbeKind::kStat, kMeta, walk_depth(op, 0));
      pr.walk = false;  // the stat cases are measured at each depth
      return true;
    }
    case SYS_fstat: case SYS_fstatfs: return set(ProbeKind::kFstat, kNoTemp);
    case SYS_open: case SYS_openat: case SYS_openat2: case SYS_creat: {
      const uint64_t flags = e.nr == SYS_open ? a[1] : e.nr == SYS_openat ? a[2]
                             : e.nr == SYS_creat ? uint64_t(O_CREAT | O_WRONLY | O_TRUNC) : 0;
      if (e.ret < 0) return set(ProbeKind::kOpenMissing, kMeta);
      if ((flags & O_CREAT) && !(path_bits_[op.path[0]] & kExists)) return set(ProbeKind::kOpenCreate, kNoTemp);
      if ((flags & O_DIRECTORY) || S_ISDIR(e.mode)) return set(ProbeKind::kOpenDir, kMeta);
      return set(ProbeKind::kOpenFile, kMeta);
    }
    case SYS_execve: case SYS_execveat: return set(ProbeKind::kOpenFile, kMeta);
    case SYS_close:
      return set(op.ofd != kNoOfd && (ofd_bits_[op.ofd] & kDirty) ? ProbeKind::kCloseWrite : ProbeKind::kCloseClean, kNoTemp);
    case SYS_read: case SYS_readv: case SYS_pread64: case SYS_preadv: case SYS_preadv2: {
      const bool started = op.ofd != kNoOfd && (ofd_bits_[op.ofd] & kReadStarted);
      return set(started ? ProbeKind::kReadSeq : ProbeKind::kRead, kDataTemp,
                 io_bytes(e, e.nr == SYS_read || e.nr == SYS_pread64 ? 2 : -1));
    }
    case SYS_write: case SYS_writev: case SYS_pwrite64: case SYS_pwritev: case SYS_pwritev2:
      return set(ProbeKind::kWrite, kNoTemp, io_bytes(e, e.nr == SYS_write || e.nr == SYS_pwrite64 ? 2 : -1));
    case SYS_copy_file_range: return set(ProbeKind::kRead, kDataTemp, io_bytes(e, 4));
    case SYS_sendfile: return set(ProbeKind::kRead, kDataTemp, io_bytes(e, 3));
    case SYS_getdents: case SYS_getdents64:
      return set(ProbeKind::kReaddir, kMeta, e.ret > 0 ? static_cast<uint64_t>(e.ret) : 0);
    case SYS_mkdir: case SYS_mkdirat: return set(ProbeKind::kMkdir, kNoTemp);
    case SYS_mknod: case SYS_mknodat: return set(ProbeKind::kOpenCreate, kNoTemp);
    case SYS_rmdir: return set(ProbeKind::kRmdir, kNoTemp);
    case SYS_unlink: return set(ProbeKind::kUnlink, kNoTemp);
    case SYS_unlinkat: return set((a[2] & AT_REMOVEDIR) ? ProbeKind::kRmdir : ProbeKind::kUnlink, kNoTemp);
    case SYS_rename: case SYS_renameat: case SYS_renameat2: return set(ProbeKind::kRename, kNoTemp);
    case SYS_link: case SYS_linkat: return set(ProbeKind::kLink, kNoTemp);
    case SYS_symlink: case SYS_symlinkat: return set(ProbeKind::kSymlink, kNoTemp);
    case SYS_chmod: case SYS_fchmodat: case SYS_chown: case SYS_lchown: case SYS_fchownat: case SYS_utime:
    case SYS_utimes: case SYS_utimensat: case SYS_futimesat: case SYS_truncate:
      return set(by_path ? ProbeKind::kAttr : ProbeKind::kAttrFd, kNoTemp);
    case SYS_fchmod: case SYS_fchown: case SYS_ftruncate: case SYS_fallocate: return set(ProbeKind::kAttrFd, kNoTemp);
    case SYS_getxattr: case SYS_lgetxattr: case SYS_listxattr: case SYS_llistxattr: case SYS_fgetxattr:
    case SYS_flistxattr:
      return set(ProbeKind::kXattr, kNoTemp);
    case SYS_fsync: case SYS_fdatasync: case SYS_syncfs: case SYS_sync_file_range: return set(ProbeKind::kFsync, kNoTemp);
    case SYS_mmap: return set(ProbeKind::kMmap, kNoTemp);
    case SYS_munmap: return set(ProbeKind::kMunmap, kNoTemp);
    case kEvPageFault: return set(ProbeKind::kPageFault, kDataTemp);
    case SYS_lseek: case SYS_fcntl: case SYS_flock: case SYS_fadvise64: case SYS_readahead:
      return set(ProbeKind::kFd, kNoTemp);
    default: return false;
  }
  // clang-format on
}

void OpCost::after(uint32_t i, const Priced& pr, uint64_t now, bool fetched) {
  const Event& e = v_.event(i);
  const PlanOp& op = v_.op(i);
  const bool ok = e.ret >= 0;
  for (int k = 0; k < 2; ++k) {
    const uint32_t q = op.path[k];
    if (q == kNoPath || (k == 0 && pr.kind == ProbeKind::kSymlink)) continue;
    if (fetched) touched_[q] = now + 1, path_bits_[q] &= ~kAttrStale;
    if (!ok) continue;
    const bool gone =
        pr.kind == ProbeKind::kUnlink || pr.kind == ProbeKind::kRmdir || (pr.kind == ProbeKind::kRename && k == 0);
    path_bits_[q] = gone ? 0 : (path_bits_[q] | kExists);
  }
  if (op.ofd == kNoOfd) return;
  const uint32_t p = v_.plan().ofds[op.ofd].path;
  // A read continues a sequential run (kReadSeq: the readahead the first
  // read started serves it) until the file changes through the OFD or its
  // offset moves: a linker that seeks back into its output and patches it
  // reads each page anew (a mount that revalidates its pages asks for it).
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (pr.kind) {
    case ProbeKind::kWrite: case ProbeKind::kAttrFd:
      ofd_bits_[op.ofd] = static_cast<uint8_t>((ofd_bits_[op.ofd] | kDirty) & ~kReadStarted);
      if (p != kNoPath) path_bits_[p] |= kAttrStale;  // the size changed: the next stat asks the server
      break;
    case ProbeKind::kRead: case ProbeKind::kReadSeq: ofd_bits_[op.ofd] |= kReadStarted; break;
    case ProbeKind::kFd:
      if (e.nr == SYS_lseek && ok && !(e.args[1] == 0 && e.args[2] == SEEK_CUR)) ofd_bits_[op.ofd] &= ~kReadStarted;
      break;
    case ProbeKind::kCloseClean: case ProbeKind::kCloseWrite: ofd_bits_[op.ofd] = 0; break;
    default: break;
  }
  // clang-format on
  if (p != kNoPath && (pr.kind == ProbeKind::kWrite || pr.kind == ProbeKind::kRead || pr.kind == ProbeKind::kReadSeq ||
                       pr.kind == ProbeKind::kPageFault))
    path_bits_[p] |= kData | kExists;
}

}  // namespace fsr

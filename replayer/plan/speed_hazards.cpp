// SPDX-License-Identifier: Apache-2.0
#include "replayer/plan/speed_hazards.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#include <cerrno>

#include <fmt/format.h>

#include "traces/syscalls.h"

namespace fsr {
namespace {

constexpr std::string_view kIndex = "/.git/index";

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

void SpeedHazards::written(StrId path, uint64_t end) {
  if (path == kNoStr) return;
  racy_.erase(path);  // (changed again: its next index write decides)
  last_write_[path] = end;
  recent_.push_back({end, path});
}

void SpeedHazards::index_written(std::string_view index_path, uint64_t end) {
  ++index_writes_;
  racy_.clear();  // entries of the index before: each is now older than this one, or written again
  const std::string_view work_tree = index_path.substr(0, index_path.size() - kIndex.size() + 1);  // ".../"
  const uint64_t s = second_of(end);
  for (auto it = recent_.rbegin(); it != recent_.rend() && second_of(it->end) >= s; ++it) {
    auto lw = last_write_.find(it->path);
    if (lw == last_write_.end() || lw->second != it->end || it->end > end) continue;  // (not its last write)
    const std::string_view p = str_(it->path);
    if (p.size() <= work_tree.size() || p.compare(0, work_tree.size(), work_tree) != 0) continue;
    if (p.compare(work_tree.size(), 5, ".git/") == 0) continue;  // git's own files
    racy_.insert(it->path);
    if (ever_racy_.insert(it->path).second) ++racy_files_;
  }
}

// A futex wait marks its thread; the thread's next path call starts a job.
// (A process's leader is its loop, not a pool thread.)
void SpeedHazards::pool_call(const Event& e) {
  if (e.tid == e.pid) return;
  if (e.nr == SYS_futex) {
    const int op = static_cast<int>(e.args[1]) & FUTEX_CMD_MASK;
    if (op == FUTEX_WAIT || op == FUTEX_WAIT_BITSET) waited_.insert(e.tid);
    return;
  }
  const SyscallInfo* si = syscall_info(e.nr);
  if (!si || si->path[0] < 0 || e.path[0] == kNoStr) return;
  if (waited_.erase(e.tid) == 0) return;
  Pool& p = pools_[e.pid];
  ++p.jobs[e.tid];
  ++p.total;
}

bool SpeedHazards::is_pool(const Pool& p) const { return p.jobs.size() >= kMinPoolThreads && p.total >= kMinPoolJobs; }

SpeedHazards::PoolTotals SpeedHazards::pools() const {
  PoolTotals t;
  for (const auto& [pid, p] : pools_)
    if (is_pool(p)) {
      ++t.processes;
      t.threads += p.jobs.size();
      t.jobs += p.total;
    }
  return t;
}

void SpeedHazards::add(const Event& e) {
  const uint64_t end = e.ts + e.dur;
  pool_call(e);
  // Keep the writes of the last two seconds: an index write looks at its own second.
  while (!recent_.empty() && second_of(recent_.front().end) + 1 < second_of(e.ts)) {
    auto lw = last_write_.find(recent_.front().path);
    if (lw != last_write_.end() && lw->second == recent_.front().end) last_write_.erase(lw);
    recent_.pop_front();
  }
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (e.nr) {
    case SYS_open: case SYS_openat: case SYS_openat2: case SYS_creat: {
      if (e.ret < 0 || e.path[0] == kNoStr) return;
      const uint32_t f = open_flags(e.nr, e.args[1], e.args[2]);
      if ((f & O_ACCMODE) != O_RDONLY || (f & (O_CREAT | O_TRUNC))) written(e.path[0], end);
      else if (racy_.count(e.path[0])) ++racy_rereads_;
      return;
    }
    case SYS_write: case SYS_pwrite64: case SYS_writev: case SYS_pwritev: case SYS_pwritev2:
      if (e.ret > 0) written(e.path[0], end);
      return;
    case SYS_rename: case SYS_renameat: case SYS_renameat2:
      if (e.ret == 0 && e.path[1] != kNoStr && ends_with(str_(e.path[1]), kIndex)) index_written(str_(e.path[1]), end);
      return;
    case SYS_getxattr: case SYS_lgetxattr: case SYS_fgetxattr:
    case SYS_listxattr: case SYS_llistxattr: case SYS_flistxattr:
      if (e.ret == -ENODATA) ++xattr_nodata_;
      return;
    default:
      return;
  }
  // clang-format on
}

std::vector<std::string> SpeedHazards::warnings() const {
  std::vector<std::string> w;
  if (racy_rereads_ >= kMinRereads)
    w.push_back(fmt::format(
        "git: {} reads of {} files written in the same second as the git index written after them (racily clean "
        "entries, which git reads whole to compare): a replay makes all {}; a run on a slower mount, where fewer "
        "files share the index's second, makes fewer (a recording made there, compared with this one, shows it)",
        racy_rereads_, racy_files_, racy_rereads_));
  if (xattr_nodata_ >= kMinProbes)
    w.push_back(fmt::format(
        "{} extended-attribute probes answered 'none' (ENODATA; ls -l asks for every file's ACL): a replay makes "
        "all {}; on a mount without extended attributes (9p, drvfs) the first answer is EOPNOTSUPP and ls stops "
        "asking",
        xattr_nodata_, xattr_nodata_));
  if (const PoolTotals t = pools(); t.processes)
    w.push_back(fmt::format(
        "thread pool: {} threads in {} process{} ran {} jobs of file calls, each taken after a futex wait (node's "
        "libuv pool: npm, yarn, pnpm): which thread takes a job, and when the next is handed out, follow the "
        "recording mount's speed, and a replay keeps the recorded order. From a recording on a faster mount, a "
        "replay and predict on a slower one can read high: record on that mount too, and compare the two",
        t.threads, t.processes, t.processes == 1 ? "" : "es", t.jobs));
  return w;
}

}  // namespace fsr

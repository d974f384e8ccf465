// SPDX-License-Identifier: Apache-2.0
#include "replayer/engine/replay_cost.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>

#include "replayer/engine/engine.h"
#include "replayer/exec/executor.h"

namespace fsr {
namespace {

constexpr const char* kRoot = "/fsreplay-calibration";  // the synthetic trace's recorded root
constexpr uint32_t kMaxReps = 400;

// The call the calibration times for a syscall: the synthetic event the
// executor replays, and the plain call the original made on the same path.
struct Probe {
  uint16_t nr;
  uint64_t args[6];
  int64_t ret;
  int p0, p1;  // path roles: 0 none, 1 the calibration directory, 2 a missing name, 3 another missing name, 4 link text
};

// Which probe stands for `nr` (the syscall calibrated under it).
uint16_t probe_nr(uint16_t nr) {
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (nr) {
    case SYS_open: case SYS_creat: case SYS_openat2: return SYS_openat;
    default: return nr;
  }
  // clang-format on
}

bool make_probe(uint16_t nr, Probe& p) {
  p = Probe{nr, {}, 0, 1, 0};
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (nr) {
    case SYS_openat: p.args[0] = kAtFdcwdArg; p.args[2] = O_RDONLY | O_DIRECTORY | O_CLOEXEC; p.ret = 3; return true;
    case SYS_mkdir: p.args[1] = 0755; p.ret = -EEXIST; return true;
    case SYS_mkdirat: p.args[0] = kAtFdcwdArg; p.args[2] = 0755; p.ret = -EEXIST; return true;
    case SYS_rmdir: case SYS_unlink: p.p0 = 2; p.ret = -ENOENT; return true;
    case SYS_unlinkat: p.args[0] = kAtFdcwdArg; p.p0 = 2; p.ret = -ENOENT; return true;
    case SYS_rename: case SYS_link: p.p0 = 2; p.p1 = 3; p.ret = -ENOENT; return true;
    case SYS_renameat: case SYS_renameat2: case SYS_linkat:
      p.args[0] = kAtFdcwdArg; p.args[2] = kAtFdcwdArg; p.p0 = 2; p.p1 = 3; p.ret = -ENOENT; return true;
    case SYS_symlink: p.p0 = 4; p.p1 = 1; p.ret = -EEXIST; return true;
    case SYS_symlinkat: p.p0 = 4; p.args[1] = kAtFdcwdArg; p.p1 = 1; p.ret = -EEXIST; return true;
    case SYS_chmod: p.args[1] = 0755; return true;
    case SYS_fchmodat: p.args[0] = kAtFdcwdArg; p.args[2] = 0755; return true;
    case SYS_chown: case SYS_lchown:
      p.args[1] = p.args[2] = static_cast<uint64_t>(-1); return true;
    case SYS_fchownat: p.args[0] = kAtFdcwdArg; p.args[2] = p.args[3] = static_cast<uint64_t>(-1); return true;
    case SYS_utimes: case SYS_utime: return true;
    case SYS_utimensat: p.args[0] = kAtFdcwdArg; return true;
    case SYS_statfs: return true;
    case SYS_getxattr: case SYS_lgetxattr: case SYS_listxattr: case SYS_llistxattr: p.ret = -ENODATA; return true;
    default: return false;
  }
  // clang-format on
}

// The plain call, on paths relative to the target (as the executor's own
// calls are), or absolute where the call has no *at form.
int64_t plain(uint16_t nr, int root, const std::string& dir, const std::string& miss, const std::string& miss2,
              const std::string& abs_dir) {
  struct stat st;
  struct statfs sf;
  (void)st;
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (nr) {
    case SYS_openat: {
      int fd = openat(root, dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      return fd;  // closed by the caller, untimed
    }
    case SYS_mkdir: case SYS_mkdirat: return mkdirat(root, dir.c_str(), 0755);
    case SYS_rmdir: return unlinkat(root, miss.c_str(), AT_REMOVEDIR);
    case SYS_unlink: case SYS_unlinkat: return unlinkat(root, miss.c_str(), 0);
    case SYS_rename: case SYS_renameat: case SYS_renameat2: return renameat(root, miss.c_str(), root, miss2.c_str());
    case SYS_link: case SYS_linkat: return linkat(root, miss.c_str(), root, miss2.c_str(), 0);
    case SYS_symlink: case SYS_symlinkat: return symlinkat("x", root, dir.c_str());
    case SYS_chmod: case SYS_fchmodat: return fchmodat(root, dir.c_str(), 0755, 0);
    case SYS_chown: case SYS_lchown: case SYS_fchownat:
      return fchownat(root, dir.c_str(), static_cast<uid_t>(-1), static_cast<gid_t>(-1), 0);
    case SYS_utimes: case SYS_utime: case SYS_utimensat: return utimensat(root, dir.c_str(), nullptr, 0);
    case SYS_statfs: return statfs(abs_dir.c_str(), &sf);
    case SYS_getxattr: return getxattr(abs_dir.c_str(), "user.fsreplay", nullptr, 0);
    case SYS_lgetxattr: return lgetxattr(abs_dir.c_str(), "user.fsreplay", nullptr, 0);
    case SYS_listxattr: return listxattr(abs_dir.c_str(), nullptr, 0);
    case SYS_llistxattr: return llistxattr(abs_dir.c_str(), nullptr, 0);
    default: return 0;
  }
  // clang-format on
}

uint64_t median(std::vector<uint64_t>& v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// Times one syscall `nr` through the executor and plainly, alternately.
uint32_t calibrate_one(uint16_t nr, int target_fd, const std::string& target_path, const Features& f,
                       const std::string& dir_name, uint64_t budget_ns) {
  Probe p;
  if (!make_probe(nr, p)) return 0;
  const std::string rel_dir = dir_name, rel_miss = dir_name + "/nx", rel_miss2 = dir_name + "/ny";
  const std::string strs[] = {"", std::string(kRoot) + "/" + rel_dir, std::string(kRoot) + "/" + rel_miss,
                              std::string(kRoot) + "/" + rel_miss2, "x"};
  auto sid = [](int role) { return role == 0 ? kNoStr : static_cast<StrId>(role); };
  std::vector<Event> ev;
  const bool opens = nr == SYS_openat;
  for (uint32_t k = 0; k < kMaxReps; ++k) {
    Event e;
    e.ts = 1000 + 10'000ull * k;
    e.dur = 1000;
    e.pid = e.tid = 1;
    e.nr = p.nr;
    std::copy(std::begin(p.args), std::end(p.args), e.args);
    e.ret = p.ret;
    e.path[0] = sid(p.p0);
    e.path[1] = sid(p.p1);
    if (opens) e.mode = S_IFDIR | 0755;
    ev.push_back(e);
    if (opens) {
      Event c;
      c.ts = e.ts + 5000;
      c.dur = 500;
      c.pid = c.tid = 1;
      c.nr = SYS_close;
      c.args[0] = 3;
      ev.push_back(c);
    }
  }
  PlanInputs in;
  in.recorded_root = kRoot;
  in.target_dir = target_path;
  in.scratch_dir = target_path;
  in.initial.cwd = kRoot;
  Plan plan = build_plan(
      ev, [&strs](StrId id) { return std::string_view(id < 5 ? strs[id] : strs[0]); }, in);
  ExecEnv env;
  env.root[0] = env.root[1] = target_fd;
  env.root_path[0] = env.root_path[1] = target_path;
  env.features = &f;
  env.plan = &plan;
  init_exec_env(env);
  std::vector<char> buf(4096, 'f');
  DirCache dirs(&env.tree_gen);  // as a worker has it
  const std::string abs_dir = target_path + "/" + rel_dir;
  std::vector<uint64_t> ex, pl;
  const uint64_t began = mono_ns();
  uint32_t reps = kMaxReps;
  const size_t step = opens ? 2 : 1;
  for (uint32_t k = 0; k < reps; ++k) {
    const uint32_t i = static_cast<uint32_t>(k * step);
    if (plan.ops[i].action != OpAction::kIssue) return 0;  // the plan replays it as no call at all
    uint16_t flags = 0;
    auto run_exec = [&] {
      uint64_t t0 = mono_ns();
      (void)execute_op(i, env, buf.data(), buf.size(), flags, &dirs);
      ex.push_back(mono_ns() - t0);
      if (opens) {
        (void)execute_op(i + 1, env, buf.data(), buf.size(), flags, &dirs);
        apply_closes(i + 1, env);
      }
    };
    auto run_plain = [&] {
      uint64_t t0 = mono_ns();
      int64_t r = plain(nr, target_fd, rel_dir, rel_miss, rel_miss2, abs_dir);
      pl.push_back(mono_ns() - t0);
      if (opens && r >= 0) close(static_cast<int>(r));
    };
    if (k % 2) {
      run_exec();
      run_plain();
    } else {
      run_plain();
      run_exec();
    }
    if (k == 3) {  // a slow mount: fewer repetitions
      const uint64_t per = (mono_ns() - began) / 4;
      if (per > 0) reps = static_cast<uint32_t>(std::clamp<uint64_t>(budget_ns / per, 8, kMaxReps));
    }
  }
  release_all(env);
  const uint64_t e = median(ex), q = median(pl);
  return static_cast<uint32_t>(e > q ? std::min<uint64_t>(e - q, UINT32_MAX) : 0);
}

}  // namespace

bool issue_cost_applies(uint16_t nr) {
  Probe p;
  return make_probe(probe_nr(nr), p);
}

std::vector<uint16_t> issued_syscalls(const Plan& plan) {
  std::vector<bool> seen(kMaxSyscallNr, false);
  std::vector<uint16_t> out;
  for (uint64_t i = 0; i < plan.size; ++i) {
    const uint16_t nr = plan.event(i).nr;
    if (plan.op(i).action != OpAction::kIssue || nr >= kMaxSyscallNr || seen[nr]) continue;
    seen[nr] = true;
    out.push_back(nr);
  }
  return out;
}

Result<IssueCost> calibrate_issue_cost(int target_fd, const std::string& target_path, const Features& f,
                                       const std::vector<uint16_t>& nrs, uint64_t budget_ns) {
  IssueCost cost;
  const uint64_t began = mono_ns();
  std::vector<uint16_t> probes;
  for (uint16_t nr : nrs)
    if (issue_cost_applies(nr) && std::find(probes.begin(), probes.end(), probe_nr(nr)) == probes.end())
      probes.push_back(probe_nr(nr));
  if (probes.empty()) return cost;
  const std::string dir = ".fsreplay-calibrate-" + std::to_string(getpid());
  if (mkdirat(target_fd, dir.c_str(), 0755) != 0 && errno != EEXIST)
    return Status::error("cannot make a calibration directory in the target " + target_path + ": " + strerror(errno) +
                         " (check the target is writable)");
  uint32_t by_probe[kMaxSyscallNr] = {};
  for (uint16_t p : probes) by_probe[p] = calibrate_one(p, target_fd, target_path, f, dir, budget_ns);
  unlinkat(target_fd, dir.c_str(), AT_REMOVEDIR);
  for (uint16_t nr : nrs)
    if (issue_cost_applies(nr)) {
      cost.ns[nr] = by_probe[probe_nr(nr)];
      cost.measured.push_back(nr);
    }
  cost.took_ns = mono_ns() - began;
  return cost;
}

}  // namespace fsr

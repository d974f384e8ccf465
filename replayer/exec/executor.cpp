// SPDX-License-Identifier: Apache-2.0
#include "replayer/exec/executor.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

#include "replayer/exec/exec_context.h"

namespace fsr {
namespace {

constexpr uint64_t kMaxBuf = 16ull << 20;

int64_t dispatch(exec::Ctx& c) {
  switch (c.e.nr) {
    case SYS_mmap:
      return c.env.maps.mmap(c.i, c.fd());
    case SYS_munmap:
      return c.env.maps.munmap(c.i);
    case kEvPageFault:
      // Unmapped, or past the file's end (SIGBUS caught): not touched.
      return c.env.maps.touch(c.i) ? 0 : c.skipped();
    default:
      break;
  }
  if (auto r = exec::io_op(c)) return *r;
  if (auto r = exec::files_op(c)) return *r;
  return c.skipped();
}

// Whether the op has every path its call walks, or the form the call's
// handler issues without it: a NULL path (kSfPathOptional: the fd's, or
// Rust's statx probe) or "" with AT_EMPTY_PATH on an fd (kSfEmptyPathForm).
// A path the trace lost (or a fuzzed trace) is skipped, never walked.
bool has_its_paths(const SyscallInfo& si, const PlanOp& op) {
  if (si.path[1] >= 0 && op.path[1] == kNoPath) return false;
  if (si.path[0] < 0 || op.path[0] != kNoPath) return true;
  if (si.flags & kSfPathOptional) return true;
  return (si.flags & kSfEmptyPathForm) && op.ofd != kNoOfd;
}

}  // namespace

void init_exec_env(ExecEnv& env, size_t ofds, const std::vector<uint32_t>& space_threads, size_t maps) {
  env.ofd_fd.assign(ofds, -1);
  env.maps.init(*env.plan, space_threads, maps);
}

void init_exec_env(ExecEnv& env) {
  std::vector<uint32_t> st;
  for (const PlanSpace& s : env.plan->spaces) st.push_back(s.threads);
  init_exec_env(env, env.plan->ofds.size(), st, env.plan->maps.size());
}

uint64_t max_io_size(const Plan& plan) {
  uint64_t m = 65536;
  for (uint64_t i = 0; i < plan.size; ++i) {
    if (plan.op(i).action != OpAction::kIssue) continue;
    SyscallClass k = class_of(plan.event(i).nr);
    if (k == SyscallClass::kRead || k == SyscallClass::kWrite || k == SyscallClass::kCopy ||
        k == SyscallClass::kReaddir)
      m = std::max<uint64_t>(m, plan.event(i).ret > 0 ? static_cast<uint64_t>(plan.event(i).ret) : 0);
  }
  return std::min(m, kMaxBuf);
}

int64_t execute_op(uint32_t i, ExecEnv& env, char* buf, uint64_t buf_size, uint16_t& op_flags, DirCache* dirs) {
  exec::Ctx c{i, env, env.plan->event(i), env.plan->op(i), buf, buf_size, op_flags, dirs};
  const SyscallInfo* si = syscall_info(c.e.nr);
  if (si && si->fd >= 0 && c.e.nr != SYS_mmap && c.fd() < 0) return -EBADF;
  if (si && !has_its_paths(*si, c.op)) return c.skipped();
  if (c.op.flags & kPfDevice) return exec::device_op(c);
  return dispatch(c);
}

void apply_closes(uint32_t i, ExecEnv& env) {
  const PlanOp& op = env.plan->op(i);
  if (op.space != kNoSpace) {
    const uint16_t nr = env.plan->event(i).nr;
    if (nr == kEvProcExit || nr == kEvProcExec || nr == SYS_execve || nr == SYS_execveat) env.maps.leave(i);
  }
  for (uint32_t k = op.close_begin; k != op.close_end; ++k) {
    int& fd = env.ofd_fd[env.plan->close(k)];
    if (fd >= 0) close(fd);
    fd = -1;
  }
}

void release_all(ExecEnv& env) {
  for (int& fd : env.ofd_fd)
    if (fd >= 0) close(fd), fd = -1;
  env.maps.release_all();
  for (int& fd : env.anchor)
    if (fd >= 0) close(fd), fd = -1;
}

}  // namespace fsr

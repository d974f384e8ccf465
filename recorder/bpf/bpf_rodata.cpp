// SPDX-License-Identifier: Apache-2.0
#include "recorder/bpf/bpf_rodata.h"

#include <bpf/libbpf.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpf/fsreplay_record.h"
#include "fsreplay_record.skel.h"
#include "recorder/core/syscall_arity.h"
#include "traces/syscalls.h"

namespace fsr {
namespace {

static_assert(kMaxSyscallNr == FSR_MAX_NR, "BPF and syscall table disagree on the nr bound");

// Threads the task hash holds at most (task state without task storage).
constexpr uint32_t kTaskHashEntries = 65536;

uint8_t arg_or_none(int8_t a) { return a >= 0 && a < 6 ? static_cast<uint8_t>(a) : FSR_NO_ARG; }

}  // namespace

void fill_rodata(fsr_bpf* skel, const ProgramPlan& plan) {
  auto* ro = skel->rodata;
  for (int i = 0; i < FSR_MAX_NR; ++i) {
    ro->sys_path0[i] = ro->sys_path1[i] = ro->sys_statbuf[i] = ro->sys_fd[i] = FSR_NO_ARG;
  }
  for (const SyscallInfo& s : syscall_table()) {
    if (s.nr >= FSR_MAX_NR) continue;  // pseudo events
    uint8_t f = FSR_SF_RECORD;
    if (s.flags & kSfReturnsFd) f |= FSR_SF_RET_FD;
    if (s.flags & kSfStatBuf) f |= FSR_SF_STAT;
    if (s.flags & kSfStatxBuf) f |= FSR_SF_STATX;
    if (s.flags & kSfIoUring) f |= FSR_SF_IO_URING;
    if (s.cls == SyscallClass::kMmap) f |= FSR_SF_FD_INODE;
    if (path_only_on_failure(s)) f |= FSR_SF_EXEC;
    uint8_t out = arg_or_none(s.stat_buf);
    if (s.flags & kSfFdPairOut) {
      f |= FSR_SF_FD_PAIR;
      out = static_cast<uint8_t>(fd_pair_arg(s));
    }
    ro->sys_flags[s.nr] = f;
    ro->sys_class[s.nr] = static_cast<uint8_t>(s.cls);
    ro->sys_path0[s.nr] = arg_or_none(s.path[0]);
    ro->sys_path1[s.nr] = arg_or_none(s.path[1]);
    ro->sys_statbuf[s.nr] = out;
    ro->sys_args[s.nr] = recorded_arg_mask(s);
    // The kernel looks at the fd operand only where it matters: to flag pipe,
    // socket and eventfd I/O (causality) and to give mmap its inode. Other fd
    // calls (close, lseek, fsync...) get their path from the user-side fd table.
    const bool inspect_fd = s.cls == SyscallClass::kRead || s.cls == SyscallClass::kWrite ||
                            s.cls == SyscallClass::kMmap || s.cls == SyscallClass::kCopy;
    ro->sys_fd[s.nr] = inspect_fd ? arg_or_none(s.fd) : FSR_NO_ARG;
  }
  ro->class_process = static_cast<uint32_t>(SyscallClass::kProcess);
  ro->class_mmap = static_cast<uint32_t>(SyscallClass::kMmap);
  ro->record_faults = plan.faults != FaultSource::kOff ? 1 : 0;
  ro->mmap_real_inode = plan.find_vma ? 1 : 0;
  ro->use_task_storage = plan.task_state == TaskStateStore::kTaskStorage ? 1 : 0;
  ro->pidns_init = plan.pidns.initial() ? 1 : 0;
  ro->pidns_inum = static_cast<uint32_t>(plan.pidns.inum);
  // The recorder's own threads, for the time they take from the workload
  // (sched_switch.bpf.c): its pid here and its namespace's nsfs device.
  ro->rec_ns_tgid = static_cast<uint32_t>(getpid());
  struct stat ns {};
  if (stat("/proc/self/ns/pid", &ns) == 0) ro->pidns_dev = ns.st_dev;
}

void select_programs(fsr_bpf* skel, const ProgramPlan& p) {
  // Task state: in task storage, or in a hash the programs key by kernel tid.
  // Only the store in use is created (the other's code is dead once the
  // verifier knows the rodata).
  const bool storage = p.task_state == TaskStateStore::kTaskStorage;
  bpf_map__set_autocreate(skel->maps.tasks, storage);
  bpf_map__set_autocreate(skel->maps.task_hash, !storage);
  if (!storage) bpf_map__set_max_entries(skel->maps.task_hash, kTaskHashEntries);
  // File page faults (program_plan.h): through the page cache's fault
  // tracepoints, or fentry on the functions they are in (anonymous faults
  // make no record and no lookup either way), or a VMA lookup on every user
  // fault of a tracked task.
  const bool filemap = p.faults == FaultSource::kFilemapTracepoints, fentry = p.faults == FaultSource::kFentry;
  bpf_program__set_autoload(skel->progs.on_fault, filemap || fentry);
  bpf_program__set_autoload(skel->progs.on_filemap_fault, filemap);
  bpf_program__set_autoload(skel->progs.on_filemap_map_pages, filemap);
  bpf_program__set_autoload(skel->progs.on_fentry_filemap_fault, fentry);
  bpf_program__set_autoload(skel->progs.on_fentry_filemap_map_pages, fentry);
  bpf_program__set_autoload(skel->progs.on_fault_vma, p.faults == FaultSource::kVmaLookup);
}

}  // namespace fsr

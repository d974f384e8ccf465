// SPDX-License-Identifier: Apache-2.0
#include "wsl1_probes.h"

#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <linux/openat2.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "emulators/wsl1/wsl1_filter.h"
#include "emulators/wsl1/wsl1_gaps.h"

namespace fsr::test {
namespace {

static_assert(kPtraceSeize == PTRACE_SEIZE);
static_assert(kPrSetSeccomp == PR_SET_SECCOMP);

// 0 when rc >= 0 (closing a returned fd when asked), else errno.
int result(long rc, bool close_fd = false) {
  if (rc < 0) return errno;
  if (close_fd) close(static_cast<int>(rc));
  return 0;
}

int probe_statx() {
  struct statx b {};
  return result(syscall(SYS_statx, AT_FDCWD, "/", 0, STATX_BASIC_STATS, &b));
}
int probe_io_setup() {
  aio_context_t ctx = 0;
  long rc = syscall(SYS_io_setup, 1, &ctx);
  if (rc == 0) syscall(SYS_io_destroy, ctx);
  return result(rc);
}
int probe_io_uring_setup() {
  io_uring_params p{};
  return result(syscall(SYS_io_uring_setup, 1, &p), true);
}
int probe_io_uring_enter() { return result(syscall(SYS_io_uring_enter, -1, 0, 0, 0, nullptr, 0)); }
int probe_io_uring_register() { return result(syscall(SYS_io_uring_register, -1, 0, nullptr, 0)); }
int probe_copy_file_range() { return result(syscall(SYS_copy_file_range, -1, nullptr, -1, nullptr, 1, 0)); }
int probe_sync_file_range() { return result(syscall(SYS_sync_file_range, -1, 0, 0, 0)); }
int probe_memfd_create() { return result(syscall(SYS_memfd_create, "fsr-probe", 0), true); }
int probe_mincore() {
  long page = sysconf(_SC_PAGESIZE);
  void* p = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return -1;
  unsigned char vec = 0;
  int r = result(syscall(SYS_mincore, p, page, &vec));
  munmap(p, page);
  return r;
}
int probe_renameat2_noreplace() {
  // Missing source: the kernel says ENOENT, WSL1 rejects the flag first.
  return result(syscall(SYS_renameat2, AT_FDCWD, "/nonexistent-fsr-probe-a", AT_FDCWD, "/nonexistent-fsr-probe-b",
                        1 /* RENAME_NOREPLACE */));
}
int probe_bpf() { return result(syscall(SYS_bpf, -1, nullptr, 0)); }  // kernel: EINVAL (bad cmd)
int probe_perf_event_open() {
  perf_event_attr a{};
  a.type = PERF_TYPE_SOFTWARE;
  a.size = sizeof(a);
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.disabled = 1;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  return result(syscall(SYS_perf_event_open, &a, 0, -1, -1, 0), true);
}
int probe_ptrace_seize() { return result(syscall(SYS_ptrace, PTRACE_SEIZE, 0, 0, 0)); }  // kernel: ESRCH
int probe_prctl_set_seccomp() {
  return result(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, nullptr, 0, 0));  // kernel: EFAULT
}
int probe_seccomp() { return result(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, nullptr)); }  // kernel: EFAULT
int probe_mmap_locked() {
  void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
  if (p == MAP_FAILED) return errno;
  munmap(p, 4096);
  return 0;
}
int probe_openat2() {
  open_how how{};
  how.flags = O_RDONLY;
  return result(syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how)), true);
}

// Controls: must succeed (return 0) under the filter.
int control_stat() {
  struct stat st {};
  return result(stat("/", &st));
}
int control_openat() { return result(openat(AT_FDCWD, "/", O_RDONLY | O_DIRECTORY), true); }
int control_renameat2_plain() {
  char a[] = "/tmp/fsr-probe-XXXXXX";
  int fd = mkstemp(a);
  if (fd < 0) return errno;
  close(fd);
  std::string b = std::string(a) + ".renamed";
  int r = result(syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b.c_str(), 0));
  unlink(r == 0 ? b.c_str() : a);
  return r;
}
int control_mmap_unlocked() {
  void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return errno;
  munmap(p, 4096);
  return 0;
}
int control_prctl_get_seccomp() { return result(prctl(PR_GET_SECCOMP, 0, 0, 0, 0)); }
int control_ptrace_peek() {
  // Only PTRACE_SEIZE is answered; other requests reach the kernel (ESRCH for pid 0).
  errno = 0;
  long rc = syscall(SYS_ptrace, PTRACE_PEEKDATA, 0, nullptr, nullptr);
  return rc < 0 && errno == ESRCH ? 0 : (errno ? errno : -1);
}
int control_renameat_legacy() {
  char a[] = "/tmp/fsr-probe-XXXXXX";
  int fd = mkstemp(a);
  if (fd < 0) return errno;
  close(fd);
  std::string b = std::string(a) + ".renamed";
  int r = result(renameat(AT_FDCWD, a, AT_FDCWD, b.c_str()));
  unlink(r == 0 ? b.c_str() : a);
  return r;
}

}  // namespace

const std::vector<Probe>& gap_probes() {
  static const std::vector<Probe> kProbes = {
      {"statx", probe_statx},
      {"io_setup", probe_io_setup},
      {"io_uring_setup", probe_io_uring_setup},
      {"io_uring_enter", probe_io_uring_enter},
      {"io_uring_register", probe_io_uring_register},
      {"copy_file_range", probe_copy_file_range},
      {"sync_file_range", probe_sync_file_range},
      {"memfd_create", probe_memfd_create},
      {"mincore", probe_mincore},
      {"renameat2", probe_renameat2_noreplace},
      {"bpf", probe_bpf},
      {"perf_event_open", probe_perf_event_open},
      {"ptrace", probe_ptrace_seize},
      {"prctl", probe_prctl_set_seccomp},
      {"seccomp", probe_seccomp},
      {"mmap", probe_mmap_locked},
      {"openat2", probe_openat2},
  };
  return kProbes;
}

const std::vector<Probe>& control_probes() {
  static const std::vector<Probe> kProbes = {
      {"stat", control_stat},
      {"openat", control_openat},
      {"renameat2_flags0", control_renameat2_plain},
      {"renameat", control_renameat_legacy},
      {"mmap_unlocked", control_mmap_unlocked},
      {"prctl_get_seccomp", control_prctl_get_seccomp},
      {"ptrace_peekdata", control_ptrace_peek},
  };
  return kProbes;
}

const Probe* find_probe(std::string_view name) {
  for (const auto* list : {&gap_probes(), &control_probes()})
    for (const Probe& p : *list)
      if (p.name == name) return &p;
  return nullptr;
}

int run_in_child(int (*fn)(), bool with_filter) {
  int fds[2];
  if (pipe(fds) != 0) return kChildDied;
  pid_t pid = fork();
  if (pid < 0) return kChildDied;
  if (pid == 0) {
    close(fds[0]);
    int r = kInstallFailed;
    if (!with_filter || install_wsl1_filter().is_ok()) r = fn();
    ssize_t w = write(fds[1], &r, sizeof r);
    _exit(w == sizeof r ? 0 : 1);
  }
  close(fds[1]);
  int r = kChildDied;
  ssize_t n = read(fds[0], &r, sizeof r);
  close(fds[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  return n == sizeof r ? r : kChildDied;
}

}  // namespace fsr::test

// SPDX-License-Identifier: Apache-2.0
// fsr_trigger: issues each recorded syscall once, through syscall(2) so that
// libc cannot substitute another call, in the directory given as argv[1]
// (prepared by the test: file "data" of 1234 bytes, dir "sub"). Before each
// case it marks the boundary with access("/fsr-mark/<case>") so the test can
// find the case's events in the trace. Exit status 0 when every call behaved
// as expected on ext4.
#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

int failures = 0;
int g_dirfd = -1;

void* thread_open(void*) {
  // Uses the dirfd the main thread opened: threads share the fd table.
  long fd = syscall(SYS_openat, g_dirfd, "inner", O_RDONLY);
  if (fd < 0) ++failures;
  return nullptr;
}

void mark(const char* name) {
  char p[128];
  snprintf(p, sizeof(p), "/fsr-mark/%s", name);
  syscall(SYS_access, p, F_OK);
}

long check(const char* what, long r) {
  if (r < 0) {
    fprintf(stderr, "fsr_trigger: %s failed: %s\n", what, strerror(errno));
    ++failures;
  }
  return r;
}

// The fds the cases share, opened by the cases that first need them.
struct Fds {
  int dir = -1;      // "sub"
  int data = -1;     // "data", read-only (the stat cases open it)
  int created = -1;  // "created", read-write (the attribute cases open it)
};

void open_cases(const Fds& f) {
  mark("openat");
  int fd = static_cast<int>(check("openat", syscall(SYS_openat, AT_FDCWD, "data", O_RDONLY)));
  close(fd);
  check("creat in sub", syscall(SYS_openat, f.dir, "inner", O_CREAT | O_WRONLY | O_TRUNC, 0644));  // fd left open
  mark("openat_dirfd");
  fd = static_cast<int>(check("openat dirfd", syscall(SYS_openat, f.dir, "inner", O_RDONLY)));
  close(fd);
  mark("open");
  fd = static_cast<int>(check("open", syscall(SYS_open, "data", O_RDONLY)));
  close(fd);
  mark("creat");
  fd = static_cast<int>(check("creat", syscall(SYS_creat, "created", 0640)));
  close(fd);
}

void stat_cases(Fds& f) {
  struct stat st;
  struct statx stx;
  mark("stat");
  check("stat", syscall(SYS_stat, "data", &st));
  mark("lstat");
  check("lstat", syscall(SYS_lstat, "data", &st));
  mark("newfstatat");
  check("newfstatat", syscall(SYS_newfstatat, AT_FDCWD, "data", &st, 0));
  mark("statx");
  check("statx", syscall(SYS_statx, AT_FDCWD, "data", 0, STATX_BASIC_STATS, &stx));
  f.data = static_cast<int>(syscall(SYS_open, "data", O_RDONLY));
  mark("fstat");
  check("fstat", syscall(SYS_fstat, f.data, &st));
  mark("access");
  check("access", syscall(SYS_access, "data", R_OK));
  mark("faccessat2");
  check("faccessat2", syscall(SYS_faccessat2, f.dir, "inner", R_OK, 0));
}

void read_dir_cases(const Fds& f) {
  char buf[4096];
  check("symlink setup", symlink("data", "lnk"));
  mark("readlink");
  check("readlink", syscall(SYS_readlink, "lnk", buf, sizeof(buf)));
  mark("getdents64");
  check("getdents64", syscall(SYS_getdents64, f.dir, buf, sizeof(buf)));
}

void name_space_cases(const Fds& f) {
  mark("mkdir");
  check("mkdir", syscall(SYS_mkdir, "d1", 0755));
  mark("mkdirat");
  check("mkdirat", syscall(SYS_mkdirat, f.dir, "d2", 0755));
  mark("rmdir");
  check("rmdir", syscall(SYS_rmdir, "d1"));

  close(static_cast<int>(syscall(SYS_creat, "u1", 0644)));
  close(static_cast<int>(syscall(SYS_openat, f.dir, "u2", O_CREAT | O_WRONLY, 0644)));
  mark("unlink");
  check("unlink", syscall(SYS_unlink, "u1"));
  mark("unlinkat");
  check("unlinkat", syscall(SYS_unlinkat, f.dir, "u2", 0));

  close(static_cast<int>(syscall(SYS_creat, "r1", 0644)));
  mark("rename");
  check("rename", syscall(SYS_rename, "r1", "r2"));
  mark("renameat2");
  check("renameat2", syscall(SYS_renameat2, AT_FDCWD, "r2", f.dir, "r3", 0));

  mark("link");
  check("link", syscall(SYS_link, "data", "hard1"));
  mark("linkat");
  check("linkat", syscall(SYS_linkat, AT_FDCWD, "data", f.dir, "hard2", 0));
  mark("symlink");
  check("symlink", syscall(SYS_symlink, "../some/target", "sl1"));
  mark("symlinkat");
  check("symlinkat", syscall(SYS_symlinkat, "target2", f.dir, "sl2"));
}

void attribute_cases(Fds& f) {
  char buf[4096];
  mark("chmod");
  check("chmod", syscall(SYS_chmod, "created", 0600));
  mark("fchmodat");
  check("fchmodat", syscall(SYS_fchmodat, f.dir, "inner", 0600));
  mark("truncate");
  check("truncate", syscall(SYS_truncate, "created", 100));
  f.created = static_cast<int>(syscall(SYS_open, "created", O_RDWR));
  mark("ftruncate");
  check("ftruncate", syscall(SYS_ftruncate, f.created, 200));
  mark("fallocate");
  check("fallocate", syscall(SYS_fallocate, f.created, 0, 0, 8192));
  mark("setxattr");
  check("setxattr", syscall(SYS_setxattr, "created", "user.fsr", "v", 1, 0));
  mark("getxattr");
  check("getxattr", syscall(SYS_getxattr, "created", "user.fsr", buf, sizeof(buf)));
  mark("listxattr");
  check("listxattr", syscall(SYS_listxattr, "created", buf, sizeof(buf)));
  mark("fsync");
  check("fsync", syscall(SYS_fsync, f.created));
  mark("fdatasync");
  check("fdatasync", syscall(SYS_fdatasync, f.created));
}

void mapping_cases(const Fds& f) {
  mark("mmap");
  void* m = reinterpret_cast<void*>(syscall(SYS_mmap, nullptr, 4096, PROT_READ, MAP_PRIVATE, f.data, 0));
  if (m == MAP_FAILED) ++failures;
  volatile char c = static_cast<const char*>(m)[10];  // first touch: a page fault on "data"
  (void)c;
  // Faults that read no file (anonymous memory) and pages a syscall brought
  // in (MAP_POPULATE) are not page-fault records.
  mark("mmap_no_fault");
  char* anon = static_cast<char*>(mmap(nullptr, 16 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (anon == MAP_FAILED)
    ++failures;
  else
    for (int pg = 0; pg < 16; ++pg) anon[pg * 4096] = 1;
  void* pop =
      reinterpret_cast<void*>(syscall(SYS_mmap, nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_POPULATE, f.data, 0));
  if (pop == MAP_FAILED)
    ++failures;
  else
    c = static_cast<const char*>(pop)[20];
  mark("copy_file_range");
  check("copy_file_range", syscall(SYS_copy_file_range, f.data, nullptr, f.created, nullptr, 100, 0));
}

void fd_cases(const Fds& f) {
  struct stat st;
  mark("dup");
  int d1 = static_cast<int>(check("dup", syscall(SYS_dup, f.data)));
  mark("dup2");
  check("dup2", syscall(SYS_dup2, f.data, 40));
  mark("dup3");
  check("dup3", syscall(SYS_dup3, f.data, 41, O_CLOEXEC));
  mark("fcntl");
  int d4 = static_cast<int>(check("fcntl", syscall(SYS_fcntl, f.data, F_DUPFD_CLOEXEC, 50)));
  mark("lseek");
  check("lseek", syscall(SYS_lseek, d4, 7, SEEK_SET));
  mark("fd_after_dup");
  check("fstat dup", syscall(SYS_fstat, 41, &st));
  close(d1);
}

void pipe_and_futex_cases() {
  char buf[4096];
  int p[2];
  mark("pipe2");
  check("pipe2", syscall(SYS_pipe2, p, O_CLOEXEC));
  mark("pipe_write");
  check("write", syscall(SYS_write, p[1], "hello", 5));
  mark("pipe_read");
  check("read", syscall(SYS_read, p[0], buf, sizeof(buf)));

  static int futex_word = 0;
  mark("futex");
  check("futex", syscall(SYS_futex, &futex_word, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0));
}

void process_cases(const Fds& f) {
  mark("thread");
  g_dirfd = f.dir;
  pthread_t th;
  if (pthread_create(&th, nullptr, thread_open, nullptr) != 0 || pthread_join(th, nullptr) != 0) ++failures;

  mark("fork");
  pid_t child = fork();
  if (child == 0) {
    syscall(SYS_openat, AT_FDCWD, "data", O_RDONLY);  // in the child, relative to the inherited cwd
    char* args[] = {const_cast<char*>("true"), nullptr};
    syscall(SYS_execve, "/bin/true", args, environ);
    _exit(99);
  }
  int status = 0;
  mark("wait4");
  check("wait4", syscall(SYS_wait4, child, &status, 0, nullptr));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failures;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || chdir(argv[1]) != 0) {
    fprintf(stderr, "usage: fsr_trigger DIR (an existing directory)\n");
    return 2;
  }
  Fds f;
  f.dir = static_cast<int>(check("open dir", syscall(SYS_openat, AT_FDCWD, "sub", O_RDONLY | O_DIRECTORY)));
  // In this order: later cases use the fds earlier ones open, and the fd numbers they leave.
  open_cases(f);
  stat_cases(f);
  read_dir_cases(f);
  name_space_cases(f);
  attribute_cases(f);
  mapping_cases(f);
  fd_cases(f);
  pipe_and_futex_cases();
  process_cases(f);
  mark("end");
  syscall(SYS_exit_group, failures ? 1 : 0);
}

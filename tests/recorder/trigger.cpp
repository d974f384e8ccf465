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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || chdir(argv[1]) != 0) {
    fprintf(stderr, "usage: fsr_trigger DIR (an existing directory)\n");
    return 2;
  }
  int dfd = static_cast<int>(check("open dir", syscall(SYS_openat, AT_FDCWD, "sub", O_RDONLY | O_DIRECTORY)));
  struct stat st;
  struct statx stx;
  char buf[4096];

  mark("openat");
  int fd = static_cast<int>(check("openat", syscall(SYS_openat, AT_FDCWD, "data", O_RDONLY)));
  close(fd);
  check("creat in sub", syscall(SYS_openat, dfd, "inner", O_CREAT | O_WRONLY | O_TRUNC, 0644));  // fd left open
  mark("openat_dirfd");
  fd = static_cast<int>(check("openat dirfd", syscall(SYS_openat, dfd, "inner", O_RDONLY)));
  close(fd);
  mark("open");
  fd = static_cast<int>(check("open", syscall(SYS_open, "data", O_RDONLY)));
  close(fd);
  mark("creat");
  fd = static_cast<int>(check("creat", syscall(SYS_creat, "created", 0640)));
  close(fd);

  mark("stat");
  check("stat", syscall(SYS_stat, "data", &st));
  mark("lstat");
  check("lstat", syscall(SYS_lstat, "data", &st));
  mark("newfstatat");
  check("newfstatat", syscall(SYS_newfstatat, AT_FDCWD, "data", &st, 0));
  mark("statx");
  check("statx", syscall(SYS_statx, AT_FDCWD, "data", 0, STATX_BASIC_STATS, &stx));
  fd = static_cast<int>(syscall(SYS_open, "data", O_RDONLY));
  mark("fstat");
  check("fstat", syscall(SYS_fstat, fd, &st));
  mark("access");
  check("access", syscall(SYS_access, "data", R_OK));
  mark("faccessat2");
  check("faccessat2", syscall(SYS_faccessat2, dfd, "inner", R_OK, 0));

  check("symlink setup", symlink("data", "lnk"));
  mark("readlink");
  check("readlink", syscall(SYS_readlink, "lnk", buf, sizeof(buf)));
  mark("getdents64");
  check("getdents64", syscall(SYS_getdents64, dfd, buf, sizeof(buf)));

  mark("mkdir");
  check("mkdir", syscall(SYS_mkdir, "d1", 0755));
  mark("mkdirat");
  check("mkdirat", syscall(SYS_mkdirat, dfd, "d2", 0755));
  mark("rmdir");
  check("rmdir", syscall(SYS_rmdir, "d1"));

  close(static_cast<int>(syscall(SYS_creat, "u1", 0644)));
  close(static_cast<int>(syscall(SYS_openat, dfd, "u2", O_CREAT | O_WRONLY, 0644)));
  mark("unlink");
  check("unlink", syscall(SYS_unlink, "u1"));
  mark("unlinkat");
  check("unlinkat", syscall(SYS_unlinkat, dfd, "u2", 0));

  close(static_cast<int>(syscall(SYS_creat, "r1", 0644)));
  mark("rename");
  check("rename", syscall(SYS_rename, "r1", "r2"));
  mark("renameat2");
  check("renameat2", syscall(SYS_renameat2, AT_FDCWD, "r2", dfd, "r3", 0));

  mark("link");
  check("link", syscall(SYS_link, "data", "hard1"));
  mark("linkat");
  check("linkat", syscall(SYS_linkat, AT_FDCWD, "data", dfd, "hard2", 0));
  mark("symlink");
  check("symlink", syscall(SYS_symlink, "../some/target", "sl1"));
  mark("symlinkat");
  check("symlinkat", syscall(SYS_symlinkat, "target2", dfd, "sl2"));

  mark("chmod");
  check("chmod", syscall(SYS_chmod, "created", 0600));
  mark("fchmodat");
  check("fchmodat", syscall(SYS_fchmodat, dfd, "inner", 0600));
  mark("truncate");
  check("truncate", syscall(SYS_truncate, "created", 100));
  int wfd = static_cast<int>(syscall(SYS_open, "created", O_RDWR));
  mark("ftruncate");
  check("ftruncate", syscall(SYS_ftruncate, wfd, 200));
  mark("fallocate");
  check("fallocate", syscall(SYS_fallocate, wfd, 0, 0, 8192));
  mark("setxattr");
  check("setxattr", syscall(SYS_setxattr, "created", "user.fsr", "v", 1, 0));
  mark("getxattr");
  check("getxattr", syscall(SYS_getxattr, "created", "user.fsr", buf, sizeof(buf)));
  mark("listxattr");
  check("listxattr", syscall(SYS_listxattr, "created", buf, sizeof(buf)));
  mark("fsync");
  check("fsync", syscall(SYS_fsync, wfd));
  mark("fdatasync");
  check("fdatasync", syscall(SYS_fdatasync, wfd));

  mark("mmap");
  void* m = reinterpret_cast<void*>(syscall(SYS_mmap, nullptr, 4096, PROT_READ, MAP_PRIVATE, fd, 0));
  if (m == MAP_FAILED) ++failures;
  volatile char c = static_cast<const char*>(m)[10];  // first touch: a page fault on "data"
  (void)c;
  // Faults that read no file (anonymous memory) and pages a syscall brought
  // in (MAP_POPULATE) are not page-fault records.
  mark("mmap_no_fault");
  char* anon = static_cast<char*>(mmap(nullptr, 16 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (anon == MAP_FAILED) ++failures;
  else for (int pg = 0; pg < 16; ++pg) anon[pg * 4096] = 1;
  void* pop = reinterpret_cast<void*>(syscall(SYS_mmap, nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0));
  if (pop == MAP_FAILED) ++failures;
  else c = static_cast<const char*>(pop)[20];
  mark("copy_file_range");
  check("copy_file_range", syscall(SYS_copy_file_range, fd, nullptr, wfd, nullptr, 100, 0));

  mark("dup");
  int d1 = static_cast<int>(check("dup", syscall(SYS_dup, fd)));
  mark("dup2");
  check("dup2", syscall(SYS_dup2, fd, 40));
  mark("dup3");
  check("dup3", syscall(SYS_dup3, fd, 41, O_CLOEXEC));
  mark("fcntl");
  int d4 = static_cast<int>(check("fcntl", syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 50)));
  mark("lseek");
  check("lseek", syscall(SYS_lseek, d4, 7, SEEK_SET));
  mark("fd_after_dup");
  check("fstat dup", syscall(SYS_fstat, 41, &st));
  close(d1);

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

  mark("thread");
  g_dirfd = dfd;
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
  mark("end");
  syscall(SYS_exit_group, failures ? 1 : 0);
}

// SPDX-License-Identifier: Apache-2.0
#include "recorder/core/launcher.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include <fmt/format.h>

namespace fsr {
namespace {

bool executable(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(p.c_str(), X_OK) == 0;
}

Result<std::string> find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    if (executable(name)) return name;
    return Status::error(fmt::format("{}: command not found or not executable", name));
  }
  const char* path = getenv("PATH");
  std::string_view rest = path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    size_t colon = rest.find(':');
    std::string dir(rest.substr(0, colon));
    std::string cand = (dir.empty() ? "." : dir) + "/" + name;
    if (executable(cand)) return cand;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return Status::error(fmt::format("{}: command not found (searched $PATH)", name));
}

}  // namespace

RunAs invoking_user() {
  RunAs as;
  as.uid = getuid();
  as.gid = getgid();
  const char* su = getenv("SUDO_USER");
  const char* suid = getenv("SUDO_UID");
  const char* sgid = getenv("SUDO_GID");
  if (geteuid() == 0 && su && suid && sgid && strcmp(su, "root") != 0) {
    as.user = su;
    as.uid = static_cast<uid_t>(strtoul(suid, nullptr, 10));
    as.gid = static_cast<gid_t>(strtoul(sgid, nullptr, 10));
    if (struct passwd* pw = getpwuid(as.uid)) as.home = pw->pw_dir;
  }
  return as;
}

HeldChild::~HeldChild() {
  if (pid_ > 0 && !released_) {
    kill(pid_, SIGKILL);
    int st;
    waitpid(pid_, &st, 0);
  }
}

namespace {

// Waits (up to about five seconds) until the child sits in its read of the go
// pipe, as /proc/PID/syscall shows it. Tracking starts after spawn_held
// returns: a child the scheduler had not yet run would otherwise make that
// read, a call of the launcher's and not of the workload, while tracked
// (the go pipe's fd tells it from the reads of dropping to the invoker).
// Where /proc/PID/syscall cannot be read (a kernel without
// CONFIG_HAVE_ARCH_TRACEHOOK, a hardened /proc) it returns at once.
void wait_until_held(pid_t pid, int go_fd) {
  const std::string file = fmt::format("/proc/{}/syscall", pid);
  for (int i = 0; i < 5000; ++i) {
    std::ifstream in(file);
    std::string first;  // a syscall number, "running", or -1 (in user space)
    if (!(in >> first)) return;
    if (first != "running" && first != "-1" && (first[0] < '0' || first[0] > '9')) return;
    std::string fd;
    if (first == std::to_string(SYS_read) && in >> fd && fd == fmt::format("{:#x}", go_fd)) return;
    usleep(1000);
  }
}

}  // namespace

Result<HeldChild> spawn_held(const std::vector<std::string>& argv, const RunAs& as) {
  if (argv.empty()) return Status::error("no command given (fsreplay record -- CMD ARGS...)");
  FSR_ASSIGN_OR_RETURN(const std::string prog, find_program(argv[0]));
  int go[2], err[2];
  if (pipe2(go, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
    return Status::error(fmt::format("pipe2: {}", strerror(errno)));
  HeldChild c;
  UniqueFd go_r(go[0]), err_w(err[1]);
  c.go_.reset(go[1]);
  c.err_.reset(err[0]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::string& path = prog;
  pid_t pid = fork();
  if (pid < 0) return Status::error(fmt::format("fork: {}", strerror(errno)));
  if (pid == 0) {
    // Child: only async-signal-safe calls from here on.
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    int e = 0;
    if (!as.user.empty()) {
      if (initgroups(as.user.c_str(), as.gid) != 0 || setgid(as.gid) != 0 || setuid(as.uid) != 0)
        e = errno ? errno : EPERM;
      if (!as.home.empty()) setenv("HOME", as.home.c_str(), 1);
      setenv("USER", as.user.c_str(), 1);
      setenv("LOGNAME", as.user.c_str(), 1);
    }
    char b;
    while (read(go_r.get(), &b, 1) < 0 && errno == EINTR) {}
    if (e == 0) {
      execv(path.c_str(), args.data());
      e = errno;
    }
    ssize_t w = write(err_w.get(), &e, sizeof(e));
    (void)w;
    _exit(127);
  }
  c.pid_ = pid;
  wait_until_held(pid, go_r.get());
  return c;
}

Status HeldChild::release() {
  char b = 1;
  if (write(go_.get(), &b, 1) != 1) return Status::error(fmt::format("releasing the workload: {}", strerror(errno)));
  go_.reset();
  released_ = true;
  int e = 0;
  ssize_t n;
  while ((n = read(err_.get(), &e, sizeof(e))) < 0 && errno == EINTR) {}
  err_.reset();
  if (n == static_cast<ssize_t>(sizeof(e))) {
    int st;
    waitpid(pid_, &st, 0);
    pid_ = -1;
    return Status::error(
        fmt::format("cannot start the command: {} (after dropping to the invoking user)", strerror(e)));
  }
  return Status::ok();
}

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
#include "tests/emulators/slowfs/slowfs_test_mount.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace fsr::testing {

std::string make_temp_dir(const std::string& prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + prefix + "XXXXXX";
  if (!mkdtemp(templ.data())) return {};
  return templ;
}

void remove_tree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

bool is_mounted(const std::string& path) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  std::string needle = " " + path + " ";
  while (std::getline(in, line))
    if (line.find(needle) != std::string::npos) return true;
  return false;
}

std::string SlowfsMount::mount(const std::vector<std::string>& args) {
  if (access("/dev/fuse", R_OK | W_OK) != 0) return "/dev/fuse is not accessible";
  root_ = make_temp_dir("slowfs-test-");
  if (root_.empty()) return std::string("mkdtemp failed: ") + std::strerror(errno);
  chmod(root_.c_str(), 0755);  // other users (permission tests) must traverse it
  backing_ = root_ + "/backing";
  mnt_ = root_ + "/mnt";
  if (mkdir(backing_.c_str(), 0755) != 0 || mkdir(mnt_.c_str(), 0755) != 0)
    return "mkdir in " + root_ + ": " + std::strerror(errno);

  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return std::string("pipe: ") + std::strerror(errno);
  std::vector<std::string> argv_s = {SLOWFS_BINARY, backing_, mnt_, "-f", "-o", "default_permissions,allow_other"};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) return std::string("fork: ") + std::strerror(errno);
  if (pid_ == 0) {
    dup2(out[1], 1);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out[1]);
  // Wait for the "slowfs: pid N serving ..." line (printed once mounted).
  std::string got;
  pollfd pfd{out[0], POLLIN, 0};
  while (got.find('\n') == std::string::npos && poll(&pfd, 1, 15000) > 0) {
    char buf[256];
    ssize_t n = read(out[0], buf, sizeof buf);
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  close(out[0]);
  if (got.rfind("slowfs: pid", 0) != 0 || !is_mounted(mnt_)) {
    std::string err = "slowfs did not mount " + mnt_ + " (output: '" + got + "')";
    unmount();
    return err;
  }
  return {};
}

void SlowfsMount::unmount() {
  if (!mnt_.empty() && is_mounted(mnt_)) {
    if (umount2(mnt_.c_str(), 0) != 0) umount2(mnt_.c_str(), MNT_DETACH);
  }
  if (pid_ > 0) {
    int status;
    for (int i = 0; i < 1000; ++i) {  // 10 s
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      if (i == 500) kill(pid_, SIGTERM);
      timespec ts{0, 10'000'000};
      nanosleep(&ts, nullptr);
    }
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      pid_ = -1;
    }
  }
  if (!root_.empty() && !is_mounted(mnt_)) remove_tree(root_);
  root_.clear();
  mnt_.clear();
  backing_.clear();
}

}  // namespace fsr::testing

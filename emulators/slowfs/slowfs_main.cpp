// SPDX-License-Identifier: Apache-2.0
// slowfs: mount a latency-injecting pass-through of BACKING on MOUNTPOINT.
// Thin main: parse (slowfs_config), check the paths, daemonize, run libfuse.
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <atomic>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "emulators/slowfs/slowfs_ops.h"

namespace {

int fail(const std::string& msg) {
  std::fprintf(stderr, "slowfs: %s\n", msg.c_str());
  return 1;
}

bool is_mount_point(const std::string& path) {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    // Field 5 is the mount point, with ' ', '\t', '\n' and '\\' octal-escaped.
    size_t pos = 0;
    for (int f = 0; f < 4 && pos != std::string::npos; ++f) pos = line.find(' ', pos + 1);
    if (pos == std::string::npos) continue;
    size_t end = line.find(' ', pos + 1);
    std::string raw = line.substr(pos + 1, end - pos - 1), mp;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '\\' && i + 3 < raw.size()) {
        mp += static_cast<char>(std::strtol(raw.substr(i + 1, 3).c_str(), nullptr, 8));
        i += 3;
      } else {
        mp += raw[i];
      }
    }
    if (mp == path) return true;
  }
  return false;
}

std::string check_paths(fsr::SlowfsOptions& o) {
  if (access("/dev/fuse", R_OK | W_OK) != 0)
    return "/dev/fuse is missing or not accessible (" + std::string(std::strerror(errno)) +
           "): load the module (modprobe fuse) or give the container --device /dev/fuse";
  char buf[PATH_MAX];
  struct stat st {};
  if (stat(o.backing.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return "backing directory " + o.backing + " does not exist or is not a directory: create it first";
  if (!realpath(o.backing.c_str(), buf))
    return "cannot resolve backing directory " + o.backing + ": " + std::strerror(errno);
  o.backing = buf;
  if (stat(o.mountpoint.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return "mount point " + o.mountpoint + " does not exist or is not a directory: mkdir it first";
  if (!realpath(o.mountpoint.c_str(), buf))
    return "cannot resolve mount point " + o.mountpoint + ": " + std::strerror(errno);
  o.mountpoint = buf;
  if (is_mount_point(o.mountpoint))
    return "mount point " + o.mountpoint + " is busy (already a mount point): unmount it first (fusermount3 -u " +
           o.mountpoint + ")";
  return {};
}

// Writes --op-stats and --server-stats (those asked for).
void write_stats(const fsr::SlowfsState& st) {
  const fsr::SlowfsOptions& o = st.options;
  std::string err;
  if (!o.op_stats_file.empty()) err = st.op_counts.write_file(o.op_stats_file);
  if (err.empty() && !o.server_stats_file.empty())
    err = fsr::write_text_atomically(o.server_stats_file, st.server.format());
  if (!err.empty()) std::fprintf(stderr, "slowfs: %s\n", err.c_str());
}

// Rewrites --op-stats and --server-stats on SIGUSR1 while mounted. The signal is blocked in every
// thread (the request threads inherit the mask) and taken here by sigwait, so
// the file is written by an ordinary thread, off the request path, and
// reading the counts sends the mount no request.
class OpStatsDumper {
 public:
  explicit OpStatsDumper(const fsr::SlowfsState& st) : st_(st) {
    if (st_.options.op_stats_file.empty() && st_.options.server_stats_file.empty()) return;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    thread_ = std::thread([this, set] {
      int sig = 0;
      while (sigwait(&set, &sig) == 0 && !stop_.load()) write_stats(st_);
    });
  }
  ~OpStatsDumper() {
    if (!thread_.joinable()) return;
    stop_.store(true);
    pthread_kill(thread_.native_handle(), SIGUSR1);
    thread_.join();
  }

 private:
  const fsr::SlowfsState& st_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Tells the waiting parent (daemon mode) how the mount went.
void report(int fd, const std::string& msg) {
  if (fd < 0) return;
  (void)!write(fd, msg.data(), msg.size());
  close(fd);
}

int serve(fsr::SlowfsState& st, int status_fd) {
  const fsr::SlowfsOptions& o = st.options;
  if (auto err = st.inodes.open_root(o.backing); !err.empty()) {
    report(status_fd, "error " + err);
    return fail(err);
  }
  umask(0);  // the kernel has already applied the caller's umask
  std::vector<std::string> argv_s = {"slowfs"};
  if (o.debug) argv_s.push_back("-d");
  argv_s.push_back("-o");
  argv_s.push_back("fsname=slowfs:" + o.backing + ",subtype=slowfs");
  for (const auto& m : o.mount_options) {
    argv_s.push_back("-o");
    argv_s.push_back(m);
  }
  std::vector<char*> argv;
  for (auto& s : argv_s) argv.push_back(s.data());
  fuse_args args = FUSE_ARGS_INIT(static_cast<int>(argv.size()), argv.data());
  fuse_session* se = fuse_session_new(&args, &fsr::slowfs_operations(), sizeof(fuse_lowlevel_ops), &st);
  if (!se) {
    std::string m = "libfuse rejected the options (see the message above): check the -o values";
    report(status_fd, "error " + m);
    return fail(m);
  }
  if (fuse_set_signal_handlers(se) != 0 || fuse_session_mount(se, o.mountpoint.c_str()) != 0) {
    fuse_session_destroy(se);
    std::string m =
        "cannot mount on " + o.mountpoint + " (see the message above): check that it is a directory you may mount on";
    report(status_fd, "error " + m);
    return fail(m);
  }
  if (!o.pid_file.empty()) std::ofstream(o.pid_file) << getpid() << "\n";
  std::printf("slowfs: pid %d serving %s on %s (profile %s)\n", getpid(), o.backing.c_str(), o.mountpoint.c_str(),
              o.profile.c_str());
  std::fflush(stdout);
  if (status_fd >= 0) {
    report(status_fd, "ok " + std::to_string(getpid()));
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
      dup2(devnull, 0);
      dup2(devnull, 1);
      dup2(devnull, 2);
      if (devnull > 2) close(devnull);
    }
  }
  // Best effort: without CAP_SYS_NICE a negative value is refused; keep going.
  if (o.nice != 0 && setpriority(PRIO_PROCESS, 0, o.nice) != 0 && geteuid() == 0)
    std::fprintf(stderr, "slowfs: cannot set nice %d: %s\n", o.nice, std::strerror(errno));
  if (o.realtime) {
    // Workers are created by this thread or by other workers and inherit it.
    sched_param sp{};
    sp.sched_priority = 1;
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
      std::fprintf(stderr, "slowfs: cannot use SCHED_FIFO (%s): continuing without --realtime\n", std::strerror(errno));
  }
  int rc;
  std::optional<OpStatsDumper> dumper;
  dumper.emplace(st);
  if (o.single_thread) {
    rc = fuse_session_loop(se);
  } else {
    fuse_loop_config* cfg = fuse_loop_cfg_create();
    fuse_loop_cfg_set_max_threads(cfg, o.max_threads);
    // A server model queues requests in slowfs: keep the workers that a burst
    // started instead of ending all but 16 and starting them again.
    fuse_loop_cfg_set_idle_threads(cfg, o.models_server() ? o.max_threads : 16);
    rc = fuse_session_loop_mt(se, cfg);
    fuse_loop_cfg_destroy(cfg);
  }
  dumper.reset();
  fuse_session_unmount(se);
  fuse_remove_signal_handlers(se);
  fuse_session_destroy(se);
  fuse_opt_free_args(&args);
  if (!o.stats_file.empty()) std::ofstream(o.stats_file) << st.counters.format();
  write_stats(st);
  if (!o.pid_file.empty()) unlink(o.pid_file.c_str());
  return rc == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  fsr::SlowfsState st;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (auto err = fsr::parse_slowfs_args(args, st.options); !err.empty()) return fail(err);
  if (st.options.show_help) {
    std::fputs(fsr::slowfs_usage().c_str(), stdout);
    return 0;
  }
  if (st.options.show_profiles) {
    for (const char* name : {"wsl2-9p", "wsl2-virtiofs", "wsl1-drvfs", "wsl2-9p-lab", "wsl2-virtiofs-lab", "none"}) {
      fsr::SlowfsOptions o;
      fsr::parse_slowfs_args({"--profile", name, "b", "m"}, o);
      std::printf("%s: %s\n%s", name, std::string(fsr::find_profile(name)->note).c_str(),
                  fsr::describe_options(o).c_str());
    }
    return 0;
  }
  if (auto err = check_paths(st.options); !err.empty()) return fail(err);
  st.chown_new_files = geteuid() == 0;
  st.server.configure(st.options.server_slots, st.options.bandwidth);
  if (st.options.foreground) return serve(st, -1);

  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) return fail(std::string("pipe: ") + std::strerror(errno));
  pid_t pid = fork();
  if (pid < 0) return fail(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    close(pipefd[0]);
    setsid();
    _exit(serve(st, pipefd[1]));
  }
  close(pipefd[1]);
  std::string msg;
  char buf[512];
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof buf)) > 0) msg.append(buf, static_cast<size_t>(n));
  close(pipefd[0]);
  if (msg.rfind("ok ", 0) == 0) return 0;  // the child printed the pid line
  int status = 0;
  waitpid(pid, &status, 0);
  return 1;  // the child printed the error
}

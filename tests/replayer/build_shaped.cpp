// SPDX-License-Identifier: Apache-2.0
#include "tests/replayer/build_shaped.h"

#include <fcntl.h>

#include <cerrno>
#include <random>
#include <string>
#include <vector>

namespace fsr::test {
namespace {

// One random stream drives it all: the calls take their draws in a fixed order.
class BuildShaped {
 public:
  explicit BuildShaped(uint64_t seed) : rng_(seed) {}

  Synth make(uint32_t children) {
    t_.add(kMake, kMake, SYS_openat, tick(), 900, 3, {kAtCwd, 0, O_RDONLY}, "/w/p/Makefile");
    t_.add(kMake, kMake, SYS_read, tick(), 900, 100, {3, 0, 4096});
    // The jobserver: a pipe at fds 6 and 7 every child inherits, read for a
    // token when a child starts and written back when it ends, all along the
    // trace (its read positions must survive the stream's sweeps).
    t_.add(kMake, kMake, SYS_pipe2, tick(), 800, 0, {6ull | 7ull << 32, 0});
    t_.add(kMake, kMake, SYS_write, tick(), 900, 4, {7, 0, 4});
    uint32_t started = 0;
    while (started < children || !live_.empty()) {
      if (started < children && live_.size() < 4 && rng_() % 3 == 0) {
        start_child();
        ++started;
        continue;
      }
      if (live_.empty()) continue;
      child_step(live_[rng_() % live_.size()]);
    }
    t_.add(kMake, kMake, kEvProcExit, tick(), 0, 0, {0, 0});
    return std::move(t_);
  }

 private:
  static constexpr uint32_t kMake = 100;  // make's pid

  struct Child {
    uint32_t pid;
    int step = 0;
    int fds[8] = {};
    uint32_t thread = 0;  // a second thread's tid, 0: none
    int pipe_w = 0;
  };

  uint64_t tick() { return ts_ += 200 + rng_() % 3000; }

  static int lowest(const Child& c) {
    for (int f = 3; f < 8; ++f)
      if (!c.fds[f]) return f;
    return -1;
  }

  // make: a pipe per child (the parent's end stays at fd 4 or 5), then the fork.
  void start_child() {
    Child c;
    c.pid = next_pid_++;
    const int r = 4, w = 5;
    t_.add(kMake, kMake, SYS_pipe2, tick(), 800, 0, {static_cast<uint64_t>(r) | static_cast<uint64_t>(w) << 32, 0});
    t_.add(kMake, kMake, SYS_clone, tick(), 30000, c.pid, {17});
    t_.add(kMake, kMake, SYS_close, tick(), 300, 0, {static_cast<uint64_t>(w)});
    make_pipe_r_ = r;
    c.fds[w] = 1;  // inherited
    c.pipe_w = w;
    live_.push_back(c);
  }

  // The child's next step: its exec, its second thread or chdir, then work
  // until it writes its object and exits.
  void child_step(Child& c) {
    const uint32_t tid = c.thread && rng_() % 2 ? c.thread : c.pid;
    const std::string src = "/w/p/src/f" + std::to_string(c.pid % 97) + ".c";
    const std::string hdr = "/w/p/include/h" + std::to_string(rng_() % 40) + ".h";
    const std::string obj = "/w/p/obj/f" + std::to_string(c.pid) + ".o";
    switch (c.step++) {
      case 0:
        t_.add(c.pid, c.pid, SYS_read, tick(), 4000, 1, {6, 0, 1});  // a jobserver token
        t_.add(c.pid, c.pid, SYS_execve, tick(), 50000, 0, {0}, "/usr/bin/cc");
        break;
      case 1:
        if (c.pid % 2 == 0) {
          c.thread = c.pid + 50000;
          t_.add(c.pid, c.pid, SYS_clone, tick(), 9000, c.thread, {0x3d0f00});  // CLONE_THREAD|FILES|FS|VM...
        } else {
          t_.add(c.pid, c.pid, SYS_chdir, tick(), 700, 0, {0}, "/w/p/src");
        }
        break;
      default:
        if (c.step > 14 + static_cast<int>(c.pid % 7))
          finish_child(c, tid, obj);
        else
          child_work(c, tid, src, hdr);
    }
  }

  // The object: a temporary renamed into place; the pipe written; exit; the
  // parent waits. The child leaves `live_` (c with it).
  void finish_child(Child& c, uint32_t tid, const std::string& obj) {
    int f = lowest(c);
    t_.add(c.pid, tid, SYS_openat, tick(), 3000, f, {kAtCwd, 0, O_WRONLY | O_CREAT | O_TRUNC}, obj + ".tmp");
    t_.add(c.pid, tid, SYS_write, tick(), 4000, 2048, {static_cast<uint64_t>(f), 0, 2048});
    t_.add(c.pid, tid, SYS_close, tick(), 600, 0, {static_cast<uint64_t>(f)});
    t_.add(c.pid, tid, SYS_rename, tick(), 2000, 0, {0, 0}, obj + ".tmp", obj);
    t_.add(c.pid, tid, SYS_write, tick(), 900, 1, {static_cast<uint64_t>(c.pipe_w), 0, 1});
    t_.add(c.pid, tid, SYS_write, tick(), 900, 1, {7, 0, 1});  // the token back
    if (c.thread) t_.add(c.pid, c.thread, kEvProcExit, tick(), 0, 0, {0, 0});
    t_.add(c.pid, c.pid, kEvProcExit, tick(), 0, 0, {0, 0});
    t_.add(kMake, kMake, SYS_read, tick(), 1500, 1, {static_cast<uint64_t>(make_pipe_r_), 0, 1});
    t_.add(kMake, kMake, SYS_wait4, tick(), 2500, c.pid, {static_cast<uint64_t>(-1)});
    t_.add(kMake, kMake, SYS_newfstatat, tick(), 900, 0, {kAtCwd, 0, 0, 0}, obj);
    for (size_t k = 0; k < live_.size(); ++k)
      if (live_[k].pid == c.pid) {
        live_.erase(live_.begin() + static_cast<long>(k));
        break;
      }
  }

  // One piece of a compiler's work, drawn at random.
  void child_work(Child& c, uint32_t tid, const std::string& src, const std::string& hdr) {
    const int r = static_cast<int>(rng_() % 7);
    if (r == 0 || r == 1) {  // open a header (relative to the cwd for some), read, maybe keep it
      int f = lowest(c);
      if (f < 0) {
        t_.add(c.pid, tid, SYS_close, tick(), 400, 0, {3});
        c.fds[3] = 0;
        return;
      }
      const bool rel = c.pid % 5 && r == 1;
      t_.add(c.pid, tid, SYS_openat, tick(), 2500, f, {kAtCwd, 0, O_RDONLY | O_CLOEXEC},
             rel ? "../include/h" + std::to_string(rng_() % 40) + ".h" : hdr);
      t_.add(c.pid, tid, SYS_read, tick(), 1800, 300, {static_cast<uint64_t>(f), 0, 4096});
      if (rng_() % 3)
        t_.add(c.pid, tid, SYS_close, tick(), 500, 0, {static_cast<uint64_t>(f)});
      else
        c.fds[f] = 1;
    } else if (r == 2) {  // a missing header probed
      t_.add(c.pid, tid, SYS_newfstatat, tick(), 900, -ENOENT, {kAtCwd, 0, 0, 0},
             "/w/p/include/sys/x" + std::to_string(rng_() % 30) + ".h");
    } else if (r == 3) {
      read_source(c, tid, src);
    } else if (r == 4) {  // a listing of the include dir
      int f = lowest(c);
      if (f < 0) return;
      t_.add(c.pid, tid, SYS_openat, tick(), 2000, f, {kAtCwd, 0, O_RDONLY | O_DIRECTORY}, "/w/p/include");
      t_.add(c.pid, tid, SYS_getdents64, tick(), 5000, 800, {static_cast<uint64_t>(f), 0, 32768});
      t_.add(c.pid, tid, SYS_close, tick(), 300, 0, {static_cast<uint64_t>(f)});
    } else if (r >= 5 && c.thread) {  // the two threads: one waits on a futex (shared by all), the other wakes it
      const uint64_t wait_ts = tick(), wake_ts = tick();
      t_.add(c.pid, c.thread, SYS_futex, wake_ts, 700, 1, {0x7f0000001000, 1, 1});
      t_.add(c.pid, c.pid, SYS_futex, wait_ts, wake_ts + 1500 - wait_ts, 0, {0x7f0000001000, 0, 0});
      ts_ = wake_ts + 1600;
    } else {  // a kept fd read again
      for (int f = 3; f < 8; ++f)
        if (c.fds[f] && f != c.pipe_w) {
          t_.add(c.pid, tid, SYS_read, tick(), 1000, 0, {static_cast<uint64_t>(f), 0, 4096});
          break;
        }
    }
  }

  // The source, fstat'd and read through a dup.
  void read_source(Child& c, uint32_t tid, const std::string& src) {
    int f = lowest(c);
    if (f < 0) return;
    t_.add(c.pid, tid, SYS_openat, tick(), 2500, f, {kAtCwd, 0, O_RDONLY}, src);
    c.fds[f] = 1;
    int g = lowest(c);
    if (g >= 0) {
      t_.add(c.pid, tid, SYS_dup, tick(), 300, g, {static_cast<uint64_t>(f)});
      t_.add(c.pid, tid, SYS_close, tick(), 300, 0, {static_cast<uint64_t>(f)});
      c.fds[f] = 0;
      c.fds[g] = 1;
      f = g;
    }
    t_.add(c.pid, tid, SYS_read, tick(), 2000, 500, {static_cast<uint64_t>(f), 0, 4096});
    t_.add(c.pid, tid, SYS_close, tick(), 300, 0, {static_cast<uint64_t>(f)});
    c.fds[f] = 0;
  }

  Synth t_;
  std::mt19937_64 rng_;
  uint64_t ts_ = 1'000'000;
  std::vector<Child> live_;
  uint32_t next_pid_ = 1000;
  int make_pipe_r_ = 0;
};

}  // namespace

Synth build_shaped(uint32_t children, uint64_t seed) { return BuildShaped(seed).make(children); }

}  // namespace fsr::test

// SPDX-License-Identifier: Apache-2.0
#include "traces/synthetic/synthetic.h"

#include <algorithm>
#include <sys/syscall.h>

#include <cmath>

#include "traces/syscalls.h"

namespace fsr {

BuildLikeStream::BuildLikeStream(uint32_t paths, uint64_t seed) : rng_(seed), paths_(paths), ids_(paths + 1, 0) {}

uint32_t BuildLikeStream::id_of(uint32_t path) {
  if (!ids_[path]) {
    ids_[path] = next_id_++;
    new_paths_.push_back(path_name(path));
  }
  return ids_[path];
}

std::string BuildLikeStream::path_name(uint32_t id) {
  return "/home/dev/project/node_modules/pkg" + std::to_string(id % 211) + "/lib/file" + std::to_string(id) + ".js";
}

uint64_t BuildLikeStream::noisy(uint64_t base_ns) {
  std::uniform_real_distribution<double> u(0.85, 1.6);
  return static_cast<uint64_t>(static_cast<double>(base_ns) * u(rng_));
}

uint32_t BuildLikeStream::pick_path() {
  // Builds walk trees in order (git status lstats the index in order, npm
  // extracts a package file after file): most touches are the next path of a
  // walk; the rest go to a hot set (package.json, tsconfig) or revisit an
  // earlier path.
  uint32_t r = static_cast<uint32_t>(rng_() % 10);
  if (r < 6) {
    walk_ = walk_ % paths_ + 1;
    return walk_;
  }
  std::uniform_int_distribution<uint32_t> hot(1, std::min<uint32_t>(paths_, 200));
  if (r < 9 || walk_ == 0) return hot(rng_);
  std::uniform_int_distribution<uint32_t> seen(1, walk_);
  return seen(rng_);
}

Event BuildLikeStream::base(uint16_t nr, uint64_t dur_ns) {
  Event e;
  // Compute gap: log-uniform between 150 ns and 40 us.
  std::uniform_real_distribution<double> lg(std::log(150.0), std::log(40000.0));
  uint64_t gap = static_cast<uint64_t>(std::exp(lg(rng_)));
  uint64_t& t = thread_ts_[thread_];
  t = std::max(t, ts_) + gap;
  e.ts = t;
  e.dur = noisy(dur_ns);
  t += e.dur;
  ts_ = std::max(ts_, e.ts);
  e.pid = 1000 + thread_ / 2 * 10;
  e.tid = e.pid + thread_ % 2;
  e.nr = nr;
  return e;
}

void BuildLikeStream::step(std::vector<Event>& out) {
  thread_ = static_cast<uint32_t>(rng_() % 6);
  uint32_t kind = static_cast<uint32_t>(rng_() % 10);
  uint32_t p = pick_path();
  new_paths_.clear();
  auto with_path = [&](Event e, uint32_t path) {
    e.path[0] = id_of(path);
    e.args[0] = kAtFdcwdArg;
    return e;
  };
  auto facts = [&](Event& e, uint32_t path) {
    e.dev = 0x803;
    e.ino = 500000 + path * 7;
    e.size = 200 + (path * 2654435761u) % 60000;
    e.mode = 0100644;
  };
  if (kind < 5) {  // module resolution: stat probes, most fail
    int probes = 1 + static_cast<int>(rng_() % 4);
    for (int i = 0; i < probes; ++i) {
      uint32_t q = i + 1 < probes ? (p + static_cast<uint32_t>(i) * 7919u) % paths_ + 1 : p;
      Event e = with_path(base(SYS_newfstatat, 900), q);
      e.args[3] = i + 1 < probes ? 0 : 0x100;  // AT_SYMLINK_NOFOLLOW on the last
      if (i + 1 < probes)
        e.ret = -2;
      else
        facts(e, q);
      out.push_back(e);
    }
  } else if (kind < 8) {  // read a source file
    Event o = with_path(base(SYS_openat, 2600), p);
    o.args[2] = 0x80000;  // O_RDONLY|O_CLOEXEC
    o.ret = 20 + thread_;
    facts(o, p);
    out.push_back(o);
    int fd = static_cast<int>(o.ret);
    Event st = base(SYS_fstat, 350);
    st.args[0] = static_cast<uint64_t>(fd);
    out.push_back(st);
    uint64_t size = 200 + (p * 2654435761u) % 60000;
    for (uint64_t off = 0; off < size; off += 65536) {
      Event r = base(SYS_read, 1800);
      r.args[0] = static_cast<uint64_t>(fd);
      r.args[2] = 65536;
      r.ret = static_cast<int64_t>(std::min<uint64_t>(65536, size - off));
      out.push_back(r);
    }
    Event c = base(SYS_close, 420);
    c.args[0] = static_cast<uint64_t>(fd);
    out.push_back(c);
  } else if (kind < 9) {  // scan a directory
    Event o = with_path(base(SYS_openat, 2400), p);
    o.args[2] = 0x90800;  // O_DIRECTORY|O_CLOEXEC|O_NONBLOCK
    o.ret = 30;
    out.push_back(o);
    for (int i = 0; i < 2; ++i) {
      Event g = base(SYS_getdents64, i ? 600 : 9000);
      g.args[0] = 30;
      g.args[2] = 32768;
      g.ret = i ? 0 : 1200;
      out.push_back(g);
    }
    Event c = base(SYS_close, 400);
    c.args[0] = 30;
    out.push_back(c);
  } else {  // write an output file
    Event o = with_path(base(SYS_openat, 5200), p);
    o.args[2] = 0x80241;  // O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC
    o.args[3] = 0666;
    o.ret = 40;
    out.push_back(o);
    Event w = base(SYS_write, 4200);
    w.args[0] = 40;
    w.args[2] = 4096 + rng_() % 4096;
    w.ret = static_cast<int64_t>(w.args[2]);
    out.push_back(w);
    Event c = base(SYS_close, 900);
    c.args[0] = 40;
    out.push_back(c);
  }
}

}  // namespace fsr

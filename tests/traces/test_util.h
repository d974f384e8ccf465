// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the container tests: temp files and synthetic records.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "traces/event.h"
#include "traces/syscalls.h"
#include "traces/trace_model.h"
#include "traces/trace_reader.h"

namespace fsr::test {

// Every field of two events equal; ts and dur within `timing_tol` ns (0: exact).
inline void expect_same(const Event& a, const Event& b, uint64_t timing_tol) {
  EXPECT_LE(a.ts > b.ts ? a.ts - b.ts : b.ts - a.ts, timing_tol) << a.ts << " vs " << b.ts;
  EXPECT_LE(a.dur > b.dur ? a.dur - b.dur : b.dur - a.dur, timing_tol) << a.dur << " vs " << b.dur;
  EXPECT_EQ(a.ret, b.ret);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(a.args[i], b.args[i]) << "arg " << i;
  EXPECT_EQ(a.dev, b.dev);
  EXPECT_EQ(a.ino, b.ino);
  EXPECT_EQ(a.size, b.size);
  EXPECT_EQ(a.mode, b.mode);
  EXPECT_EQ(a.pid, b.pid);
  EXPECT_EQ(a.tid, b.tid);
  EXPECT_EQ(a.path[0], b.path[0]);
  EXPECT_EQ(a.path[1], b.path[1]);
  EXPECT_EQ(a.nr, b.nr);
  EXPECT_EQ(a.flags, b.flags);
}

// Every record of `r` read sequentially (Event or OpRecord); `chunks`, if
// given, counts the chunks. A read error fails the test and ends the read.
template <typename Rec>
std::vector<Rec> read_records(TraceReader& r, int* chunks = nullptr) {
  std::vector<Rec> out, all;
  while (true) {
    auto got = r.next(out);
    if (!got) {
      ADD_FAILURE() << got.message();
      break;
    }
    if (!got.value()) break;
    if (chunks) ++*chunks;
    all.insert(all.end(), out.begin(), out.end());
  }
  return all;
}

class TempFile {
 public:
  explicit TempFile(const std::string& stem = "fsr") {
    char tmpl[] = "/tmp/fsreplay-test-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) throw std::runtime_error("mkstemp");
    close(fd);
    path_ = std::string(tmpl) + "-" + stem;
    std::rename(tmpl, path_.c_str());
  }
  ~TempFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::vector<uint8_t> read_bytes(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}
inline void write_bytes(const std::string& p, const std::vector<uint8_t>& b) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

inline TraceHeader sample_header(PayloadKind kind = PayloadKind::kTrace) {
  TraceHeader h;
  h.kind = kind;
  h.recorder_version = "test";
  h.kernel_release = "6.18.0-test";
  h.hostname = "box";
  h.cpu_count = 2;
  h.wall_start_ns = 1700000000000000000ull;
  h.mono_start_ns = 123456789;
  h.command = {"git", "clone", "--no-hardlinks", "src", "dst"};
  h.root = "/home/u/repo";
  h.uid = 1000;
  h.gid = 1000;
  MountEntry m;
  m.mount_id = 22;
  m.parent_id = 1;
  m.dev = (8u << 8) | 1;
  m.root = "/";
  m.mount_point = "/mnt/c";
  m.mount_options = "rw,noatime";
  m.fs_type = "9p";
  m.source = "C:\\";
  m.super_options = "rw,aname=drvfs;path=C:\\;uid=1000,cache=5,msize=65536,trans=fd";
  h.mounts.push_back(m);
  h.initial.pid = 4242;
  h.initial.cwd = "/home/u/repo";
  h.initial.umask = 022;
  h.initial.fds = {{0, "/dev/pts/0", 2, 0}, {3, "/home/u/repo/.git/index", 0x80000, 4096}};
  if (kind == PayloadKind::kTrace) h.recorder_choices = {"task_state=task_storage", "page_faults=filemap_tracepoints"};
  if (kind == PayloadKind::kResult) {
    h.source_trace = "/tmp/x.trace";
    h.target = "/mnt/c/work";
    h.scratch = "/tmp/scratch";
    h.environment_json = R"({"platform":"wsl2"})";
    h.options_json = R"({"timing":"think"})";
    h.fallbacks = {"statx->fstatat"};
  }
  return h;
}

// A deterministic, build-shaped stream: stat-heavy, paths that repeat.
struct SyntheticStream {
  explicit SyntheticStream(uint64_t seed = 1) : rng(seed) {}
  std::mt19937_64 rng;
  uint64_t ts = 1000;

  Event next(uint32_t path_id_count) {
    Event e;
    static const uint16_t kMix[] = {262, 262, 262, 332, 4, 257, 257, 3, 0, 0, 1, 217, 5, 21, 8, 9, 87, 82};
    uint32_t r = static_cast<uint32_t>(rng());
    e.nr = kMix[r % (sizeof kMix / sizeof kMix[0])];
    e.pid = 100 + (r >> 8) % 3;
    e.tid = e.pid + ((r >> 12) % 2);
    ts += 200 + (rng() % 3000);
    e.ts = ts;
    e.dur = 300 + (rng() % 2000);
    e.ret = (r >> 16) % 10 == 0 ? -2 : static_cast<int64_t>((r >> 4) % 64);
    // Zipf-ish path reuse: most events touch few hot paths.
    uint32_t p = static_cast<uint32_t>(rng() % path_id_count);
    if ((r >> 20) % 4 != 0) p %= 64;
    e.path[0] = 1 + p;
    e.args[0] = kAtFdcwdArg;
    e.args[1] = (r >> 3) & 0x80000;
    if (e.nr == 262 || e.nr == 4 || e.nr == 5 || e.nr == 332) {
      e.dev = 0x801;
      e.ino = 100000 + p;
      e.size = 4096 * (p % 17);
      e.mode = 0100644;
    }
    return e;
  }
};

}  // namespace fsr::test

// SPDX-License-Identifier: Apache-2.0
#include "tests/predict/predict_testdata.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/syscall.h>

#include <algorithm>

#include "traces/syscalls.h"
#include "traces/trace_writer.h"

namespace fsr::testdata {
Status TraceFixture::write(const std::string& path) const {
  FSR_ASSIGN_OR_RETURN(const std::unique_ptr<TraceWriter> w, TraceWriter::create(path, header));
  for (Event e : ev) {
    for (StrId& id : e.path)
      if (id != kNoStr) id = w->intern(strs[id]);
    FSR_RETURN_IF_ERROR(w->append(e));
  }
  TraceFooter f = footer;
  if (f.end_ns == 0)
    for (const Event& e : ev) f.end_ns = std::max(f.end_ns, e.ts + e.dur);
  return w->finish(f);
}

namespace {
// A fixture whose process `pid` runs `command` in `root` (also its cwd).
TraceFixture fixture_in(const std::string& root, std::vector<std::string> command, uint32_t pid) {
  TraceFixture t;
  t.header.root = root;
  t.header.command = std::move(command);
  t.header.initial.pid = pid;
  t.header.initial.cwd = root;
  return t;
}
}  // namespace

TraceFixture small_build_trace() {
  TraceFixture t = fixture_in("/w", {"make"}, 10);
  t.header.hostname = "fixture";
  t.header.kernel_release = "6.18.0-fixture";
  const uint64_t rd = O_RDONLY | O_CLOEXEC;
  t.add(10, 10, SYS_newfstatat, 1'000, 2'000, 0, {kAtFdcwdArg, 0, 0, 0}, "/w/Makefile");
  t.add(10, 10, SYS_openat, 30'000, 5'000, 3, {kAtFdcwdArg, 0, rd}, "/w/Makefile");
  t.add(10, 10, SYS_read, 40'000, 3'000, 1200, {3, 0, 4096});
  t.add(10, 10, SYS_close, 45'000, 1'000, 0, {3});
  t.add(10, 10, SYS_newfstatat, 60'000, 2'000, 0, {kAtFdcwdArg, 0, 0, 0}, "/w/src/a.c");
  t.add(10, 10, SYS_newfstatat, 70'000, 2'000, -2, {kAtFdcwdArg, 0, 0, 0}, "/w/src/b.c");
  t.add(10, 10, SYS_mkdirat, 80'000, 9'000, 0, {kAtFdcwdArg, 0, 0755}, "/w/out");
  t.add(10, 10, SYS_clone, 100'000, 50'000, 11, {17});
  t.add(11, 11, kEvProcExec, 300'000, 0, 0, {}, "/usr/bin/cc");
  t.add(11, 11, SYS_openat, 320'000, 4'000, 3, {kAtFdcwdArg, 0, rd}, "/usr/include/stdio.h");
  t.add(11, 11, SYS_read, 330'000, 6'000, 8192, {3, 0, 8192});
  t.add(11, 11, SYS_close, 340'000, 1'000, 0, {3});
  t.add(11, 11, SYS_openat, 350'000, 4'000, 4, {kAtFdcwdArg, 0, rd | O_DIRECTORY}, "/w/src");
  t.add(11, 11, SYS_getdents64, 360'000, 7'000, 480, {4, 0, 32768});
  t.add(11, 11, SYS_getdents64, 370'000, 1'000, 0, {4, 0, 32768});
  t.add(11, 11, SYS_close, 380'000, 1'000, 0, {4});
  t.add(11, 11, SYS_openat, 390'000, 4'000, 3, {kAtFdcwdArg, 0, rd}, "/w/src/a.c");
  t.add(11, 11, SYS_read, 400'000, 5'000, 3000, {3, 0, 65536});
  t.add(11, 11, SYS_close, 410'000, 1'000, 0, {3});
  t.add(11, 11, SYS_openat, 600'000, 8'000, 5, {kAtFdcwdArg, 0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644},
        "/w/out/a.o.tmp");
  t.add(11, 11, SYS_write, 620'000, 12'000, 20000, {5, 0, 20000});
  t.add(11, 11, SYS_close, 640'000, 2'000, 0, {5});
  t.add(11, 11, kEvProcExit, 700'000, 0, 0, {0, 1});
  t.add(10, 10, SYS_wait4, 160'000, 560'000, 11, {static_cast<uint64_t>(-1), 0, 0, 0});
  t.add(10, 10, SYS_renameat, 740'000, 10'000, 0, {kAtFdcwdArg, 0, kAtFdcwdArg}, "/w/out/a.o.tmp", "/w/out/a.o");
  t.add(10, 10, SYS_lgetxattr, 760'000, 2'000, -61, {}, "/w/out/a.o");
  t.add(10, 10, SYS_newfstatat, 770'000, 2'000, 0, {kAtFdcwdArg, 0, 0, 0}, "/w/out/a.o");
  t.add(10, 10, SYS_unlinkat, 780'000, 3'000, -2, {kAtFdcwdArg, 0, 0}, "/w/out/junk");
  t.add(10, 10, kEvProcExit, 800'000, 0, 0, {0, 1});
  return t;
}

TraceFixture mixed_trace(uint32_t n) {
  TraceFixture t = fixture_in("/w", {"tool"}, 1);
  uint64_t ts = 1'000;
  auto at = [&] {
    const uint64_t now = ts;
    ts += 22'000;  // 2 us call, 20 us think time
    return now;
  };
  for (uint32_t k = 0; k < n; ++k) {
    const std::string dir = "/w/d" + std::to_string(k % 8), file = dir + "/f" + std::to_string(k);
    t.add(1, 1, SYS_newfstatat, at(), 2'000, 0, {kAtFdcwdArg, 0, 0, 0}, file);
    t.add(1, 1, SYS_newfstatat, at(), 2'000, -2, {kAtFdcwdArg, 0, 0, 0}, dir + "/missing" + std::to_string(k));
    t.add(1, 1, SYS_openat, at(), 2'000, 3, {kAtFdcwdArg, 0, O_RDONLY}, file);
    t.add(1, 1, SYS_read, at(), 2'000, 4096, {3, 0, 4096});
    t.add(1, 1, SYS_close, at(), 2'000, 0, {3});
    t.add(1, 1, SYS_openat, at(), 2'000, 4, {kAtFdcwdArg, 0, O_RDONLY | O_DIRECTORY}, dir);
    t.add(1, 1, SYS_getdents64, at(), 2'000, 400, {4, 0, 32768});
    t.add(1, 1, SYS_getdents64, at(), 2'000, 0, {4, 0, 32768});
    t.add(1, 1, SYS_close, at(), 2'000, 0, {4});
    t.add(1, 1, SYS_openat, at(), 2'000, 5, {kAtFdcwdArg, 0, O_WRONLY | O_CREAT | O_TRUNC, 0644},
          "/w/o/" + std::to_string(k));
    t.add(1, 1, SYS_write, at(), 2'000, 4096, {5, 0, 4096});
    t.add(1, 1, SYS_close, at(), 2'000, 0, {5});
  }
  return t;
}

TraceFixture mkdir_race(uint32_t between) {
  TraceFixture t = fixture_in("/w/p", {"npm", "ci"}, 1);
  const uint64_t kThread = CLONE_THREAD | CLONE_FILES | CLONE_VM | CLONE_SIGHAND;
  t.add(1, 1, SYS_clone, 0, 1, 2, {kThread});
  t.add(1, 1, SYS_clone, 1, 1, 3, {kThread});
  const uint64_t ts = 1000, maker_dur = between * 1000ull + 1000;
  const std::string d = "/w/p/node_modules/m";
  t.add(1, 3, SYS_mkdir, ts, 10, -ENOENT, {0, 0755}, d + "/x");
  t.add(1, 2, SYS_mkdir, ts + 300, 500, -EEXIST, {0, 0755}, d);
  for (uint32_t k = 0; k < between; ++k)
    t.add(1, 3, SYS_newfstatat, ts + 900 + k * 1000ull, 100, -ENOENT, {kAtFdcwdArg, 0, 0, 0},
          "/w/p/f" + std::to_string(k));
  t.add(1, 1, SYS_mkdir, ts + 100, maker_dur, 0, {0, 0755}, d);
  return t;
}

TraceFixture many_builds(uint32_t jobs) {
  TraceFixture t = fixture_in("/w", {"make", "-j2"}, 10);
  const uint64_t rd = O_RDONLY | O_CLOEXEC, wr = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
  uint64_t ts = 1'000;
  for (uint32_t k = 0; k < jobs; k += 2) {
    const uint32_t pair = jobs - k >= 2 ? 2 : 1;
    // (in completion order, as the recorder writes events: the children's
    // work interleaves, make's waits end after their exits)
    for (uint32_t j = 0; j < pair; ++j) t.add(10, 10, SYS_clone, ts + j * 60'000, 40'000, 100 + k + j, {17});
    const uint64_t c0 = ts + 120'000;
    const size_t first = t.ev.size();
    for (uint32_t j = 0; j < pair; ++j) {
      const uint32_t pid = 100 + k + j;
      const std::string n = std::to_string(k + j), src = "/w/src/f" + n + ".c", obj = "/w/out/f" + n + ".o";
      const uint64_t c = c0 + j * 5'000;
      t.add(pid, pid, kEvProcExec, c, 0, 0, {}, "/usr/bin/cc");
      t.add(pid, pid, SYS_openat, c + 20'000, 4'000, 3, {kAtFdcwdArg, 0, rd}, src);
      t.add(pid, pid, SYS_read, c + 30'000, 6'000, 3000, {3, 0, 65536});
      t.add(pid, pid, SYS_close, c + 40'000, 1'000, 0, {3});
      t.add(pid, pid, SYS_newfstatat, c + 50'000, 2'000, 0, {kAtFdcwdArg, 0, 0, 0}, "/w/include/common.h");
      t.add(pid, pid, SYS_openat, c + 200'000, 8'000, 4, {kAtFdcwdArg, 0, wr, 0644}, obj);
      t.add(pid, pid, SYS_write, c + 220'000, 12'000, 20000, {4, 0, 20000});
      t.add(pid, pid, SYS_close, c + 240'000, 2'000, 0, {4});
      t.add(pid, pid, kEvProcExit, c + 300'000, 0, 0, {0, 1});
    }
    std::stable_sort(t.ev.begin() + static_cast<std::ptrdiff_t>(first), t.ev.end(),
                     [](const Event& a, const Event& b) { return a.ts + a.dur < b.ts + b.dur; });
    const uint64_t done = c0 + 320'000;
    t.add(10, 10, SYS_wait4, ts + 100'000, done - ts - 100'000, 100 + k, {static_cast<uint64_t>(-1), 0, 0, 0});
    if (pair == 2) t.add(10, 10, SYS_wait4, done + 2'000, 3'000, 101 + k, {static_cast<uint64_t>(-1), 0, 0, 0});
    for (uint32_t j = 0; j < pair; ++j)
      t.add(10, 10, SYS_newfstatat, done + 20'000 + j * 5'000, 2'000, 0, {kAtFdcwdArg, 0, 0, 0},
            "/w/out/f" + std::to_string(k + j) + ".o");
    ts = done + 50'000;
  }
  t.add(10, 10, kEvProcExit, ts, 0, 0, {0, 1});
  return t;
}

TraceFixture parallel_stats(uint32_t workers, uint32_t per_worker) {
  TraceFixture t = fixture_in("/w", {"tool"}, 1);
  for (uint32_t w = 0; w < workers; ++w) t.add(1, 1, SYS_clone, w * 1'000ull, 500, 2 + w, {test::kThreadFlags});
  const uint64_t t0 = workers * 1'000ull + 10'000;
  for (uint32_t k = 0; k < per_worker; ++k)
    for (uint32_t w = 0; w < workers; ++w)
      t.add(1, 2 + w, SYS_newfstatat, t0 + k * 12'000ull + w * 10, 2'000, 0, {kAtFdcwdArg, 0, 0, 0},
            "/w/d/t" + std::to_string(w) + "/f" + std::to_string(k));
  return t;
}

TraceFixture parallel_writes(uint64_t bytes) {
  TraceFixture t = fixture_in("/w", {"tool"}, 1);
  t.add(1, 1, SYS_clone, 0, 500, 2, {test::kThreadFlags});
  t.add(1, 1, SYS_clone, 1'000, 500, 3, {test::kThreadFlags});
  for (uint32_t w = 0; w < 2; ++w)
    t.add(1, 2 + w, SYS_openat, 10'000 + w * 10, 2'000, 3 + w, {kAtFdcwdArg, 0, O_WRONLY | O_CREAT | O_TRUNC, 0644},
          "/w/out/big" + std::to_string(w));
  for (uint32_t w = 0; w < 2; ++w)
    t.add(1, 2 + w, SYS_write, 20'000 + w * 10, 100'000, static_cast<int64_t>(bytes), {3 + w, 0, bytes});
  for (uint32_t w = 0; w < 2; ++w) t.add(1, 2 + w, SYS_close, 130'000 + w * 10, 2'000, 0, {3 + w});
  return t;
}

TraceFixture write_then_stat(uint64_t gap_ns, int files) {
  TraceFixture t;
  t.header.root = "/w";
  t.header.initial.pid = 1;
  t.header.initial.cwd = "/w";
  uint64_t ts = 1'000;
  for (int f = 0; f < files; ++f) {
    const std::string path = "/w/d/e/w" + std::to_string(f);
    t.add(1, 1, SYS_openat, ts, 2'000, 3, {kAtFdcwdArg, 0, O_WRONLY | O_CREAT}, path);
    t.add(1, 1, SYS_write, ts += 10'000, 2'000, 3, {3, 0, 3});
    t.add(1, 1, SYS_close, ts += 10'000, 2'000, 0, {3});
    t.add(1, 1, SYS_statx, ts += 2'000 + gap_ns, 2'000, 0, {kAtFdcwdArg, 0, 0x900, 0x200}, path);
    ts += 10'000;
  }
  return t;
}

Profile fixed_profile(const std::string& name, uint64_t base_ns, const std::map<ProbeKind, uint64_t>& slow,
                      const std::vector<ProbeKind>& absent) {
  Profile p;
  p.name = name;
  p.target = "/mnt/test";
  p.environment_json =
      R"({"platform":"linux","kernel_release":"6.1.0-test","hostname":"lab","mount":{"mount_point":"/mnt/test",)"
      R"("fs_type":"fuse.slowfs","kind":"fuse","fuse_subtype":"slowfs"}})";
  p.started_wall_ns = 1'764'590'400ull * 1'000'000'000ull;
  p.duration_ns = 60'000'000'000ull;
  p.syscall_overhead_ns = 500;
  p.ref_depth = 3;
  p.cold_measured = true;
  p.rounds = 20;
  auto add = [&](ProbeKind k, Temp t, uint64_t param, double scale) {
    for (ProbeKind a : absent)
      if (a == k) return;
    auto it = slow.find(k);
    const double v = double(it != slow.end() ? it->second : base_ns) * scale;
    std::vector<uint64_t> samples;
    for (int i = 0; i < 200; ++i) samples.push_back(static_cast<uint64_t>(v * (0.9 + 0.2 * i / 199.0)));
    p.cases.push_back(make_case(k, t, param, samples));
  };
  for (int k = 0; k < kProbeKindCount; ++k) {
    const auto kind = static_cast<ProbeKind>(k);
    // The case labels stay packed, one line per family of calls.
    // clang-format off
    switch (kind) {
      case ProbeKind::kStat:
        for (uint64_t d : {2, 3, 5, 7, 9})
          for (Temp t : {Temp::kWarm, Temp::kCold}) add(kind, t, d, (1.0 + 0.2 * (double(d) - 3)) * (t == Temp::kCold ? 2 : 1));
        break;
      case ProbeKind::kStatMissing:
        for (uint64_t d : {3, 9})
          for (Temp t : {Temp::kWarm, Temp::kCold}) add(kind, t, d, 1.0 + 0.2 * (double(d) - 3));
        break;
      case ProbeKind::kRead: case ProbeKind::kReadSeq: case ProbeKind::kWrite:
        for (uint64_t size : {0, 128, 4096, 65536, 1048576}) add(kind, Temp::kWarm, size, 1.0 + double(size) / 65536);
        break;
      case ProbeKind::kReaddir:
        for (uint64_t bytes : {48, 400, 3200, 24600}) add(kind, Temp::kWarm, bytes, 1.0 + double(bytes) / 4000);
        break;
      case ProbeKind::kStatWritten:
        if (!slow.contains(kind)) break;
        add(kind, Temp::kWarm, 0, 1.0);
        add(kind, Temp::kWarm, 2000, 2.0);
        break;
      default: add(kind, Temp::kWarm, 0, 1.0);
    }
    // clang-format on
  }
  return p;
}

}  // namespace fsr::testdata

// SPDX-License-Identifier: Apache-2.0
// libFuzzer target past the checksums: the input is not a file but a small
// program of edits (edit_program, replay_fuzz_edits.h) applied to a decoded, valid trace --
// its events (ids, sizes, times, paths, flags, arguments), its prestate
// entries and its strings -- which is then written again by the real
// TraceWriter, so every chunk's CRC is valid and the reader accepts it. That
// trace goes through what the verbs do: inspect (summarise), dump
// (format_event / format_prestate), prepare, replay (afap) and, for one
// input in three, predict with a shipped profile -- in-process. A crash, a sanitizer report, a leak or a run
// past libFuzzer's -timeout (a hang) is a failure.
//
// Bounds it sets itself (run-replay-fuzz.sh adds a tmpfs and an unprivileged
// user): prestate sizes and events' inode sizes are capped at kMaxFileSize --
// a 1 TiB prestate file is a known open problem (issue 39 item 3, a check in
// prepare), not this target's to rediscover on every run -- and every file
// the process writes is limited by RLIMIT_FSIZE (EFBIG, SIGXFSZ ignored), so
// a size implied by a read's offset cannot fill a disk either. SIGXFSZ is
// ignored again at each input: libFuzzer installs its own handler for it
// (-handle_xfsz) after LLVMFuzzerInitialize, which turned EFBIG into a
// "file size exceeded" crash.
//
// Everything happens under FSR_FUZZ_WORK (default: a fresh /tmp directory):
// per input, a trace, a target, a scratch, a result, and a sentinel tree
// beside them whose change is reported as an escape (abort).
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fuzzer/FuzzedDataProvider.h>

#include <linux/sched.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "replayer/session/replay.h"
#include "tests/fuzz/replay_fuzz_edits.h"
#include "predict/predict.h"
#include "report/render.h"
#include "traces/event_format.h"
#include "traces/synthetic/synthetic.h"
#include "traces/syscalls.h"
#include "traces/trace_reader.h"
#include "traces/trace_summary.h"
#include "traces/trace_writer.h"

namespace {

using namespace fsr;

using fuzz::decode;
using fuzz::Decoded;
using fuzz::edit_program;
using fuzz::Stages;
using fuzz::write_trace;

constexpr rlim_t kFileSizeLimit = 16ull << 20;  // any one file this process writes

std::string g_work;
std::vector<Decoded> g_bases;

// --- base traces -----------------------------------------------------------

struct Builder {
  Decoded d;
  StrId s(const std::string& v) {
    for (size_t i = 1; i < d.strs.size(); ++i)
      if (d.strs[i] == v) return static_cast<StrId>(i);
    d.strs.push_back(v);
    return static_cast<StrId>(d.strs.size() - 1);
  }
  uint64_t ts = 1000;
  void add(uint32_t pid, uint32_t tid, uint16_t nr, int64_t ret, std::initializer_list<uint64_t> args = {},
           const std::string& p0 = "", const std::string& p1 = "", uint64_t dur = 2000) {
    Event e;
    e.pid = pid;
    e.tid = tid;
    e.nr = nr;
    e.ts = ts;
    e.dur = dur;
    e.ret = ret;
    int k = 0;
    for (uint64_t a : args) e.args[k++] = a;
    if (!p0.empty()) e.path[0] = s(p0);
    if (!p1.empty()) e.path[1] = s(p1);
    ts += dur + 500;
    d.events.push_back(e);
  }
  void facts(uint64_t ino, uint64_t size, uint32_t mode) {
    Event& e = d.events.back();
    e.dev = 0x803;
    e.ino = ino;
    e.size = size;
    e.mode = mode;
  }
  void pre(const std::string& path, PrestateKind kind, uint64_t size = 0, const std::string& link = "",
           uint64_t ino = 0, uint32_t nlink = 1) {
    PrestateEntry e;
    e.path = path;
    e.kind = kind;
    e.mode = kind == PrestateKind::kDir ? 040755 : kind == PrestateKind::kFile ? 0100644 : 0120777;
    e.size = size;
    e.target = link;
    e.ino = ino ? ino : 100 + d.prestate.size();
    e.dev = 0x803;
    e.nlink = nlink;
    d.prestate.push_back(e);
  }
};

constexpr uint64_t kAtCwd = kAtFdcwdArg;
constexpr uint64_t kThreadFlags = CLONE_THREAD | CLONE_FILES | CLONE_VM | CLONE_SIGHAND;

Decoded tiny_trace() {
  Builder b;
  b.d.header.root = "/w/p";
  b.pre("/w/p", PrestateKind::kDir);
  b.pre("/w/p/f", PrestateKind::kFile, 100);
  b.add(1, 1, SYS_openat, 3, {kAtCwd, 0, O_RDONLY}, "/w/p/f");
  b.facts(101, 100, 0100644);
  b.add(1, 1, SYS_read, 100, {3, 0, 4096});
  b.add(1, 1, SYS_close, 0, {3});
  return b.d;
}

// Most of what a build does, in two processes and two threads of one.
Decoded rich_trace() {
  Builder b;
  b.d.header.root = "/w/p";
  b.d.header.command = {"make", "-j2"};
  b.pre("/w/p", PrestateKind::kDir);
  b.pre("/w/p/src", PrestateKind::kDir);
  b.pre("/w/p/src/a.c", PrestateKind::kFile, 1000, "", 500, 2);
  b.pre("/w/p/src/b.c", PrestateKind::kFile, 9000);
  b.pre("/w/p/hard", PrestateKind::kFile, 1000, "", 500, 2);
  b.pre("/w/p/link", PrestateKind::kSymlink, 7, "src/a.c");
  b.pre("/w/p/abs", PrestateKind::kSymlink, 9, "/w/p/src");
  b.pre("/w/p/empty", PrestateKind::kDir);
  b.pre("/w/p/old", PrestateKind::kFile, 10);
  b.add(1, 1, SYS_openat, 3, {kAtCwd, 0, O_RDONLY}, "/w/p/src/a.c");
  b.facts(500, 1000, 0100644);
  b.add(1, 1, SYS_fstat, 0, {3});
  b.add(1, 1, SYS_read, 1000, {3, 0, 65536});
  b.add(1, 1, SYS_read, 0, {3, 0, 65536});
  b.add(1, 1, SYS_pread64, 10, {3, 0, 10, 990});
  b.add(1, 1, SYS_lseek, 5, {3, 5, SEEK_SET});
  b.add(1, 1, SYS_close, 0, {3});
  b.add(1, 1, SYS_openat, 4, {kAtCwd, 0, O_RDONLY}, "/w/p/src/b.c");
  b.facts(502, 9000, 0100644);
  const uint64_t addr = 0x7f1234560000ull;
  b.add(1, 1, SYS_mmap, static_cast<int64_t>(addr), {0, 3 * 4096, PROT_READ, MAP_PRIVATE, 4, 0});
  b.add(1, 1, kEvPageFault, 0, {4096, addr + 4096 + 10, 0}, "/w/p/src/b.c", "", 0);
  b.add(1, 1, SYS_munmap, 0, {addr, 3 * 4096});
  b.add(1, 1, SYS_close, 0, {4});
  b.add(1, 1, SYS_mkdir, 0, {0, 0755}, "/w/p/out");
  b.add(1, 1, SYS_openat, 3, {kAtCwd, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, "/w/p/out/a.o");
  b.add(1, 1, SYS_write, 500, {3, 0, 500});
  b.add(1, 1, SYS_pwrite64, 100, {3, 0, 100, 4000});
  b.add(1, 1, SYS_ftruncate, 0, {3, 2000});
  b.add(1, 1, SYS_fsync, 0, {3});
  b.add(1, 1, SYS_dup2, 7, {3, 7});
  b.add(1, 1, SYS_fcntl, 8, {3, F_DUPFD_CLOEXEC, 8});
  b.add(1, 1, SYS_close, 0, {3});
  b.add(1, 1, SYS_close, 0, {7});
  b.add(1, 1, SYS_close, 0, {8});
  b.add(1, 1, SYS_rename, 0, {}, "/w/p/out/a.o", "/w/p/out/b.o");
  b.add(1, 1, SYS_link, 0, {}, "/w/p/out/b.o", "/w/p/out/c.o");
  b.add(1, 1, SYS_symlink, 0, {}, "b.o", "/w/p/out/d.o");
  b.add(1, 1, SYS_readlink, 7, {0, 0, 4096}, "/w/p/link");
  b.add(1, 1, SYS_newfstatat, 0, {kAtCwd, 0, 0, 0}, "/w/p/link");
  b.facts(500, 1000, 0100644);
  b.add(1, 1, SYS_newfstatat, -ENOENT, {kAtCwd, 0, 0, AT_SYMLINK_NOFOLLOW}, "/w/p/missing.h");
  b.add(1, 1, SYS_unlink, 0, {}, "/w/p/out/c.o");
  b.add(1, 1, SYS_unlinkat, 0, {kAtCwd, 0, 0}, "/w/p/old");
  b.add(1, 1, SYS_rmdir, 0, {}, "/w/p/empty");
  b.add(1, 1, SYS_openat, 5, {kAtCwd, 0, O_RDONLY | O_DIRECTORY}, "/w/p/src");
  b.add(1, 1, SYS_getdents64, 120, {5, 0, 32768});
  b.add(1, 1, SYS_getdents64, 0, {5, 0, 32768});
  b.add(1, 1, SYS_fchdir, 0, {5});
  b.add(1, 1, SYS_close, 0, {5});
  b.add(1, 1, SYS_pipe2, 0, {3 | (4ull << 32), O_CLOEXEC});
  b.add(1, 1, SYS_clone, 2, {SIGCHLD});
  b.add(1, 1, SYS_clone, 3, {kThreadFlags});
  b.add(2, 2, kEvProcExec, 0, {}, "/usr/bin/cc", std::string("cc\0-c\0a.c", 9), 0);
  b.add(2, 2, SYS_newfstatat, 0, {kAtCwd, 0, 0, 0}, "/w/p/src");
  b.add(2, 2, SYS_chdir, 0, {}, "/w/p/out");
  b.add(2, 2, SYS_openat, 5, {kAtCwd, 0, O_WRONLY | O_CREAT | O_EXCL, 0600}, "/tmp/cc-tmp.s");
  b.add(2, 2, SYS_write, 64, {5, 0, 64});
  b.add(2, 2, SYS_close, 0, {5});
  b.add(2, 2, SYS_renameat2, 0, {kAtCwd, 0, kAtCwd, 0, 0}, "/tmp/cc-tmp.s", "/w/p/out/b.s");
  b.add(2, 2, SYS_write, 8, {4, 0, 8});
  b.add(2, 2, kEvProcExit, 0, {0}, "", "", 0);
  b.add(1, 3, SYS_access, 0, {0, R_OK}, "/w/p/src/b.c");
  b.add(1, 3, SYS_statx, 0, {kAtCwd, 0, 0, 0x7ff, 0}, "/w/p/abs");
  b.add(1, 1, SYS_read, 8, {3, 0, 8});
  b.add(1, 1, SYS_wait4, 2, {static_cast<uint64_t>(-1), 0, 0, 0});
  b.add(1, 1, SYS_utimensat, 0, {kAtCwd, 0, 0, 0}, "/w/p/out/b.o");
  b.add(1, 1, SYS_fchmodat, 0, {kAtCwd, 0, 0755}, "/w/p/out/b.o");
  b.add(1, 1, SYS_truncate, 0, {0, 10}, "/w/p/hard");
  b.add(1, 1, SYS_exit_group, 0, {0});
  return b.d;
}

// The container's own synthetic build (npm-like stats, reads, scans, writes).
Decoded build_like_trace() {
  Builder b;
  b.d.header.root = "/home/dev/project";
  b.pre("/home/dev/project", PrestateKind::kDir);
  b.pre("/home/dev/project/node_modules", PrestateKind::kDir);
  BuildLikeStream gen(40, 7);
  std::vector<Event> batch;
  while (b.d.events.size() < 120) {
    batch.clear();
    gen.step(batch);
    for (const auto& p : gen.new_paths()) b.s(p);
    b.d.events.insert(b.d.events.end(), batch.begin(), batch.end());
  }
  return b.d;
}

// --- the work directory ------------------------------------------------------

// Removes `name` under `dirfd` whatever the replay left (modes included).
void remove_tree(int dirfd, const char* name) {
  if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT) return;
  fchmodat(dirfd, name, 0700, 0);
  int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    if (DIR* dp = fdopendir(fd)) {
      while (dirent* de = readdir(dp)) {
        std::string n = de->d_name;
        if (n != "." && n != "..") remove_tree(::dirfd(dp), de->d_name);
      }
      closedir(dp);
    } else {
      close(fd);
    }
  }
  unlinkat(dirfd, name, AT_REMOVEDIR);
}

std::string sentinel_state(const std::string& dir) {
  std::string out;
  for (const char* n : {"keep.txt", "sub", "sub/x"}) {
    struct stat st;
    std::string p = dir + "/" + n;
    if (lstat(p.c_str(), &st) != 0) return "missing " + p;
    out +=
        std::to_string(st.st_mode) + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_nsec) + ";";
  }
  return out;
}
std::string g_sentinel_state;

void spit(const std::string& p, const std::string& text) {
  FILE* f = std::fopen(p.c_str(), "w");
  if (!f) std::abort();
  std::fputs(text.c_str(), f);
  std::fclose(f);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // No size in a trace may fill a disk (see the header comment).
  signal(SIGXFSZ, SIG_IGN);
  struct rlimit lim = {kFileSizeLimit, kFileSizeLimit};
  setrlimit(RLIMIT_FSIZE, &lim);
  if (const char* w = std::getenv("FSR_FUZZ_WORK")) {
    g_work = w;
  } else {
    char tpl[] = "/tmp/fsreplay-fuzz-replay-XXXXXX";
    if (!mkdtemp(tpl)) std::abort();
    g_work = tpl;
  }
  g_work += "/run-" + std::to_string(getpid());
  mkdir(g_work.c_str(), 0755);
  mkdir((g_work + "/sentinel").c_str(), 0755);
  mkdir((g_work + "/sentinel/sub").c_str(), 0755);
  spit(g_work + "/sentinel/keep.txt", "precious");
  spit(g_work + "/sentinel/sub/x", "also precious");
  g_sentinel_state = sentinel_state(g_work + "/sentinel");
  int i = 0;
  for (const Decoded& b : {tiny_trace(), rich_trace(), build_like_trace()}) {
    std::string p = g_work + "/base" + std::to_string(i++) + ".trace";
    if (!write_trace(b, p, 16)) {
      std::fprintf(stderr, "replay_fuzz: cannot write base trace %s\n", p.c_str());
      std::abort();
    }
    g_bases.push_back(decode(p));
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  signal(SIGXFSZ, SIG_IGN);  // (see the header comment)
  FuzzedDataProvider in(data, size);
  Stages st;
  Decoded d = edit_program(in, g_bases, st);
  const std::string trace = g_work + "/t.trace", result = g_work + "/t.result";
  const std::string target = g_work + "/target", scratch = g_work + "/scratch";
  if (!write_trace(d, trace, st.chunk_events)) return 0;  // e.g. a string the writer refuses: not a trace

  // inspect
  if (auto s = summarise(trace)) {
    (void)summary_to_text(*s);
    (void)summary_to_json(*s);
  }
  // dump (events, then the prestate)
  if (auto r = TraceReader::open(trace)) {
    TraceReader& rd = **r;
    std::vector<Event> ev;
    while (true) {
      auto more = rd.next(ev);
      if (!more || !*more) break;
      for (const Event& e : ev) {
        (void)format_event(e, rd, false);
        (void)format_event(e, rd, true);
      }
    }
    if (auto pre = rd.prestate())
      for (const auto& p : *pre) (void)format_prestate(p, true), (void)format_prestate(p, false);
  }
  // prepare, then replay (afap) on the prepared tree
  mkdir(target.c_str(), 0755);
  mkdir(scratch.c_str(), 0755);
  ReplayOptions o;
  o.target = target;
  o.scratch = scratch;
  o.timing = TimingMode::kAfap;
  o.progress = false;
  o.stall_warn_s = 0;
  o.window = 1024;
  o.output = result;
  (void)run_prepare(trace, o);
  o.prepare = st.prepare_again;
  if (auto r = run_replay(trace, o)) {
    if (auto s = summarise(result)) (void)summary_to_text(*s);
  }
  // predict with a shipped profile
  if (st.predict) {
    PredictOptions po;
    po.profiles = {FSR_FUZZ_PROFILE};
    po.stream.window = 1024;
    if (auto p = run_predict(trace, po)) {
      (void)render_prediction(*p, OutputFormat::kText, po.report);
      (void)render_prediction(*p, OutputFormat::kJson, po.report);
    }
  }

  // Everything but the bases and the sentinel goes (results, partial results).
  int work = open(g_work.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (DIR* dp = work >= 0 ? fdopendir(dup(work)) : nullptr) {
    std::vector<std::string> names;
    while (dirent* de = readdir(dp)) names.emplace_back(de->d_name);
    closedir(dp);
    for (const std::string& n : names)
      if (n != "." && n != ".." && n != "sentinel" && n.rfind("base", 0) != 0) remove_tree(work, n.c_str());
  }
  if (work >= 0) close(work);
  if (sentinel_state(g_work + "/sentinel") != g_sentinel_state) {
    std::fprintf(stderr, "replay_fuzz: the sentinel tree beside target and scratch changed: a replay escaped\n");
    std::abort();
  }
  return 0;
}

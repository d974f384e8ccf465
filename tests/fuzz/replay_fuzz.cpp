// libFuzzer target past the checksums: the input is not a file but a small
// program of edits (edit_program below) applied to a decoded, valid trace --
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

constexpr uint64_t kMaxFileSize = 4ull << 20;   // prestate and inode sizes (see above)
constexpr rlim_t kFileSizeLimit = 16ull << 20;  // any one file this process writes
constexpr size_t kMaxEdits = 48;
constexpr size_t kMaxEvents = 600;
constexpr size_t kMaxPrestate = 200;

// A trace, decoded: what the edits act on.
struct Decoded {
  TraceHeader header;
  std::vector<PrestateEntry> prestate;
  std::vector<Event> events;
  std::vector<std::string> strs{""};  // StrId -> text; 0 = none
  TraceFooter footer;
};

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

bool write_trace(const Decoded& d, const std::string& path, uint32_t chunk_events) {
  auto w = TraceWriter::create(path, d.header, {.chunk_events = chunk_events});
  if (!w) return false;
  TraceWriter& wr = **w;
  // add_string keeps duplicates (two ids, one text) as the recorder's decoder
  // may; an empty text has no id, so ids are mapped.
  std::vector<StrId> ids(d.strs.size(), kNoStr);
  for (size_t i = 1; i < d.strs.size(); ++i) ids[i] = wr.add_string(d.strs[i]);
  for (const auto& p : d.prestate)
    if (!wr.add_prestate(p)) return false;
  for (Event e : d.events) {
    for (auto& p : e.path) p = p < ids.size() ? ids[p] : p;  // an id past the table stays one
    if (!wr.append(e)) return false;
  }
  return static_cast<bool>(wr.finish(d.footer));
}

// The base as the edits see it: written and read back, as a recording would be.
Decoded decode(const std::string& path) {
  Decoded d;
  auto r = TraceReader::open(path);
  if (!r) {
    std::fprintf(stderr, "replay_fuzz: cannot read base %s: %s\n", path.c_str(), r.message().c_str());
    std::abort();
  }
  TraceReader& rd = **r;
  d.header = rd.header();
  d.prestate = rd.prestate().value();
  std::vector<Event> chunk;
  while (rd.next(chunk).value()) d.events.insert(d.events.end(), chunk.begin(), chunk.end());
  d.strs.clear();
  for (size_t i = 0; i < rd.string_count(); ++i) d.strs.emplace_back(rd.str(static_cast<StrId>(i)));
  if (d.strs.empty()) d.strs.emplace_back();
  if (rd.footer()) d.footer = *rd.footer();
  return d;
}

// --- the edits ---------------------------------------------------------------

uint64_t interesting(FuzzedDataProvider& in) {
  static const uint64_t kValues[] = {
      0, 1, 2, 3, 4, 7, 255, 4096, 65536, 1u << 20,
      static_cast<uint64_t>(-1), static_cast<uint64_t>(-2), static_cast<uint64_t>(-9), static_cast<uint64_t>(-100),
      static_cast<uint64_t>(-4095), static_cast<uint64_t>(-4096),
      0x7fffffffull, 0x80000000ull, 0xffffffffull, 0x100000000ull,
      1ull << 40, 1ull << 62, (1ull << 63) - 1, 1ull << 63, (1ull << 63) + 1, ~0ull, ~0ull - 1,
      1'000'000'000ull, 1'000'000'000'000'000'000ull, 0x7f1234560000ull};
  return kValues[in.ConsumeIntegralInRange<size_t>(0, std::size(kValues) - 1)];
}

uint64_t value(FuzzedDataProvider& in, uint64_t current) {
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: return interesting(in);
    case 1: return in.ConsumeIntegralInRange<uint64_t>(0, 300);
    case 2: return current + static_cast<uint64_t>(in.ConsumeIntegralInRange<int64_t>(-64, 64));
    default: return in.ConsumeIntegral<uint64_t>();
  }
}

const uint16_t kCalls[] = {
    SYS_openat, SYS_open, SYS_creat, SYS_read, SYS_pread64, SYS_readv, SYS_write, SYS_pwrite64, SYS_writev,
    SYS_close, SYS_fstat, SYS_newfstatat, SYS_stat, SYS_lstat, SYS_statx, SYS_access, SYS_faccessat,
    SYS_mkdir, SYS_mkdirat, SYS_rmdir, SYS_unlink, SYS_unlinkat, SYS_rename, SYS_renameat, SYS_renameat2,
    SYS_link, SYS_linkat, SYS_symlink, SYS_symlinkat, SYS_readlink, SYS_readlinkat, SYS_getdents64,
    SYS_chdir, SYS_fchdir, SYS_getcwd, SYS_lseek, SYS_ftruncate, SYS_truncate, SYS_fsync, SYS_fdatasync,
    SYS_fallocate, SYS_dup, SYS_dup2, SYS_dup3, SYS_fcntl, SYS_pipe2, SYS_clone, SYS_clone3, SYS_fork,
    SYS_vfork, SYS_execve, SYS_execveat, SYS_wait4, SYS_exit, SYS_exit_group, SYS_mmap, SYS_munmap,
    SYS_mknodat, SYS_utimensat, SYS_fchmodat, SYS_chmod, SYS_fchmod, SYS_chown, SYS_fchownat, SYS_flock,
    SYS_copy_file_range, SYS_sendfile, SYS_futex, SYS_getxattr, SYS_setxattr, SYS_listxattr,
    SYS_removexattr, SYS_openat2, SYS_statfs, SYS_sync_file_range, SYS_socket, SYS_ioctl,
    kEvProcExec, kEvProcExit, kEvPageFault, kEvProcFork};

uint16_t any_call(FuzzedDataProvider& in) {
  if (in.ConsumeBool()) return kCalls[in.ConsumeIntegralInRange<size_t>(0, std::size(kCalls) - 1)];
  return in.ConsumeIntegral<uint16_t>();
}

void edit_string(FuzzedDataProvider& in, std::string& s, const std::string& root) {
  static const char* const kPaths[] = {
      "/", "", ".", "..", "/..", "/../..", "/w/p/..", "/w/p/../../etc/passwd", "/w/p/src/../../..",
      "/w/p//src///a.c", "/w/p/src/./a.c", "relative/x", "/proc/self/fd/3", "/proc/self/cwd", "/dev/null",
      "/dev/tty", "/dev/zero", "/sys/kernel", "/tmp", "/tmp/cc-tmp.s", "/w/p/link/", "/w/p/link/x",
      "/w/p/abs/a.c", "/w/p/src/a.c/x", "/w/p/out", "/w/p/out/b.o", "/home/dev/project",
      "/home/dev/project/node_modules/pkg1", "pipe:[1234]", "socket:[9]", "/w/p/\n\t\x1b[31m", "/w/p/\xff\xfe"};
  switch (in.ConsumeIntegralInRange<int>(0, 9)) {
    case 0: s = kPaths[in.ConsumeIntegralInRange<size_t>(0, std::size(kPaths) - 1)]; break;
    case 1: s += "/.."; break;
    case 2: s += in.ConsumeBool() ? "/" : "/x"; break;
    case 3: {  // drop the last component
      auto at = s.rfind('/');
      s.resize(at == std::string::npos ? 0 : at);
      break;
    }
    case 4: s = root + "/" + in.ConsumeRandomLengthString(64); break;
    case 5: {  // long: past PATH_MAX, or deep
      std::string part = in.ConsumeBool() ? std::string(255, 'n') : std::string("d");
      size_t n = in.ConsumeIntegralInRange<size_t>(1, 300);
      std::string out = root;
      for (size_t i = 0; i < n && out.size() < 9000; ++i) out += "/" + part;
      s = out;
      break;
    }
    case 6: s = in.ConsumeRandomLengthString(300); break;
    case 7: s.insert(0, in.ConsumeBool() ? "/w/p/../" : "../"); break;
    case 8: if (!s.empty()) s[in.ConsumeIntegralInRange<size_t>(0, s.size() - 1)] = in.ConsumeIntegral<char>(); break;
    default: s = root; break;
  }
}

void edit_event_field(FuzzedDataProvider& in, Event& e, size_t strings) {
  int f = in.ConsumeIntegralInRange<int>(0, 18);
  auto u32 = [&](uint32_t cur) { return static_cast<uint32_t>(value(in, cur)); };
  switch (f) {
    case 0: e.ts = value(in, e.ts); break;
    case 1: e.dur = value(in, e.dur); break;
    case 2: e.ret = static_cast<int64_t>(value(in, static_cast<uint64_t>(e.ret))); break;
    case 3: case 4: case 5: case 6: case 7: case 8: e.args[f - 3] = value(in, e.args[f - 3]); break;
    case 9: e.dev = value(in, e.dev); break;
    case 10: e.ino = value(in, e.ino); break;
    case 11: e.size = value(in, e.size); break;
    case 12: e.mode = in.ConsumeBool() ? u32(e.mode)
                                       : (in.PickValueInArray({S_IFREG, S_IFDIR, S_IFLNK, S_IFCHR, S_IFIFO, S_IFSOCK, 0}) |
                                          (e.mode & 07777));
      break;
    case 13: e.pid = in.ConsumeBool() ? in.ConsumeIntegralInRange<uint32_t>(0, 6) : u32(e.pid); break;
    case 14: e.tid = in.ConsumeBool() ? in.ConsumeIntegralInRange<uint32_t>(0, 6) : u32(e.tid); break;
    case 15: case 16: {  // a path id: another string, none, or one just past the table
      // (the reader refuses the chunk; ids far past it are no test of the
      // reader, and the writer, which trusts its caller's ids, sizes a table by them)
      const int k = f - 15;
      e.path[k] = in.ConsumeIntegralInRange<StrId>(0, static_cast<StrId>(strings + 2));
      break;
    }
    case 17: e.nr = any_call(in); break;
    default: e.flags = in.ConsumeBool() ? static_cast<uint16_t>(e.flags ^ (1u << in.ConsumeIntegralInRange<int>(0, 15)))
                                        : in.ConsumeIntegral<uint16_t>();
      break;
  }
}

void edit_prestate(FuzzedDataProvider& in, PrestateEntry& p, const std::string& root) {
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: edit_string(in, p.path, root); break;
    case 1: p.kind = static_cast<PrestateKind>(in.ConsumeIntegralInRange<int>(0, 5)); break;
    case 2: p.mode = static_cast<uint32_t>(value(in, p.mode)); break;
    case 3: p.size = value(in, p.size); break;
    case 4: edit_string(in, p.target, root); break;
    case 5: p.ino = in.ConsumeBool() ? in.ConsumeIntegralInRange<uint64_t>(100, 110) : value(in, p.ino); break;
    case 6: p.dev = value(in, p.dev); break;
    default: p.nlink = static_cast<uint32_t>(value(in, p.nlink)); break;
  }
}

void edit_header(FuzzedDataProvider& in, Decoded& d) {
  TraceHeader& h = d.header;
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0: edit_string(in, h.root, h.root); break;
    case 1: edit_string(in, h.initial.cwd, h.root); break;
    case 2: h.initial.pid = static_cast<uint32_t>(value(in, h.initial.pid)); break;
    case 3: {
      FdEntry f;
      f.fd = static_cast<int32_t>(value(in, 3));
      edit_string(in, f.path, h.root);
      f.flags = static_cast<uint32_t>(value(in, O_RDWR));
      f.pos = value(in, 0);
      h.initial.fds.push_back(f);
      break;
    }
    case 4: h.initial.umask = static_cast<uint32_t>(value(in, 022)); break;
    default: d.footer.end_ns = value(in, d.footer.end_ns); break;
  }
}

// The input, as a program: a base, a chunk size, then edits until it ends.
struct Stages {
  uint32_t chunk_events = 16;  // the writer's chunk size
  bool prepare_again = false;  // replay prepares the prepared tree again (else verifies it)
  bool predict = true;
};

Decoded edit_program(FuzzedDataProvider& in, Stages& st) {
  Decoded d = g_bases[in.ConsumeIntegralInRange<size_t>(0, g_bases.size() - 1)];
  st.chunk_events = in.ConsumeIntegralInRange<uint32_t>(1, 64);
  st.prepare_again = in.ConsumeBool();
  // predict costs more than the rest together (its report's fixed-size
  // windows, ~0.4 s an input under ASan): one input in three runs it.
  st.predict = in.ConsumeIntegralInRange<int>(0, 2) == 0;
  const std::string root = d.header.root;
  for (size_t n = 0; n < kMaxEdits && in.remaining_bytes() > 0; ++n) {
    auto pick_event = [&]() -> Event* {
      return d.events.empty() ? nullptr : &d.events[in.ConsumeIntegralInRange<size_t>(0, d.events.size() - 1)];
    };
    switch (in.ConsumeIntegralInRange<int>(0, 11)) {
      case 0: case 1: case 2:
        if (Event* e = pick_event()) edit_event_field(in, *e, d.strs.size());
        break;
      case 3: case 4:
        if (!d.prestate.empty())
          edit_prestate(in, d.prestate[in.ConsumeIntegralInRange<size_t>(0, d.prestate.size() - 1)], root);
        break;
      case 5: {
        std::string& s = d.strs[in.ConsumeIntegralInRange<size_t>(0, d.strs.size() - 1)];
        edit_string(in, s, root);
        break;
      }
      case 6:  // a new string for some event's path
        if (Event* e = pick_event()) {
          std::string s = d.strs[in.ConsumeIntegralInRange<size_t>(0, d.strs.size() - 1)];
          edit_string(in, s, root);
          d.strs.push_back(s);
          e->path[in.ConsumeIntegralInRange<int>(0, 1)] = static_cast<StrId>(d.strs.size() - 1);
        }
        break;
      case 7:  // an event copied elsewhere (a repeat, a call out of order)
        if (Event* e = pick_event(); e && d.events.size() < kMaxEvents) {
          Event copy = *e;
          if (in.ConsumeBool()) edit_event_field(in, copy, d.strs.size());
          d.events.insert(d.events.begin() + static_cast<long>(in.ConsumeIntegralInRange<size_t>(0, d.events.size())), copy);
        }
        break;
      case 8:  // an event removed, or two swapped
        if (!d.events.empty()) {
          size_t i = in.ConsumeIntegralInRange<size_t>(0, d.events.size() - 1);
          if (in.ConsumeBool()) d.events.erase(d.events.begin() + static_cast<long>(i));
          else std::swap(d.events[i], d.events[in.ConsumeIntegralInRange<size_t>(0, d.events.size() - 1)]);
        }
        break;
      case 9:  // a prestate entry copied (then edited) or removed
        if (!d.prestate.empty()) {
          size_t i = in.ConsumeIntegralInRange<size_t>(0, d.prestate.size() - 1);
          if (in.ConsumeBool() && d.prestate.size() < kMaxPrestate) {
            PrestateEntry copy = d.prestate[i];
            edit_prestate(in, copy, root);
            d.prestate.push_back(copy);
          } else {
            d.prestate.erase(d.prestate.begin() + static_cast<long>(i));
          }
        }
        break;
      case 10: edit_header(in, d); break;
      default:  // one field of every event at once (all at one time, all one thread)
        if (!d.events.empty()) {
          Event proto = d.events[0];
          edit_event_field(in, proto, d.strs.size());
          for (Event& e : d.events) {
            e.ts = proto.ts != d.events[0].ts ? proto.ts : e.ts;
            e.dur = proto.dur != d.events[0].dur ? proto.dur : e.dur;
            e.pid = proto.pid != d.events[0].pid ? proto.pid : e.pid;
            e.tid = proto.tid != d.events[0].tid ? proto.tid : e.tid;
            e.flags = proto.flags != d.events[0].flags ? proto.flags : e.flags;
          }
        }
        break;
    }
  }
  for (auto& p : d.prestate) p.size = std::min(p.size, kMaxFileSize);
  for (auto& e : d.events) e.size = std::min(e.size, kMaxFileSize);
  return d;
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
    out += std::to_string(st.st_mode) + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_nsec) + ";";
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
  Decoded d = edit_program(in, st);
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

// SPDX-License-Identifier: Apache-2.0
#include "tests/fuzz/replay_fuzz_edits.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>

#include "traces/syscalls.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace fsr::fuzz {
namespace {

constexpr size_t kMaxEdits = 48;
constexpr size_t kMaxEvents = 600;
constexpr size_t kMaxPrestate = 200;

uint64_t interesting(FuzzedDataProvider& in) {
  static const uint64_t kValues[] = {0,
                                     1,
                                     2,
                                     3,
                                     4,
                                     7,
                                     255,
                                     4096,
                                     65536,
                                     1u << 20,
                                     static_cast<uint64_t>(-1),
                                     static_cast<uint64_t>(-2),
                                     static_cast<uint64_t>(-9),
                                     static_cast<uint64_t>(-100),
                                     static_cast<uint64_t>(-4095),
                                     static_cast<uint64_t>(-4096),
                                     0x7fffffffull,
                                     0x80000000ull,
                                     0xffffffffull,
                                     0x100000000ull,
                                     1ull << 40,
                                     1ull << 62,
                                     (1ull << 63) - 1,
                                     1ull << 63,
                                     (1ull << 63) + 1,
                                     ~0ull,
                                     ~0ull - 1,
                                     1'000'000'000ull,
                                     1'000'000'000'000'000'000ull,
                                     0x7f1234560000ull};
  return kValues[in.ConsumeIntegralInRange<size_t>(0, std::size(kValues) - 1)];
}

uint64_t value(FuzzedDataProvider& in, uint64_t current) {
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      return interesting(in);
    case 1:
      return in.ConsumeIntegralInRange<uint64_t>(0, 300);
    case 2:
      return current + static_cast<uint64_t>(in.ConsumeIntegralInRange<int64_t>(-64, 64));
    default:
      return in.ConsumeIntegral<uint64_t>();
  }
}

const uint16_t kCalls[] = {
    SYS_openat,     SYS_open,       SYS_creat,           SYS_read,      SYS_pread64,   SYS_readv,
    SYS_write,      SYS_pwrite64,   SYS_writev,          SYS_close,     SYS_fstat,     SYS_newfstatat,
    SYS_stat,       SYS_lstat,      SYS_statx,           SYS_access,    SYS_faccessat, SYS_mkdir,
    SYS_mkdirat,    SYS_rmdir,      SYS_unlink,          SYS_unlinkat,  SYS_rename,    SYS_renameat,
    SYS_renameat2,  SYS_link,       SYS_linkat,          SYS_symlink,   SYS_symlinkat, SYS_readlink,
    SYS_readlinkat, SYS_getdents64, SYS_chdir,           SYS_fchdir,    SYS_getcwd,    SYS_lseek,
    SYS_ftruncate,  SYS_truncate,   SYS_fsync,           SYS_fdatasync, SYS_fallocate, SYS_dup,
    SYS_dup2,       SYS_dup3,       SYS_fcntl,           SYS_pipe2,     SYS_clone,     SYS_clone3,
    SYS_fork,       SYS_vfork,      SYS_execve,          SYS_execveat,  SYS_wait4,     SYS_exit,
    SYS_exit_group, SYS_mmap,       SYS_munmap,          SYS_mknodat,   SYS_utimensat, SYS_fchmodat,
    SYS_chmod,      SYS_fchmod,     SYS_chown,           SYS_fchownat,  SYS_flock,     SYS_copy_file_range,
    SYS_sendfile,   SYS_futex,      SYS_getxattr,        SYS_setxattr,  SYS_listxattr, SYS_removexattr,
    SYS_openat2,    SYS_statfs,     SYS_sync_file_range, SYS_socket,    SYS_ioctl,     kEvProcExec,
    kEvProcExit,    kEvPageFault,   kEvProcFork};

uint16_t any_call(FuzzedDataProvider& in) {
  if (in.ConsumeBool()) return kCalls[in.ConsumeIntegralInRange<size_t>(0, std::size(kCalls) - 1)];
  return in.ConsumeIntegral<uint16_t>();
}

void edit_string(FuzzedDataProvider& in, std::string& s, const std::string& root) {
  static const char* const kPaths[] = {"/",
                                       "",
                                       ".",
                                       "..",
                                       "/..",
                                       "/../..",
                                       "/w/p/..",
                                       "/w/p/../../etc/passwd",
                                       "/w/p/src/../../..",
                                       "/w/p//src///a.c",
                                       "/w/p/src/./a.c",
                                       "relative/x",
                                       "/proc/self/fd/3",
                                       "/proc/self/cwd",
                                       "/dev/null",
                                       "/dev/tty",
                                       "/dev/zero",
                                       "/sys/kernel",
                                       "/tmp",
                                       "/tmp/cc-tmp.s",
                                       "/w/p/link/",
                                       "/w/p/link/x",
                                       "/w/p/abs/a.c",
                                       "/w/p/src/a.c/x",
                                       "/w/p/out",
                                       "/w/p/out/b.o",
                                       "/home/dev/project",
                                       "/home/dev/project/node_modules/pkg1",
                                       "pipe:[1234]",
                                       "socket:[9]",
                                       "/w/p/\n\t\x1b[31m",
                                       "/w/p/\xff\xfe"};
  switch (in.ConsumeIntegralInRange<int>(0, 9)) {
    case 0:
      s = kPaths[in.ConsumeIntegralInRange<size_t>(0, std::size(kPaths) - 1)];
      break;
    case 1:
      s += "/..";
      break;
    case 2:
      s += in.ConsumeBool() ? "/" : "/x";
      break;
    case 3: {  // drop the last component
      auto at = s.rfind('/');
      s.resize(at == std::string::npos ? 0 : at);
      break;
    }
    case 4:
      s = root + "/" + in.ConsumeRandomLengthString(64);
      break;
    case 5: {  // long: past PATH_MAX, or deep
      std::string part = in.ConsumeBool() ? std::string(255, 'n') : std::string("d");
      size_t n = in.ConsumeIntegralInRange<size_t>(1, 300);
      std::string out = root;
      for (size_t i = 0; i < n && out.size() < 9000; ++i) out += "/" + part;
      s = out;
      break;
    }
    case 6:
      s = in.ConsumeRandomLengthString(300);
      break;
    case 7:
      s.insert(0, in.ConsumeBool() ? "/w/p/../" : "../");
      break;
    case 8:
      if (!s.empty()) s[in.ConsumeIntegralInRange<size_t>(0, s.size() - 1)] = in.ConsumeIntegral<char>();
      break;
    default:
      s = root;
      break;
  }
}

void edit_event_field(FuzzedDataProvider& in, Event& e, size_t strings) {
  int f = in.ConsumeIntegralInRange<int>(0, 18);
  auto u32 = [&](uint32_t cur) { return static_cast<uint32_t>(value(in, cur)); };
  // The case labels stay packed, one line per family of calls.
  // clang-format off
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
  // clang-format on
}

void edit_prestate(FuzzedDataProvider& in, PrestateEntry& p, const std::string& root) {
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
      edit_string(in, p.path, root);
      break;
    case 1:
      p.kind = static_cast<PrestateKind>(in.ConsumeIntegralInRange<int>(0, 5));
      break;
    case 2:
      p.mode = static_cast<uint32_t>(value(in, p.mode));
      break;
    case 3:
      p.size = value(in, p.size);
      break;
    case 4:
      edit_string(in, p.target, root);
      break;
    case 5:
      p.ino = in.ConsumeBool() ? in.ConsumeIntegralInRange<uint64_t>(100, 110) : value(in, p.ino);
      break;
    case 6:
      p.dev = value(in, p.dev);
      break;
    default:
      p.nlink = static_cast<uint32_t>(value(in, p.nlink));
      break;
  }
}

void edit_header(FuzzedDataProvider& in, Decoded& d) {
  TraceHeader& h = d.header;
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0:
      edit_string(in, h.root, h.root);
      break;
    case 1:
      edit_string(in, h.initial.cwd, h.root);
      break;
    case 2:
      h.initial.pid = static_cast<uint32_t>(value(in, h.initial.pid));
      break;
    case 3: {
      FdEntry f;
      f.fd = static_cast<int32_t>(value(in, 3));
      edit_string(in, f.path, h.root);
      f.flags = static_cast<uint32_t>(value(in, O_RDWR));
      f.pos = value(in, 0);
      h.initial.fds.push_back(f);
      break;
    }
    case 4:
      h.initial.umask = static_cast<uint32_t>(value(in, 022));
      break;
    default:
      d.footer.end_ns = value(in, d.footer.end_ns);
      break;
  }
}

}  // namespace

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

Decoded edit_program(FuzzedDataProvider& in, const std::vector<Decoded>& bases, Stages& st) {
  Decoded d = bases[in.ConsumeIntegralInRange<size_t>(0, bases.size() - 1)];
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
    // The case labels stay packed, one line per family of calls.
    // clang-format off
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
    // clang-format on
  }
  for (auto& p : d.prestate) p.size = std::min(p.size, kMaxFileSize);
  for (auto& e : d.events) e.size = std::min(e.size, kMaxFileSize);
  return d;
}

}  // namespace fsr::fuzz

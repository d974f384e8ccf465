// SPDX-License-Identifier: Apache-2.0
// record_for_event against EventDecoder: the record rebuilt from a decoded
// event decodes, in a decoder in the same state, to that event again, for
// every syscall of the table and through a process's life (fork, exec, fds,
// faults, cwd, exit). That is what lets the drain benchmark
// (dev/bench/drain_bench.cpp) feed recorded traces to the decoder.
#include "recorder/core/record_builder.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "recorder/core/event_decoder.h"
#include "recorder/core/syscall_arity.h"
#include "tests/recorder/record_bytes.h"
#include "traces/syscalls.h"

namespace fsr {
namespace {

constexpr uint64_t kMonoStart = 1'000'000;

// A decoder with its own string table, seeded like the recorder seeds the
// first process: cwd /work, fd 3 open on /work/dir.
struct Decoding {
  std::vector<std::string> strings;
  EventDecoder dec{kMonoStart, [this](std::string_view s) {
                     strings.emplace_back(s);
                     return static_cast<StrId>(strings.size());
                   }};
  Decoding() {
    ProcessState st;
    st.pid = 100;
    st.cwd = "/work";
    st.fds.push_back({3, "/work/dir", O_RDONLY, 0});
    dec.seed_process(st);
  }
  std::string_view str(StrId id) const { return id ? std::string_view(strings[id - 1]) : std::string_view(); }
  // Every field, paths as text (the flags as a rebuilt record keeps them).
  std::string describe(const Event& e) const {
    std::ostringstream o;
    o << syscall_name(e.nr) << " ts=" << e.ts << " dur=" << e.dur << " ret=" << e.ret << " pid=" << e.pid
      << " tid=" << e.tid << " flags=" << rebuilt_flags(e.flags) << " args=";
    for (uint64_t a : e.args) o << a << ",";
    o << " inode=" << e.dev << ":" << e.ino << ":" << e.size << ":" << e.mode << " p0=" << str(e.path[0])
      << " p1=" << str(e.path[1]);
    return o.str();
  }
};

// The path argument "" (AT_EMPTY_PATH): the kernel copies its NUL.
test::RawRecord empty_path(test::RawRecord r) {
  r.path0.assign(1, '\0');
  return r;
}

// Decodes `raws` in order; rebuilds a record from each event and decodes it
// in a second decoder; expects the same events.
void expect_round_trip(const std::vector<test::RawRecord>& raws) {
  Decoding first, second;
  std::vector<char> bytes, rebuilt;
  for (const test::RawRecord& r : raws) {
    bytes = r.bytes();
    Event e1, e2;
    ASSERT_TRUE(first.dec.decode(bytes.data(), bytes.size(), e1)) << syscall_name(r.hdr.nr);
    // A path passed relative (resolved against the cwd or a known dirfd) is
    // marked so: the replay walks it from there (request fidelity).
    const SyscallInfo* si = syscall_info(e1.nr);
    const std::string_view passed[2] = {r.path0, r.path1};
    for (int k = 0; k < 2 && si && r.hdr.nr == e1.nr; ++k) {
      const bool relative = si->path[k] >= 0 && !(si->flags & (k == 0 ? kSfLiteralPath0 : 0)) && !passed[k].empty() &&
                            passed[k][0] != '/' && passed[k][0] != '\0' && e1.path[k] != kNoStr &&
                            !(e1.flags & kEfPathUnresolved);
      EXPECT_EQ((e1.flags & event_relative_flag(k)) != 0, relative) << first.describe(e1) << " path " << k;
    }
    ASSERT_TRUE(record_for_event(e1, kMonoStart, first.str(e1.path[0]), first.str(e1.path[1]), rebuilt))
        << first.describe(e1);
    ASSERT_TRUE(second.dec.decode(rebuilt.data(), rebuilt.size(), e2)) << first.describe(e1);
    EXPECT_EQ(second.describe(e2), first.describe(e1));
  }
}

TEST(RecordBuilder, EveryTableSyscallDecodesToTheSameEventAgain) {
  for (const SyscallInfo& s : syscall_table()) {
    if (s.nr >= FSR_MAX_NR) continue;  // pseudo events: see the process test
    // fd operands and dirfds name the seeded fd 3; paths are relative to it
    // or to the cwd; calls that return an fd return 7.
    std::vector<uint64_t> args(6, 3);
    for (int i : {0, 1})
      if (s.path[i] >= 0 && s.dirfd[i] < 0) args[s.path[i]] = 0;
    const int64_t ret = (s.flags & kSfReturnsFd) ? 7 : 0;
    const bool never_returns = s.nr == SYS_exit || s.nr == SYS_exit_group;
    const bool stats = (s.flags & (kSfStatBuf | kSfStatxBuf)) || (s.flags & kSfReturnsFd);
    test::RawRecord r =
        test::syscall_record(100, 100, s.nr, args, ret, never_returns || s.path[0] < 0 ? "" : "sub/../p0",
                             never_returns || s.path[1] < 0 ? "" : "p1", never_returns ? FSR_RF_UNFINISHED : 0,
                             stats && !never_returns ? fsr_inode{0x803, 77, 4096, 0100644, 0} : fsr_inode{});
    SCOPED_TRACE(s.name);
    expect_round_trip({r});
  }
}

TEST(RecordBuilder, AProcessLifeDecodesToTheSameEventsAgain) {
  const fsr_inode file{0x803, 42, 8192, 0100644, 0};
  const uint64_t cwd = static_cast<uint64_t>(AT_FDCWD);
  expect_round_trip({
      test::process_record(FSR_REC_FORK, 100, 100, {101, 101}),
      test::syscall_record(101, 101, SYS_execve, {}, -2, "/usr/local/bin/x"),
      test::process_record(FSR_REC_EXEC, 101, 101, {101}, "bin/x", std::string("x\0-a\0", 5)),
      test::syscall_record(101, 101, SYS_execve, {}, 0),
      test::syscall_record(101, 101, SYS_openat, {cwd, 0, O_RDONLY | O_CLOEXEC, 0}, 4, "src/a.c", {}, 0, file),
      test::syscall_record(101, 101, SYS_fstat, {4}, 0, {}, {}, 0, file),
      test::syscall_record(101, 101, SYS_read, {4, 0, 4096}, 4096),
      test::syscall_record(101, 101, SYS_mmap, {0, 8192, PROT_READ, MAP_PRIVATE, 4, 0}, 0x7f0000000000, {}, {}, 0,
                           file),
      test::process_record(FSR_REC_FAULT, 101, 101, {4096, 0x7f0000001000, 4}, {}, {}, 0, file),
      test::syscall_record(101, 101, SYS_chdir, {}, 0, "src"),
      test::syscall_record(101, 101, SYS_newfstatat, {cwd, 0, 0, 0}, 0, "a.c", {}, 0, file),
      empty_path(test::syscall_record(101, 101, SYS_newfstatat, {4, 0, 0, AT_EMPTY_PATH}, 0, {}, {}, 0, file)),
      empty_path(test::syscall_record(101, 101, SYS_newfstatat, {99, 0, 0, AT_EMPTY_PATH}, -9)),  // unknown fd
      test::syscall_record(101, 101, SYS_unlinkat, {99, 0, 0}, -9, "lost"),  // unknown dirfd: kept as given
      test::syscall_record(101, 101, SYS_rename, {}, 0, "a.c", "/work/b.c"),
      test::syscall_record(101, 101, SYS_symlink, {}, 0, "../t", "l"),
      test::syscall_record(101, 101, SYS_pipe2, {5 | 6ull << 32, O_CLOEXEC}, 0),
      test::syscall_record(101, 101, SYS_write, {6, 0, 1}, 1, {}, {}, FSR_RF_FD_IS_PIPE),
      test::syscall_record(101, 101, SYS_close, {4}, 0),
      test::process_record(FSR_REC_FORK, 101, 101, {102, 101}, {}, {},
                           FSR_RF_THREAD | FSR_RF_SHARED_FILES | FSR_RF_SHARED_FS),
      test::syscall_record(101, 102, SYS_read, {5, 0, 1}, 0, {}, {}, FSR_RF_FD_IS_PIPE),
      test::syscall_record(101, 102, SYS_exit, {0}, 0, {}, {}, FSR_RF_UNFINISHED),
      test::process_record(FSR_REC_EXIT, 101, 102, {0, 0}),
      test::syscall_record(101, 101, SYS_wait4, {0, 0, 0, 0}, 0, {}, {}, FSR_RF_UNFINISHED),
      test::syscall_record(101, 101, SYS_exit_group, {1}, 0, {}, {}, FSR_RF_UNFINISHED),
      test::process_record(FSR_REC_EXIT, 101, 101, {256, 1}),
  });
}

}  // namespace
}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// EventDecoder on synthetic kernel records: the fd/cwd bookkeeping that the
// live tests cannot observe directly (exec closing close-on-exec fds, fork
// copying the table, chdir/fchdir, unknown dirfds). The compact record
// layout: event_decoder_layout_test.cpp.
#include "recorder/core/event_decoder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "tests/recorder/record_bytes.h"
#include "base/paths.h"
#include "traces/syscalls.h"

namespace fsr {
namespace {

class DecoderTest : public ::testing::Test {
 protected:
  DecoderTest()
      : dec_(1000, [this](std::string_view s) {
          strings_.emplace_back(s);
          return static_cast<StrId>(strings_.size());
        }) {
    // No live lookups: this file system's symlinks are not the test's. The
    // test's own: /lib -> usr/lib (merged /usr).
    dec_.paths() = PathResolver([](const std::string& p, std::string* target) {
      if (p != "/lib") return false;
      *target = "usr/lib";
      return true;
    });
    ProcessState st;
    st.pid = 100;
    st.cwd = "/work";
    dec_.seed_process(st);
  }

  // Feeds a syscall record of task (pid, tid) that carries `args` (all of
  // them: arg_mask covers args.size()) and returns the event.
  Event sys(uint32_t pid, uint16_t nr, std::vector<uint64_t> args, int64_t ret, const char* p0 = nullptr,
            const char* p1 = nullptr, uint16_t kind = FSR_REC_SYSCALL, uint16_t flags = 0,
            const fsr_inode& inode = {}) {
    fsr_rec r{};
    r.ts = 2000;
    r.end = 3000;
    r.ret = ret;
    uint64_t a[6] = {};
    for (size_t i = 0; i < args.size() && i < 6; ++i) a[i] = args[i];
    r.arg_mask = static_cast<uint8_t>((1u << std::min<size_t>(args.size(), 6)) - 1);
    r.pid = pid;
    r.tid = pid;
    r.nr = nr;
    r.kind = static_cast<uint8_t>(kind);
    r.flags = flags;
    std::vector<char> buf =
        test::record_bytes(r, a, inode, p0 ? p0 : "", p1 ? std::string_view(p1, strlen(p1) + 1) : "");
    Event e;
    EXPECT_TRUE(dec_.decode(buf.data(), buf.size(), e));
    return e;
  }
  std::string path(const Event& e, int i) { return e.path[i] ? strings_[e.path[i] - 1] : "<none>"; }

  std::vector<std::string> strings_;
  EventDecoder dec_;
};

// Interning: a path seen again gets its first id, also across the table's
// growth (it starts at 65,536 slots, half of which may be filled).
TEST_F(DecoderTest, PathsKeepTheirIdsAcrossTheInternTablesGrowth) {
  const int n = 40000;
  std::vector<StrId> first(n);
  for (int i = 0; i < n; ++i)
    first[i] = sys(100, SYS_newfstatat, {static_cast<uint64_t>(AT_FDCWD), 0, 0, 0}, 0,
                   ("/work/d" + std::to_string(i % 97) + "/f" + std::to_string(i)).c_str())
                   .path[0];
  const size_t distinct = strings_.size();
  for (int i = n - 1; i >= 0; --i) {
    Event e = sys(100, SYS_newfstatat, {static_cast<uint64_t>(AT_FDCWD), 0, 0, 0}, 0,
                  ("/work/d" + std::to_string(i % 97) + "/f" + std::to_string(i)).c_str());
    ASSERT_EQ(e.path[0], first[i]) << i;
  }
  EXPECT_EQ(strings_.size(), distinct) << "a path seen before was interned again";
  EXPECT_EQ(path(sys(100, SYS_newfstatat, {static_cast<uint64_t>(AT_FDCWD), 0, 0, 0}, 0, "d5/f5"), 0), "/work/d5/f5");
}

TEST_F(DecoderTest, TimesAreRelativeToTraceStart) {
  Event e = sys(100, SYS_close, {9}, -9);
  EXPECT_EQ(e.ts, 1000u);
  EXPECT_EQ(e.dur, 1000u);
}

TEST_F(DecoderTest, CwdRelativeAndChdir) {
  EXPECT_EQ(path(sys(100, SYS_openat, {uint64_t(AT_FDCWD), 0, 0}, 3, "a/../b"), 0), "/work/b");
  sys(100, SYS_chdir, {0}, 0, "sub");
  EXPECT_EQ(path(sys(100, SYS_stat, {0, 0}, 0, "x"), 0), "/work/sub/x");
  sys(100, SYS_openat, {uint64_t(AT_FDCWD), 0, O_DIRECTORY}, 5, "/etc");
  sys(100, SYS_fchdir, {5}, 0);
  EXPECT_EQ(path(sys(100, SYS_access, {0, 0}, 0, "passwd"), 0), "/etc/passwd");
}

// Paths are resolved as the kernel walked them: a symlinked directory in the
// directory part is replaced by its target, so `..` after it goes where the
// kernel went; the last component stays as given.
TEST_F(DecoderTest, PathsThroughSymlinkedDirectoriesArePhysical) {
  const uint64_t cwd = static_cast<uint64_t>(AT_FDCWD);
  EXPECT_EQ(path(sys(100, SYS_openat, {cwd, 0, 0}, 3, "/lib/x86_64-linux-gnu/libc.so.6"), 0),
            "/usr/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_EQ(path(sys(100, SYS_newfstatat, {cwd}, 0, "/lib/x86_64-linux-gnu/../../share/doc"), 0), "/usr/share/doc")
      << "`..` from the link's target, not lexically (which gives /share/doc)";
  EXPECT_EQ(path(sys(100, SYS_lstat, {}, 0, "/lib"), 0), "/lib") << "the last component is kept";
  EXPECT_EQ(path(sys(100, SYS_newfstatat, {cwd}, 0, "/a/./b//c/../d"), 0), "/a/b/d") << "no link: lexical";
  // A directory fd opened through the link is the directory itself.
  fsr_inode dir{};
  dir.mode = 040755;
  sys(100, SYS_openat, {cwd, 0, O_DIRECTORY}, 7, "/lib", nullptr, FSR_REC_SYSCALL, FSR_RF_HAS_INODE, dir);
  EXPECT_EQ(path(sys(100, SYS_newfstatat, {7}, 0, "../bin/ls"), 0), "/usr/bin/ls");
  // So is a cwd.
  sys(100, SYS_chdir, {}, 0, "/lib/x86_64-linux-gnu");
  EXPECT_EQ(path(sys(100, SYS_newfstatat, {cwd}, 0, "../../include/stdio.h"), 0), "/usr/include/stdio.h");
}

TEST_F(DecoderTest, SymlinksTheTraceMakesAndRemovesAreFollowedInOrder) {
  const uint64_t cwd = static_cast<uint64_t>(AT_FDCWD);
  dec_.paths().set_root("/work");
  dec_.paths().add_link("/work/old", "real");  // from the prestate
  EXPECT_EQ(path(sys(100, SYS_newfstatat, {cwd}, 0, "old/../x"), 0), "/work/x");
  EXPECT_EQ(path(sys(100, SYS_newfstatat, {cwd}, 0, "old/f"), 0), "/work/real/f");
  sys(100, SYS_symlink, {}, 0, "/work/deep/er", "/work/ln");  // symlink(target, linkpath)
  EXPECT_EQ(path(sys(100, SYS_newfstatat, {cwd}, 0, "ln/../y"), 0), "/work/deep/y");
  sys(100, SYS_rename, {}, 0, "/work/ln", "/work/ln2");
  EXPECT_EQ(path(sys(100, SYS_newfstatat, {cwd}, 0, "ln2/z"), 0), "/work/deep/er/z");
  EXPECT_EQ(path(sys(100, SYS_newfstatat, {cwd}, 0, "ln/z"), 0), "/work/ln/z") << "moved away";
  sys(100, SYS_unlink, {}, 0, "/work/ln2");
  sys(100, SYS_mkdir, {0755}, 0, "/work/ln2");
  EXPECT_EQ(path(sys(100, SYS_newfstatat, {cwd}, 0, "ln2/../w"), 0), "/work/w") << "a directory now";
  EXPECT_EQ(path(sys(100, SYS_newfstatat, {cwd}, 0, "/lib/../etc"), 0), "/usr/etc") << "outside the root, looked up";
}

TEST_F(DecoderTest, ExecClosesCloexecFdsOnly) {
  sys(100, SYS_openat, {uint64_t(AT_FDCWD), 0, O_CLOEXEC}, 3, "/keep-not");
  sys(100, SYS_openat, {uint64_t(AT_FDCWD), 0, 0}, 4, "/keep");
  sys(100, 0, {}, 0, "/bin/x", "x\0", FSR_REC_EXEC);
  Event ex = sys(100, SYS_execve, {0, 0, 0}, 0);
  EXPECT_EQ(path(ex, 0), "/bin/x") << "successful execve takes its path from the exec record";
  EXPECT_EQ(path(sys(100, SYS_read, {3, 0, 10}, -9), 0), "<none>");
  EXPECT_EQ(path(sys(100, SYS_read, {4, 0, 10}, 10), 0), "/keep");
}

TEST_F(DecoderTest, ForkCopiesTheTableCloneFilesShares) {
  sys(100, SYS_openat, {uint64_t(AT_FDCWD), 0, 0}, 3, "/f");
  sys(100, 0, {101, 101}, 0, nullptr, nullptr, FSR_REC_FORK);  // copy
  sys(100, 0, {102, 100}, 0, nullptr, nullptr, FSR_REC_FORK, FSR_RF_THREAD | FSR_RF_SHARED_FILES);
  sys(101, SYS_close, {3}, 0);
  EXPECT_EQ(path(sys(100, SYS_fstat, {3, 0}, 0), 0), "/f") << "child's close does not touch the parent";
  Event t = sys(102, SYS_close, {3}, 0);
  EXPECT_EQ(path(t, 0), "/f");
  EXPECT_EQ(path(sys(100, SYS_fstat, {3, 0}, -9), 0), "<none>") << "a thread's close closes the shared fd";
}

TEST_F(DecoderTest, UnknownDirfdIsFlaggedAndKeptAsGiven) {
  Event e = sys(100, SYS_openat, {77, 0, 0}, -2, "rel/x");
  EXPECT_TRUE(e.flags & kEfPathUnresolved);
  EXPECT_EQ(path(e, 0), "rel/x");
  EXPECT_EQ(dec_.unresolved_paths(), 1u);
}

// An empty path: with AT_EMPTY_PATH it names the dirfd (glibc's fstat);
// without, the kernel refused it with ENOENT (cmake's mkdir("") as it walks
// a path's components), which the event says, its path being the base.
TEST_F(DecoderTest, AnEmptyPathWithoutAtEmptyPathIsFlagged) {
  auto empty = [&](uint16_t nr, std::vector<uint64_t> args, int64_t ret) {
    test::RawRecord raw;
    raw.hdr.ts = 2000;
    raw.hdr.end = 3000;
    raw.hdr.ret = ret;
    raw.hdr.arg_mask = static_cast<uint8_t>((1u << args.size()) - 1);
    raw.hdr.pid = raw.hdr.tid = 100;
    raw.hdr.nr = nr;
    raw.hdr.kind = FSR_REC_SYSCALL;
    for (size_t i = 0; i < args.size(); ++i) raw.args[i] = args[i];
    raw.path0 = std::string(1, '\0');  // the kernel copied the NUL of ""
    std::vector<char> b = raw.bytes();
    Event e;
    EXPECT_TRUE(dec_.decode(b.data(), b.size(), e));
    return e;
  };
  Event mk = empty(SYS_mkdir, {0, 0777}, -ENOENT);
  EXPECT_TRUE(mk.flags & kEfEmptyPath);
  EXPECT_EQ(path(mk, 0), "/work");
  Event st = empty(SYS_newfstatat, {uint64_t(AT_FDCWD), 0, 0, AT_EMPTY_PATH}, 0);
  EXPECT_FALSE(st.flags & kEfEmptyPath);
  EXPECT_EQ(path(st, 0), "/work");
  EXPECT_FALSE(sys(100, SYS_mkdir, {0, 0777}, -EEXIST, "/work").flags & kEfEmptyPath);
}

// "x/" and "x/." are stored as x, the ending in the event's flags: the
// call's result depended on it (gnulib's configure probes stat, rename, link,
// mkdir and rmdir with such paths).
TEST_F(DecoderTest, APathsEndingIsKeptBesideItsNormalisedForm) {
  Event st = sys(100, SYS_newfstatat, {uint64_t(AT_FDCWD), 0, 0, 0}, -ENOTDIR, "conftest.sym/");
  EXPECT_EQ(path(st, 0), "/work/conftest.sym");
  EXPECT_EQ(event_tail_code(st, 0), static_cast<uint8_t>(PathTail::kSlash));
  EXPECT_EQ(event_tail_code(st, 1), 0);
  Event mk = sys(100, SYS_mkdir, {0, 0700}, -ENOENT, "conftest.dir/./");
  EXPECT_EQ(path(mk, 0), "/work/conftest.dir");
  EXPECT_EQ(event_tail_code(mk, 0), static_cast<uint8_t>(PathTail::kDot));
  Event rn = sys(100, SYS_rename, {0, 0}, -ENOTDIR, "conftest.f1", "conftest.f/");
  EXPECT_EQ(path(rn, 1), "/work/conftest.f");
  EXPECT_EQ(event_tail_code(rn, 0), 0);
  EXPECT_EQ(event_tail_code(rn, 1), static_cast<uint8_t>(PathTail::kSlash));
  Event plain = sys(100, SYS_newfstatat, {uint64_t(AT_FDCWD), 0, 0, 0}, 0, "/etc/passwd");
  EXPECT_EQ(event_tail_code(plain, 0), 0);
}

TEST_F(DecoderTest, PointerArgumentsAreZeroedAndUnusedArgsCleared) {
  Event e = sys(100, SYS_openat, {uint64_t(AT_FDCWD), 0x7fff0000, O_RDONLY, 0, 0xdead, 0xbeef}, 3, "/x");
  EXPECT_EQ(e.args[1], 0u);
  EXPECT_EQ(e.args[4], 0u);
  EXPECT_EQ(e.args[5], 0u);
}

TEST_F(DecoderTest, InodeSectionGivesTheFactsAndItsAbsenceFlagsNoInode) {
  const fsr_inode in = {0x801, 77, 1234, S_IFREG | 0644, 0};
  Event with =
      sys(100, SYS_openat, {uint64_t(AT_FDCWD), 0, 0, 0}, 3, "/f", nullptr, FSR_REC_SYSCALL, FSR_RF_HAS_INODE, in);
  EXPECT_EQ(with.dev, 0x801u);
  EXPECT_EQ(with.ino, 77u);
  EXPECT_EQ(with.size, 1234u);
  EXPECT_EQ(with.mode, static_cast<uint32_t>(S_IFREG | 0644));
  EXPECT_FALSE(with.flags & kEfNoInode);
  EXPECT_EQ(path(with, 0), "/f") << "the path follows the inode section";
  Event without = sys(100, SYS_openat, {uint64_t(AT_FDCWD), 0, 0, 0}, 4, "/g", nullptr, FSR_REC_SYSCALL, 0, in);
  EXPECT_EQ(without.ino, 0u);
  EXPECT_EQ(without.mode, 0u);
  EXPECT_TRUE(without.flags & kEfNoInode);
  EXPECT_EQ(path(without, 0), "/g");
  // A page fault finds the file by the inode facts the open recorded.
  Event fault = sys(100, 0, {8192, 0x7f0000, 4}, 0, nullptr, nullptr, FSR_REC_FAULT, FSR_RF_HAS_INODE, in);
  EXPECT_EQ(fault.nr, kEvPageFault);
  EXPECT_EQ(fault.args[0], 8192u);
  EXPECT_EQ(path(fault, 0), "/f");
}

// Page faults find their file by (dev, ino) in a table the opens fill: across
// its growth (it starts at 4,096 slots), with the same inode number on two
// devices, the newest path of an inode opened again, and none for an inode
// never opened.
TEST_F(DecoderTest, FaultsFindTheirFileAcrossTheInodeTablesGrowth) {
  const int n = 10000;
  auto open_as = [&](uint64_t dev, uint64_t ino, const std::string& p) {
    const fsr_inode in = {dev, ino, 4096, S_IFREG | 0644, 0};
    sys(100, SYS_openat, {uint64_t(AT_FDCWD), 0, 0, 0}, 3, p.c_str(), nullptr, FSR_REC_SYSCALL, FSR_RF_HAS_INODE, in);
  };
  auto fault_on = [&](uint64_t dev, uint64_t ino) {
    const fsr_inode in = {dev, ino, 4096, S_IFREG | 0644, 0};
    return path(sys(100, 0, {0, 0x7f0000, 4}, 0, nullptr, nullptr, FSR_REC_FAULT, FSR_RF_HAS_INODE, in), 0);
  };
  for (int i = 0; i < n; ++i) {
    open_as(0x801, 1000 + i, "/a/f" + std::to_string(i));
    open_as(0x802, 1000 + i, "/b/f" + std::to_string(i));
  }
  open_as(0x801, 1007, "/a/renamed");
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(fault_on(0x801, 1000 + i), i == 7 ? "/a/renamed" : "/a/f" + std::to_string(i)) << i;
    ASSERT_EQ(fault_on(0x802, 1000 + i), "/b/f" + std::to_string(i)) << i;
  }
  EXPECT_EQ(fault_on(0x801, 999), "<none>") << "an inode never opened has no path";
}

TEST_F(DecoderTest, ExecArgvIsTheRestOfTheRecord) {
  Event e = sys(100, 0, {100}, 0, "/bin/echo", nullptr, FSR_REC_EXEC);
  EXPECT_EQ(path(e, 1), "<none>");
  fsr_rec r{};
  r.kind = FSR_REC_EXEC;
  r.arg_mask = 1;
  r.pid = r.tid = 100;
  const uint64_t a[6] = {100};
  std::vector<char> b = test::record_bytes(r, a, {}, "/bin/echo", std::string_view("echo\0hi\0", 8));
  Event ev;
  ASSERT_TRUE(dec_.decode(b.data(), b.size(), ev));
  EXPECT_EQ(path(ev, 0), "/bin/echo");
  EXPECT_EQ(path(ev, 1), std::string("echo\0hi", 7)) << "argv keeps its inner NULs, loses the last";
  EXPECT_FALSE(dec_.decode(b.data(), sizeof(fsr_rec) + 4, ev)) << "a record cut inside path0 is refused";
}

}  // namespace
}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// Per-syscall capture tests (Falco driver-test style): fsr_trigger issues each
// recorded syscall once, between access("/fsr-mark/<case>") markers; the
// recording is decoded once for the suite and each test asserts the decoded
// event of its case: number, arguments, absolute path (dirfd resolved),
// return value, inode facts. Here the calls that name files; mappings, fds,
// pipes, futexes and processes: syscall_capture_process_test.cpp.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "tests/recorder/syscall_capture.h"
#include "traces/syscalls.h"

namespace fsr::test {
namespace {

TEST_F(SyscallCapture, TriggerSucceededWithoutDrops) {
  EXPECT_EQ(rec_->summary.exit_code, 0) << "fsr_trigger reported a failed call";
  EXPECT_EQ(rec_->summary.drops, 0u);
  ASSERT_TRUE(rec_->reader->footer().has_value());
  EXPECT_EQ(rec_->reader->footer()->exit_status, 0);
}

TEST_F(SyscallCapture, OpenatCwdRelative) {
  const Event& e = ev("openat", SYS_openat);
  EXPECT_EQ(path(e, 0), abs("data"));
  EXPECT_EQ(static_cast<int32_t>(e.args[0]), AT_FDCWD);
  EXPECT_EQ(e.args[1], 0u) << "pointer argument must be zeroed";
  EXPECT_EQ(e.args[2], static_cast<uint64_t>(O_RDONLY));
  EXPECT_GE(e.ret, 0);
  EXPECT_EQ(e.size, 1234u);
  EXPECT_TRUE(S_ISREG(e.mode));
  EXPECT_NE(e.ino, 0u);
  EXPECT_NE(e.dev, 0u);
  EXPECT_GT(e.dur, 0u);
}

TEST_F(SyscallCapture, OpenatDirfdRelative) {
  const Event& e = ev("openat_dirfd", SYS_openat);
  EXPECT_EQ(path(e, 0), abs("sub/inner"));
  EXPECT_NE(static_cast<int32_t>(e.args[0]), AT_FDCWD);
  EXPECT_GE(e.ret, 0);
  EXPECT_EQ(e.size, 0u);
}

TEST_F(SyscallCapture, Open) {
  const Event& e = ev("open", SYS_open);
  EXPECT_EQ(path(e, 0), abs("data"));
  EXPECT_GE(e.ret, 0);
  EXPECT_EQ(e.size, 1234u);
  // close of the fd carries the fd's path
  const Event& c = ev("open", SYS_close);
  EXPECT_EQ(static_cast<int64_t>(c.args[0]), e.ret);
  EXPECT_EQ(path(c, 0), abs("data"));
}

TEST_F(SyscallCapture, Creat) {
  const Event& e = ev("creat", SYS_creat);
  EXPECT_EQ(path(e, 0), abs("created"));
  EXPECT_EQ(e.args[1], 0640u);
  EXPECT_GE(e.ret, 0);
  EXPECT_EQ(e.mode & 07777, 0640u);
}

TEST_F(SyscallCapture, StatFamilyReportsInodeSize) {
  for (auto [name, nr] : {std::pair<const char*, uint16_t>{"stat", SYS_stat},
                          {"lstat", SYS_lstat},
                          {"newfstatat", SYS_newfstatat},
                          {"statx", SYS_statx},
                          {"fstat", SYS_fstat}}) {
    SCOPED_TRACE(name);
    const Event& e = ev(name, nr);
    EXPECT_EQ(e.ret, 0);
    EXPECT_EQ(path(e, 0), abs("data"));
    EXPECT_EQ(e.size, 1234u);
    EXPECT_TRUE(S_ISREG(e.mode));
    EXPECT_NE(e.ino, 0u);
  }
  struct stat st;
  ASSERT_EQ(stat(abs("data").c_str(), &st), 0);
  EXPECT_EQ(ev("stat", SYS_stat).ino, st.st_ino);
  EXPECT_EQ(ev("stat", SYS_stat).dev, st.st_dev);
  EXPECT_EQ(ev("statx", SYS_statx).dev, st.st_dev) << "statx dev must use the st_dev encoding";
}

TEST_F(SyscallCapture, AccessAndFaccessat2) {
  const Event& a = ev("access", SYS_access);
  EXPECT_EQ(path(a, 0), abs("data"));
  EXPECT_EQ(a.args[1], static_cast<uint64_t>(R_OK));
  EXPECT_EQ(a.ret, 0);
  const Event& f = ev("faccessat2", SYS_faccessat2);
  EXPECT_EQ(path(f, 0), abs("sub/inner"));
  EXPECT_EQ(f.ret, 0);
}

TEST_F(SyscallCapture, FailedCallKeepsPathAndErrno) {
  // Every marker is a failing access(): its path is absolute and ret is -ENOENT.
  int markers = 0;
  for (const Event& e : rec_->events) {
    if (e.nr != SYS_access || !e.path[0]) continue;
    if (rec_->str(e.path[0]).rfind("/fsr-mark/", 0) != 0) continue;
    EXPECT_EQ(e.ret, -ENOENT);
    ++markers;
  }
  EXPECT_GE(markers, 40);
}

TEST_F(SyscallCapture, Readlink) {
  const Event& e = ev("readlink", SYS_readlink);
  EXPECT_EQ(path(e, 0), abs("lnk"));
  EXPECT_EQ(e.ret, 4);  // strlen("data")
}

TEST_F(SyscallCapture, Getdents64OnDirfd) {
  const Event& e = ev("getdents64", SYS_getdents64);
  EXPECT_EQ(path(e, 0), abs("sub"));
  EXPECT_GT(e.ret, 0);
}

TEST_F(SyscallCapture, MkdirMkdiratRmdir) {
  EXPECT_EQ(path(ev("mkdir", SYS_mkdir), 0), abs("d1"));
  EXPECT_EQ(ev("mkdir", SYS_mkdir).args[1], 0755u);
  EXPECT_EQ(path(ev("mkdirat", SYS_mkdirat), 0), abs("sub/d2"));
  EXPECT_EQ(path(ev("rmdir", SYS_rmdir), 0), abs("d1"));
  EXPECT_EQ(ev("rmdir", SYS_rmdir).ret, 0);
}

TEST_F(SyscallCapture, UnlinkAndUnlinkat) {
  EXPECT_EQ(path(ev("unlink", SYS_unlink), 0), abs("u1"));
  EXPECT_EQ(path(ev("unlinkat", SYS_unlinkat), 0), abs("sub/u2"));
  EXPECT_EQ(ev("unlinkat", SYS_unlinkat).ret, 0);
}

TEST_F(SyscallCapture, RenameRecordsBothPaths) {
  const Event& r = ev("rename", SYS_rename);
  EXPECT_EQ(path(r, 0), abs("r1"));
  EXPECT_EQ(path(r, 1), abs("r2"));
  const Event& r2 = ev("renameat2", SYS_renameat2);
  EXPECT_EQ(path(r2, 0), abs("r2"));
  EXPECT_EQ(path(r2, 1), abs("sub/r3"));
  EXPECT_EQ(r2.ret, 0);
}

TEST_F(SyscallCapture, LinkAndLinkat) {
  EXPECT_EQ(path(ev("link", SYS_link), 0), abs("data"));
  EXPECT_EQ(path(ev("link", SYS_link), 1), abs("hard1"));
  EXPECT_EQ(path(ev("linkat", SYS_linkat), 0), abs("data"));
  EXPECT_EQ(path(ev("linkat", SYS_linkat), 1), abs("sub/hard2"));
}

TEST_F(SyscallCapture, SymlinkTargetIsLiteral) {
  EXPECT_EQ(path(ev("symlink", SYS_symlink), 0), "../some/target");
  EXPECT_EQ(path(ev("symlink", SYS_symlink), 1), abs("sl1"));
  EXPECT_EQ(path(ev("symlinkat", SYS_symlinkat), 0), "target2");
  EXPECT_EQ(path(ev("symlinkat", SYS_symlinkat), 1), abs("sub/sl2"));
}

TEST_F(SyscallCapture, ChmodAndFchmodat) {
  EXPECT_EQ(path(ev("chmod", SYS_chmod), 0), abs("created"));
  EXPECT_EQ(ev("chmod", SYS_chmod).args[1], 0600u);
  EXPECT_EQ(path(ev("fchmodat", SYS_fchmodat), 0), abs("sub/inner"));
}

TEST_F(SyscallCapture, TruncateFtruncateFallocate) {
  EXPECT_EQ(path(ev("truncate", SYS_truncate), 0), abs("created"));
  EXPECT_EQ(ev("truncate", SYS_truncate).args[1], 100u);
  const Event& ft = ev("ftruncate", SYS_ftruncate);
  EXPECT_EQ(ft.args[1], 200u);
  EXPECT_EQ(path(ft, 0), abs("created")) << "fd operand resolved through the fd table";
  const Event& fa = ev("fallocate", SYS_fallocate);
  EXPECT_EQ(fa.args[3], 8192u);
  EXPECT_EQ(fa.ret, 0);
}

TEST_F(SyscallCapture, Xattrs) {
  const Event& s = ev("setxattr", SYS_setxattr);
  EXPECT_EQ(path(s, 0), abs("created"));
  EXPECT_EQ(s.args[1], 0u);
  EXPECT_EQ(s.args[3], 1u);
  EXPECT_EQ(ev("getxattr", SYS_getxattr).ret, 1);
  EXPECT_EQ(ev("listxattr", SYS_listxattr).ret, static_cast<int64_t>(sizeof("user.fsr")));
}

TEST_F(SyscallCapture, FsyncFdatasync) {
  EXPECT_EQ(path(ev("fsync", SYS_fsync), 0), abs("created"));
  EXPECT_EQ(ev("fsync", SYS_fsync).ret, 0);
  EXPECT_EQ(path(ev("fdatasync", SYS_fdatasync), 0), abs("created"));
}

// The header names the program variants the recording ran through; a suite
// run with FSREPLAY_RECORD_WITHOUT went through that fallback.
TEST_F(SyscallCapture, HeaderNamesTheVariantsRecordedThrough) {
  const std::string without = getenv("FSREPLAY_RECORD_WITHOUT") ? getenv("FSREPLAY_RECORD_WITHOUT") : "";
  auto want = [&](const std::string& c) { EXPECT_TRUE(choice(c)) << "header lacks " << c; };
  want(without.find("map/task_storage") != std::string::npos ? "task_state=hash" : "task_state=task_storage");
  if (without.find("tp_btf/page_fault_user") != std::string::npos)
    want("page_faults=off");
  else if (without.find("tp_btf/mm_filemap_fault") != std::string::npos && without.find("fentry/") != std::string::npos)
    want("page_faults=vma_lookup");
  else if (without.find("tp_btf/mm_filemap_fault") != std::string::npos) {  // (vma_lookup where fentry is refused)
    EXPECT_TRUE(choice("page_faults=fentry") ||
                choice("page_faults=vma_lookup (no filemap fault tracepoints; the kernel refused fentry"))
        << "neither fentry nor the VMA lookup after a refused fentry";
  }
  want("pid_namespace=");
  if (!without.empty()) want("forced_off=" + without);
}

}  // namespace
}  // namespace fsr::test

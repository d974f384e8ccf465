// SPDX-License-Identifier: Apache-2.0
// Per-syscall capture tests beyond naming files (syscall_capture_test.cpp
// has those): file mappings and their faults, copies between fds, the dup
// family, pipes, futexes, a thread sharing the fd table, fork, exec, wait and
// exit -- each test asserting the decoded event of its fsr_trigger case.
#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/recorder/syscall_capture.h"
#include "traces/syscalls.h"

namespace fsr::test {
namespace {

TEST_F(SyscallCapture, FileMmapAndFirstFault) {
  if (choice("page_faults=off")) {
    EXPECT_TRUE(rec_->with_nr(kEvPageFault).empty()) << "faults recorded while the header says they are off";
    GTEST_SKIP() << "page faults are not recorded on this kernel or with these options (header: page_faults=off)";
  }
  const Event& m = ev("mmap", SYS_mmap);
  EXPECT_EQ(path(m, 0), abs("data"));
  EXPECT_EQ(m.args[1], 4096u);
  EXPECT_EQ(m.args[2], static_cast<uint64_t>(PROT_READ));
  EXPECT_EQ(m.args[5], 0u);
  EXPECT_EQ(m.size, 1234u);
  const Event& f = ev("mmap", kEvPageFault);
  EXPECT_EQ(path(f, 0), abs("data")) << "found by the fault's device and inode";
  EXPECT_EQ(f.size, 1234u) << "the fault's inode facts";
  EXPECT_EQ(f.dev, m.dev);
  EXPECT_EQ(f.ino, m.ino);
  EXPECT_EQ(f.args[0], 0u) << "file offset of the touched page";
  EXPECT_EQ(f.args[1] & ~0xfffull, static_cast<uint64_t>(m.ret));
}

TEST_F(SyscallCapture, NoFaultRecordWithoutAFileRead) {
  auto it = cases_->find("mmap_no_fault");
  ASSERT_NE(it, cases_->end());
  int mmaps = 0, faults = 0;
  for (const Event& e : it->second) {
    if (e.pid != pid_) continue;
    mmaps += e.nr == SYS_mmap;
    faults += e.nr == kEvPageFault;
  }
  EXPECT_GE(mmaps, 2) << "the anonymous and the MAP_POPULATE mapping";
  EXPECT_EQ(faults, 0) << "16 anonymous pages and a populated file page were touched";
}

TEST_F(SyscallCapture, CopyFileRange) {
  const Event& e = ev("copy_file_range", SYS_copy_file_range);
  EXPECT_EQ(path(e, 0), abs("data"));
  EXPECT_EQ(e.args[4], 100u);
  EXPECT_EQ(e.ret, 100);
}

TEST_F(SyscallCapture, DupFamilyCarriesThePath) {
  EXPECT_EQ(path(ev("dup", SYS_dup), 0), abs("data"));
  EXPECT_EQ(ev("dup2", SYS_dup2).ret, 40);
  EXPECT_EQ(ev("dup3", SYS_dup3).ret, 41);
  EXPECT_EQ(ev("dup3", SYS_dup3).args[2], static_cast<uint64_t>(O_CLOEXEC));
  EXPECT_EQ(ev("fcntl", SYS_fcntl).args[1], static_cast<uint64_t>(F_DUPFD_CLOEXEC));
  EXPECT_EQ(ev("fcntl", SYS_fcntl).ret, 50);
  EXPECT_EQ(path(ev("lseek", SYS_lseek), 0), abs("data")) << "fd 50 from fcntl(F_DUPFD_CLOEXEC)";
  EXPECT_EQ(ev("lseek", SYS_lseek).ret, 7);
  EXPECT_EQ(path(ev("fd_after_dup", SYS_fstat), 0), abs("data")) << "fd 41 from dup3";
}

TEST_F(SyscallCapture, Pipe2AndPipeIo) {
  const Event& p = ev("pipe2", SYS_pipe2);
  EXPECT_EQ(p.ret, 0);
  int rfd = static_cast<int>(p.args[0] & 0xffffffff), wfd = static_cast<int>(p.args[0] >> 32);
  // Not necessarily consecutive: the environment may hold fds open in between.
  EXPECT_GT(rfd, 2);
  EXPECT_GT(wfd, 2);
  EXPECT_NE(wfd, rfd);
  EXPECT_EQ(p.args[1], static_cast<uint64_t>(O_CLOEXEC));
  const Event& w = ev("pipe_write", SYS_write);
  EXPECT_EQ(static_cast<int>(w.args[0]), wfd);
  EXPECT_EQ(w.ret, 5);
  EXPECT_TRUE(w.flags & kEfFdIsPipe);
  const Event& r = ev("pipe_read", SYS_read);
  EXPECT_EQ(static_cast<int>(r.args[0]), rfd);
  EXPECT_EQ(r.ret, 5);
  EXPECT_TRUE(r.flags & kEfFdIsPipe);
  EXPECT_FALSE(ev("openat", SYS_openat).flags & kEfFdIsPipe);
}

TEST_F(SyscallCapture, FutexKeepsAddressAndOp) {
  const Event& f = ev("futex", SYS_futex);
  EXPECT_NE(f.args[0], 0u) << "uaddr pairs waits with wakes";
  EXPECT_EQ(f.args[1], static_cast<uint64_t>(FUTEX_WAKE_PRIVATE));
  EXPECT_EQ(f.args[2], 1u);
  EXPECT_EQ(f.ret, 0);
}

TEST_F(SyscallCapture, ThreadSharesTheFdTable) {
  const Event& fork = ev("thread", kEvProcFork);
  EXPECT_TRUE(fork.flags & kEfThreadClone);
  EXPECT_TRUE(fork.flags & kEfSharedFiles);
  EXPECT_EQ(fork.args[1], pid_) << "a thread stays in the thread group";
  uint32_t tid = static_cast<uint32_t>(fork.args[0]);
  EXPECT_NE(tid, pid_);
  bool found = false;
  for (const Event& e : (*cases_)["thread"]) {
    if (e.nr == SYS_openat && e.tid == tid) {
      found = true;
      EXPECT_EQ(e.pid, pid_);
      EXPECT_EQ(path(e, 0), abs("sub/inner")) << "dirfd opened by the main thread resolved in the thread";
      EXPECT_GE(e.ret, 0);
    }
  }
  EXPECT_TRUE(found) << "the thread's openat was recorded";
}

TEST_F(SyscallCapture, ForkExecWaitExit) {
  const Event& c = ev("fork", SYS_clone);
  ASSERT_GT(c.ret, 0);
  uint32_t child = static_cast<uint32_t>(c.ret);
  const Event& fork = ev("fork", kEvProcFork);
  EXPECT_EQ(fork.args[0], child);
  EXPECT_EQ(fork.args[1], child);
  EXPECT_FALSE(fork.flags & kEfThreadClone);
  // The child resolves a relative path against the cwd it inherited.
  auto opens = rec_->with_nr(SYS_openat, child);
  ASSERT_FALSE(opens.empty());
  EXPECT_EQ(path(*opens.front(), 0), abs("data"));
  auto execs = rec_->with_nr(kEvProcExec, child);
  ASSERT_EQ(execs.size(), 1u);
  EXPECT_EQ(path(*execs[0], 0), physical("/bin/true")) << "(merged /usr: /usr/bin/true)";
  EXPECT_EQ(rec_->str(execs[0]->path[1]), "true");
  auto execve = rec_->with_nr(SYS_execve, child);
  ASSERT_EQ(execve.size(), 1u);
  EXPECT_EQ(execve[0]->ret, 0);
  EXPECT_EQ(path(*execve[0], 0), physical("/bin/true"));
  auto exits = rec_->with_nr(kEvProcExit, child);
  ASSERT_FALSE(exits.empty());
  EXPECT_EQ(exits.back()->args[0], 0u);
  const Event& w = ev("wait4", SYS_wait4);
  EXPECT_EQ(w.ret, static_cast<int64_t>(child));
  EXPECT_EQ(w.args[0], child);
  EXPECT_GT(w.ts, exits.back()->ts - w.dur) << "wait4 was in progress when the child exited";
  const Event& eg = ev("end", SYS_exit_group);
  EXPECT_EQ(eg.args[0], 0u);
  EXPECT_FALSE(eg.flags & kEfUnfinished) << "exit_group never returns; that is its normal end";
}

}  // namespace
}  // namespace fsr::test

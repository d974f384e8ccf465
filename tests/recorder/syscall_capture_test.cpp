// Per-syscall capture tests (Falco driver-test style): fsr_trigger issues each
// recorded syscall once, between access("/fsr-mark/<case>") markers; the
// recording is decoded once for the suite and each test asserts the decoded
// event of its case: number, arguments, absolute path (dirfd resolved),
// return value, inode facts.
#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <climits>
#include <cstdlib>
#include <map>

#include "tests/recorder/record_helper.h"
#include "traces/syscalls.h"

namespace fsr::test {
namespace {

class SyscallCapture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(geteuid(), 0u) << "the recorder tests load BPF programs: run them as root";
    dir_ = new TempDir();
    const std::string& d = dir_->path();
    ASSERT_EQ(sh("mkdir -p '" + d + "/sub' && head -c 1234 /dev/zero > '" + d + "/data'"), 0);
    rec_ = new Recorded(record_command({FSR_TRIGGER_PATH, d}, d));
    ASSERT_TRUE(rec_->reader) << "recording failed";
    // Split by markers of the trigger process.
    std::string current;
    for (const Event& e : rec_->events) {
      if (e.nr == SYS_access && e.path[0] != kNoStr) {
        std::string p = rec_->str(e.path[0]);
        if (p.rfind("/fsr-mark/", 0) == 0) {
          current = p.substr(10);
          pid_ = e.pid;
          continue;
        }
      }
      if (!current.empty()) (*cases_)[current].push_back(e);
    }
  }
  static void TearDownTestSuite() {
    delete rec_;
    delete dir_;
    rec_ = nullptr;
    dir_ = nullptr;
  }

  // The first event `nr` of case `name` issued by the trigger process.
  static const Event& ev(const std::string& name, uint16_t nr) {
    static const Event none{};
    auto it = cases_->find(name);
    if (it == cases_->end()) {
      ADD_FAILURE() << "case " << name << " has no events";
      return none;
    }
    for (const Event& e : it->second)
      if (e.nr == nr && e.pid == pid_) return e;
    ADD_FAILURE() << "case " << name << ": no " << syscall_name(nr) << " event";
    return none;
  }
  static std::string path(const Event& e, int i) { return e.path[i] ? rec_->str(e.path[i]) : "<none>"; }
  // Whether the trace header has a recorder choice starting with `prefix`.
  static bool choice(const std::string& prefix) {
    for (const std::string& c : rec_->reader->header().recorder_choices)
      if (c.rfind(prefix, 0) == 0) return true;
    return false;
  }
  static std::string abs(const std::string& rel) { return dir_->path() + "/" + rel; }
  // `p` with its directory part as the kernel walked it (symlinks followed).
  static std::string physical(const std::string& p) {
    char buf[PATH_MAX];
    const std::string dir = p.substr(0, p.rfind('/'));
    return std::string(realpath(dir.c_str(), buf) ? buf : dir.c_str()) + p.substr(p.rfind('/'));
  }

  static TempDir* dir_;
  static Recorded* rec_;
  static std::map<std::string, std::vector<Event>>* cases_;
  static uint32_t pid_;
};

TempDir* SyscallCapture::dir_ = nullptr;
Recorded* SyscallCapture::rec_ = nullptr;
std::map<std::string, std::vector<Event>>* SyscallCapture::cases_ = new std::map<std::string, std::vector<Event>>();
uint32_t SyscallCapture::pid_ = 0;

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
  for (auto [name, nr] : {std::pair<const char*, uint16_t>{"stat", SYS_stat}, {"lstat", SYS_lstat},
                          {"newfstatat", SYS_newfstatat}, {"statx", SYS_statx}, {"fstat", SYS_fstat}}) {
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

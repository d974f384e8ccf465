// EventDecoder on synthetic kernel records: the fd/cwd bookkeeping that the
// live tests cannot observe directly (exec closing close-on-exec fds, fork
// copying the table, chdir/fchdir, unknown dirfds).
#include "recorder/event_decoder.h"

#include <fcntl.h>
#include <sys/syscall.h>

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "recorder/syscall_arity.h"
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
    ProcessState st;
    st.pid = 100;
    st.cwd = "/work";
    dec_.seed_process(st);
  }

  // Feeds a syscall record of task (pid, tid) and returns the event.
  Event sys(uint32_t pid, uint16_t nr, std::vector<uint64_t> args, int64_t ret, const char* p0 = nullptr,
            const char* p1 = nullptr, uint16_t kind = FSR_REC_SYSCALL, uint16_t flags = 0) {
    std::vector<char> buf(sizeof(fsr_rec));
    fsr_rec r{};
    r.ts = 2000;
    r.end = 3000;
    r.ret = ret;
    for (size_t i = 0; i < args.size() && i < 6; ++i) r.args[i] = args[i];
    r.pid = pid;
    r.tid = pid;
    r.nr = nr;
    r.kind = kind;
    r.flags = flags;
    if (p0) {
      r.len0 = static_cast<uint16_t>(strlen(p0) + 1);
      buf.insert(buf.end(), p0, p0 + r.len0);
    }
    if (p1) {
      r.len1 = static_cast<uint16_t>(strlen(p1) + 1);
      buf.insert(buf.end(), p1, p1 + r.len1);
    }
    memcpy(buf.data(), &r, sizeof(r));
    Event e;
    EXPECT_TRUE(dec_.decode(*reinterpret_cast<const fsr_rec*>(buf.data()), buf.data() + sizeof(fsr_rec), e));
    return e;
  }
  std::string path(const Event& e, int i) { return e.path[i] ? strings_[e.path[i] - 1] : "<none>"; }

  std::vector<std::string> strings_;
  EventDecoder dec_;
};

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

TEST_F(DecoderTest, PointerArgumentsAreZeroedAndUnusedArgsCleared) {
  Event e = sys(100, SYS_openat, {uint64_t(AT_FDCWD), 0x7fff0000, O_RDONLY, 0, 0xdead, 0xbeef}, 3, "/x");
  EXPECT_EQ(e.args[1], 0u);
  EXPECT_EQ(e.args[4], 0u);
  EXPECT_EQ(e.args[5], 0u);
}

TEST(DecoderLayout, RecordedArgMaskDropsPointersAndArgsPastTheArity) {
  const SyscallInfo* openat = syscall_info(SYS_openat);  // dirfd, *path, flags, mode
  ASSERT_TRUE(openat);
  EXPECT_EQ(recorded_arg_mask(*openat), 0b1101);
  const SyscallInfo* fstat = syscall_info(SYS_fstat);  // fd, *statbuf
  ASSERT_TRUE(fstat);
  EXPECT_EQ(recorded_arg_mask(*fstat), 0b1);
  const SyscallInfo* pipe2 = syscall_info(SYS_pipe2);  // *fds (carries the new pair), flags
  ASSERT_TRUE(pipe2);
  EXPECT_EQ(recorded_arg_mask(*pipe2), 0b11);
  const SyscallInfo* sp = syscall_info(SYS_socketpair);  // domain, type, protocol, *sv (the pair)
  ASSERT_TRUE(sp);
  EXPECT_EQ(recorded_arg_mask(*sp), 0b1111);
}

}  // namespace
}  // namespace fsr

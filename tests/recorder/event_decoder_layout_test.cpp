// SPDX-License-Identifier: Apache-2.0
// EventDecoder on the compact record layout: a record carrying only
// recorded_arg_mask() of a call's arguments decodes to the events the full
// six-argument one did.
#include <fcntl.h>
#include <sys/syscall.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "recorder/core/event_decoder.h"
#include "recorder/core/syscall_arity.h"
#include "tests/recorder/record_bytes.h"
#include "base/paths.h"
#include "traces/syscalls.h"

namespace fsr {
namespace {

// The kernel sends only recorded_arg_mask() of a call's arguments where the
// old layout sent all six. For every syscall in the table, a record with the
// compact mask must decode to the same event as one with all six arguments,
// and leave the decoder's fd table, close-on-exec bits and cwd the same: seen
// through probe events after it (fstat of each fd, a cwd-relative stat, and
// fstat again after an exec).
class CompactArgs {
 public:
  explicit CompactArgs(uint64_t flag_bits)
      : dec_(1000,
             [this](std::string_view s) {
               strings_.emplace_back(s);
               return static_cast<StrId>(strings_.size());
             }),
        flag_bits_(flag_bits) {
    dec_.paths() = PathResolver([](const std::string&, std::string*) { return false; });
    ProcessState st;
    st.pid = 100;
    st.cwd = "/work";
    for (int fd = 3; fd < 3 + 6; ++fd) st.fds.push_back({fd, "/d" + std::to_string(fd), 0});
    dec_.seed_process(st);
  }

  // Everything the decoder says after the call `s` with arguments carried per `mask`.
  std::string run(const SyscallInfo& s, uint8_t mask) {
    uint64_t args[6];
    for (int i = 0; i < 6; ++i) {
      const bool fd_operand = i == s.fd || i == s.dirfd[0] || i == s.dirfd[1];
      args[i] = (3 + i) | (fd_operand ? 0 : flag_bits_);  // fds stay ones the table knows
    }
    const int64_t ret = (s.flags & kSfReturnsFd) ? 12 : 0;
    std::string out = feed(s.nr, mask, args, ret, s.path[0] >= 0 ? "p0" : "", s.path[1] >= 0 ? "p1" : "");
    out += probe_fds();
    const uint64_t cwd_rel[6] = {uint64_t(AT_FDCWD)}, none[6] = {};
    out += feed(SYS_newfstatat, 0x3f, cwd_rel, 0, "rel", "");
    out += feed(0, 0, none, 0, "/bin/x", "", FSR_REC_EXEC);
    out += feed(SYS_execve, 0x3f, none, 0, "", "");
    return out + probe_fds();
  }

 private:
  // fstat of every fd the call could have touched: what the table holds.
  std::string probe_fds() {
    std::string out;
    for (uint64_t fd = 0; fd < 16; ++fd) out += probe_fstat(fd);
    return out;
  }
  std::string probe_fstat(uint64_t fd) {
    const uint64_t a[6] = {fd};
    return feed(SYS_fstat, 0x3f, a, 0, "", "");
  }
  std::string feed(uint16_t nr, uint8_t mask, const uint64_t* args, int64_t ret, std::string_view p0,
                   std::string_view p1, uint8_t kind = FSR_REC_SYSCALL) {
    fsr_rec r{};
    r.ts = 2000;
    r.end = 3000;
    r.ret = ret;
    r.pid = r.tid = 100;
    r.nr = nr;
    r.kind = kind;
    r.arg_mask = mask;
    uint64_t a[6];
    std::copy(args, args + 6, a);
    std::vector<char> b = test::record_bytes(r, a, {}, p0, p1.empty() ? p1 : std::string(p1) + '\0');
    Event e;
    if (!dec_.decode(b.data(), b.size(), e)) return "(no event)\n";
    std::ostringstream o;
    o << e.nr << " ret=" << e.ret << " flags=" << e.flags << " args=";
    for (uint64_t x : e.args) o << x << ",";
    o << " p0=" << name(e.path[0]) << " p1=" << name(e.path[1]) << "\n";
    return o.str();
  }
  std::string name(StrId id) const { return id ? strings_[id - 1] : "-"; }

  std::vector<std::string> strings_;
  EventDecoder dec_;
  uint64_t flag_bits_;
};

TEST(DecoderLayout, CompactArgumentsDecodeLikeAllSix) {
  int compared = 0;
  for (const SyscallInfo& s : syscall_table()) {
    if (s.nr >= FSR_MAX_NR) continue;  // pseudo events: their records are built by the kernel side itself
    // Small values (fds and dirfds that resolve), then the same with O_CLOEXEC
    // in every argument that is not an fd operand (flags that mark new fds
    // close-on-exec).
    for (uint64_t bits : {uint64_t{0}, uint64_t{O_CLOEXEC}}) {
      std::string all = CompactArgs(bits).run(s, 0x3f);
      std::string compact = CompactArgs(bits).run(s, recorded_arg_mask(s));
      EXPECT_EQ(compact, all) << s.name << " with arg mask 0x" << std::hex << int{recorded_arg_mask(s)};
      ++compared;
    }
  }
  EXPECT_GT(compared, 200);
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

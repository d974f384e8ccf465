// SPDX-License-Identifier: Apache-2.0
// spawn_held: the child is held before its exec, and it is already waiting on
// the go pipe when spawn_held returns, so tracking it from then on records
// none of the launcher's own calls.
#include "recorder/core/launcher.h"

#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace fsr {
namespace {

std::string syscall_line(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/syscall");
  std::string line;
  std::getline(in, line);
  return line;
}

TEST(Launcher, HeldChildIsWaitingOnItsGoPipeWhenSpawnReturns) {
  RunAs self{getuid(), getgid(), {}, {}};
  for (int i = 0; i < 20; ++i) {
    auto c = spawn_held({"/bin/true"}, self);
    ASSERT_TRUE(c) << c.message();
    const std::string line = syscall_line(c.value().pid());
    if (line.empty()) GTEST_SKIP() << "/proc/PID/syscall is not readable here";
    EXPECT_EQ(line.substr(0, line.find(' ')), std::to_string(SYS_read)) << "round " << i << ": " << line;
    ASSERT_TRUE(c.value().release());
    int st = 0;
    ASSERT_EQ(waitpid(c.value().pid(), &st, 0), c.value().pid());
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
}

TEST(Launcher, MissingProgramIsNamed) {
  RunAs self{getuid(), getgid(), {}, {}};
  auto c = spawn_held({"/nonexistent/fsr-no-such-program"}, self);
  if (c) {
    Status s = c.value().release();
    EXPECT_FALSE(s);
  } else {
    EXPECT_NE(c.message().find("fsr-no-such-program"), std::string::npos) << c.message();
  }
}

}  // namespace
}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// fsreplay probe as a command: a stop signal (SIGINT, SIGTERM, SIGHUP)
// removes the private directory and exits 128+signal with no profile; a
// budget below the floor is raised with a note; a killed probe's directory
// is removed by the next one, which says so. Runs the real binary.
#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_run.h"
#include "tests/probe/probe_fixture.h"

namespace fsr {
namespace {

using test::Tmp;

bool has_probe_dir(const std::string& dir) {
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().filename().string().rfind(".fsreplay-probe-", 0) == 0) return true;
  return false;
}

// Waits for `p` to exit, up to `limit_s` (a bound against a hung test, not a
// timing assertion): its wait status, or -1 after killing it.
int wait_exit(pid_t p, int limit_s) {
  int st = 0;
  for (int i = 0; i < limit_s * 50; ++i) {
    if (waitpid(p, &st, WNOHANG) == p) return st;
    usleep(20'000);
  }
  kill(p, SIGKILL);
  waitpid(p, &st, 0);
  return -1;
}

class ProbeStopSignal : public ::testing::TestWithParam<int> {};

TEST_P(ProbeStopSignal, RemovesItsDirectoryWritesNoProfileAndExits128PlusSignal) {
  const int sig = GetParam();
  Tmp probed, out;
  const std::string profile = out.dir + "/p.profile", err = out.dir + "/err";
  const pid_t p =
      start_fsreplay({"probe", probed.dir, "-o", profile, "--duration", "120", "--samples", "2"}, "/dev/null", err);
  ASSERT_GT(p, 0);
  bool started = false;  // its private directory exists: the handlers are in place
  for (int i = 0; i < 3000 && !started; ++i) {
    started = has_probe_dir(probed.dir);
    if (!started) usleep(20'000);
  }
  if (!started) {
    kill(p, SIGKILL);
    waitpid(p, nullptr, 0);
    FAIL() << "the probe never made its private directory: " << slurp(err);
  }
  kill(p, sig);
  const int st = wait_exit(p, 120);
  ASSERT_NE(st, -1) << "the probe did not stop after " << strsignal(sig) << ": " << slurp(err);
  ASSERT_TRUE(WIFEXITED(st)) << "died by signal " << WTERMSIG(st) << " instead of cleaning up";
  EXPECT_EQ(WEXITSTATUS(st), 128 + sig) << slurp(err);
  EXPECT_TRUE(probed.empty()) << "the private directory is left in " << probed.dir;
  EXPECT_FALSE(std::filesystem::exists(profile));
  EXPECT_NE(slurp(err).find("interrupted; removed " + probed.dir + "/.fsreplay-probe-"), std::string::npos)
      << slurp(err);
}

INSTANTIATE_TEST_SUITE_P(Signals, ProbeStopSignal, ::testing::Values(SIGINT, SIGTERM, SIGHUP),
                         [](const ::testing::TestParamInfo<int>& i) { return std::string(sigabbrev_np(i.param)); });

// A budget below the floor is raised, with a note, rather than silently
// overrun; the directory a killed probe left is removed, and said.
TEST(ProbeCli, ShortBudgetIsRaisedWithANoteAndAKilledProbesDirectoryIsRemoved) {
  Tmp probed, out;
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  const std::string stale = ".fsreplay-probe-" + std::to_string(gone) + "-0a0b0c";
  std::filesystem::create_directories(probed.dir + "/" + stale + "/r1");
  const std::string profile = out.dir + "/p.profile", err = out.dir + "/err";
  const pid_t p =
      start_fsreplay({"probe", probed.dir, "-o", profile, "--duration", "1", "--samples", "2"}, "/dev/null", err);
  ASSERT_GT(p, 0);
  const int st = wait_exit(p, 300);
  ASSERT_NE(st, -1) << slurp(err);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 0) << slurp(err);
  const std::string e = slurp(err);
  EXPECT_NE(e.find("fsreplay probe: --duration 1 is below the probe's floor: probing for 5 s"), std::string::npos) << e;
  EXPECT_NE(e.find("fsreplay probe: removed 1 private directory of probes killed earlier from " + probed.dir + ": " +
                   stale + "\n"),
            std::string::npos)
      << e;
  EXPECT_TRUE(probed.empty());
  auto prof = read_profile(profile);
  ASSERT_TRUE(prof) << prof.message();
  EXPECT_TRUE(prof->server.measured()) << prof->server.fit_note;  // the sweep runs by default
}

TEST(ProbeCli, QuickWritesAProfileWithoutServerModel) {
  Tmp probed, out;
  const std::string profile = out.dir + "/p.profile", err = out.dir + "/err", text = out.dir + "/out";
  const pid_t p =
      start_fsreplay({"probe", probed.dir, "-o", profile, "--duration", "5", "--samples", "2", "--quick"}, text, err);
  ASSERT_GT(p, 0);
  const int st = wait_exit(p, 300);
  ASSERT_NE(st, -1) << slurp(err);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 0) << slurp(err);
  auto prof = read_profile(profile);
  ASSERT_TRUE(prof) << prof.message();
  EXPECT_FALSE(prof->server.measured());
  EXPECT_TRUE(prof->server.sweep.empty());
  EXPECT_NE(slurp(text).find("server     not measured (probe --quick"), std::string::npos) << slurp(text);
}

}  // namespace
}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// The progress line (cli/progress/progress.h): its text, drawn on a
// pseudo-terminal, silent on a pipe or when quiet; and `fsreplay replay`
// showing it on a terminal and not when piped.
#include "cli/progress/progress.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/replayer/replay_fixture.h"

namespace fsr {
namespace {

// Everything readable on `fd` within `ms` of quiet.
std::string drain(int fd, int ms = 200) {
  std::string out;
  char buf[4096];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, ms) <= 0) break;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

TEST(ProgressText, SaysDoneOfTotalElapsedEtaAndWhatRuns) {
  ProgressView v{"replay", "ops", 1'234'567, 3'000'000, 12'300'000'000, "cc1", ""};
  EXPECT_EQ(format_progress(v), "replay  1,234,567/3,000,000 ops  41%  12.3 s  ETA 17.6 s  cc1");
  ProgressView rec{"record", "events", 2'478'677, 0, 61'000'000'000, "", "0 drops"};
  EXPECT_EQ(format_progress(rec), "record  2,478,677 events  0 drops  61.0 s");
  ProgressView done{"prepare", "entries", 10, 10, 400'000'000, "", ""};
  EXPECT_EQ(format_progress(done), "prepare  10/10 entries  100%  0.4 s");
  EXPECT_EQ(format_progress(v, 20).size(), 19u) << "cut to the terminal, never wrapped";
}

TEST(ProgressLine, DrawsInPlaceOnATerminalAndClearsWhenDone) {
  int master = -1, slave = -1;
  ASSERT_EQ(openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
  {
    ProgressLine line("replay", "ops", /*quiet=*/false, slave, /*show_after_ns=*/0);
    ASSERT_TRUE(line.enabled());
    line.update(5, 10, "cc1");
    line.update(10, 10, "as");  // the end is always drawn
  }
  const std::string out = drain(master);
  EXPECT_NE(out.find("\rreplay  5/10 ops  50%"), std::string::npos) << out;
  EXPECT_NE(out.find("cc1"), std::string::npos) << out;
  EXPECT_NE(out.find("\rreplay  10/10 ops  100%"), std::string::npos) << out;
  EXPECT_EQ(out.substr(out.size() - 4), "\r\033[K") << "the line is cleared at the end";
  close(slave);
  close(master);
}

TEST(ProgressLine, SilentOnAPipeAndWhenQuiet) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  {
    ProgressLine line("replay", "ops", false, p[1], 0);
    EXPECT_FALSE(line.enabled());
    line.update(5, 10, "cc1");
  }
  close(p[1]);
  EXPECT_EQ(drain(p[0]), "");
  close(p[0]);

  int master = -1, slave = -1;
  ASSERT_EQ(openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
  {
    ProgressLine line("replay", "ops", /*quiet=*/true, slave, 0);
    EXPECT_FALSE(line.enabled());
    line.update(5, 10);
  }
  EXPECT_EQ(drain(master), "");
  close(slave);
  close(master);
}

TEST(ProgressLine, WaitsBeforeShowingShortWork) {
  int master = -1, slave = -1;
  ASSERT_EQ(openpty(&master, &slave, nullptr, nullptr, nullptr), 0);
  {
    ProgressLine line("report", "ops", false, slave, /*show_after_ns=*/60'000'000'000ull);
    line.update(1, 2);
  }
  EXPECT_EQ(drain(master), "");
  close(slave);
  close(master);
}

// `fsreplay replay` of a trace whose think time lasts ~2 s: its stderr shows
// the progress line on a terminal, and nothing of it through a pipe.
class ReplayProgress : public test::ReplayDirs {
 protected:
  std::string trace_with_think_time() {
    test::Synth t;
    for (int i = 0; i < 8; ++i)
      t.add(1, 1, SYS_newfstatat, 300'000'000ull * i, 1000, 0, {test::kAtCwd, 0, 0, 0}, "/w/p");
    return write_trace(t, "/w/p");
  }
  // Runs fsreplay replay; with `tty`, its stdout and stderr are a pseudo-terminal.
  std::string run(const std::string& trace, bool tty, bool quiet = false) {
    std::vector<std::string> args = {FSR_FSREPLAY_BIN, "replay", trace, "--target",          target,
                                     "--scratch",      scratch,  "-o",  base + "/out.result"};
    if (quiet) args.push_back("--quiet");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int fd = -1;
    pid_t pid;
    if (tty) {
      pid = forkpty(&fd, nullptr, nullptr, nullptr);
    } else {
      int p[2];
      if (pipe(p) != 0) return "pipe failed";
      pid = fork();
      if (pid == 0) {
        dup2(p[1], 1);
        dup2(p[1], 2);
        close(p[0]);
        close(p[1]);
      } else {
        close(p[1]);
        fd = p[0];
      }
    }
    if (pid == 0) {
      execv(argv[0], argv.data());
      _exit(127);
    }
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
    close(fd);
    int st = 0;
    waitpid(pid, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << out;
    return out;
  }
};

TEST_F(ReplayProgress, ShownOnATerminalNotWhenPipedNorQuiet) {
  const std::string trace = trace_with_think_time();
  const std::string on_tty = run(trace, true);
  EXPECT_NE(on_tty.find("\rreplay  "), std::string::npos) << on_tty;
  EXPECT_NE(on_tty.find(" ops  "), std::string::npos) << on_tty;
  EXPECT_NE(on_tty.find("wall time"), std::string::npos) << "the summary follows";
  const std::string piped = run(trace, false);
  EXPECT_EQ(piped.find('\r'), std::string::npos) << piped;
  EXPECT_NE(piped.find("wall time"), std::string::npos) << piped;
  const std::string quiet = run(trace, true, true);
  EXPECT_EQ(quiet.find("\rreplay"), std::string::npos) << quiet;
}

}  // namespace
}  // namespace fsr

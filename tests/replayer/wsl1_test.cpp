// SPDX-License-Identifier: Apache-2.0
// Acceptance: the replay completes under the WSL1 gap filter (statx, openat2,
// copy_file_range, sync_file_range, renameat2 flags, io_uring, bpf, ptrace
// answered as WSL1 does) with the same divergence count as without it, and
// lists the fallbacks it took. The filter is installed in a forked child.
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include "replayer/session/replay.h"
#include "tests/replayer/replay_fixture.h"
#include "emulators/wsl1/wsl1_filter.h"

namespace fsr {
namespace {

using test::kAtCwd;
using test::ReplayDirs;
using test::Synth;

class Wsl1 : public ReplayDirs {};

TEST_F(Wsl1, ReplayCompletesUnderTheWsl1FilterWithTheSameDivergences) {
  Synth t;
  t.add(1, 1, SYS_statx, 10, 5, 0, {kAtCwd, 0, 0, 0x7ff}, "/w/p/f");
  t.add(1, 1, SYS_openat, 20, 5, 3, {kAtCwd, 0, O_RDONLY}, "/w/p/f");
  t.add(1, 1, SYS_openat, 30, 5, 4, {kAtCwd, 0, O_WRONLY | O_CREAT | O_TRUNC, 0644}, "/w/p/g");
  t.add(1, 1, SYS_copy_file_range, 40, 5, 4096, {3, 0, 4, 0, 4096, 0});
  t.add(1, 1, SYS_sync_file_range, 50, 5, 0, {4, 0, 4096, 2});
  t.add(1, 1, SYS_renameat2, 60, 5, 0, {kAtCwd, 0, kAtCwd, 0, RENAME_NOREPLACE}, "/w/p/g", "/w/p/h");
  t.add(1, 1, SYS_newfstatat, 70, 5, -ENOENT, {kAtCwd, 0, 0, 0}, "/w/p/f");  // a real divergence
  std::string trace =
      write_trace(t, "/w/p", {entry("/w/p", PrestateKind::kDir), entry("/w/p/f", PrestateKind::kFile, 4096)});
  auto native = run_replay(trace, options());
  ASSERT_TRUE(native.is_ok()) << native.message();
  EXPECT_EQ(native->divergences, 1u);
  EXPECT_TRUE(native->fallbacks.empty());

  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ReplayOptions o = options();
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    if (!install_wsl1_filter().is_ok()) _exit(90);
    auto r = run_replay(trace, o);
    std::string msg =
        r.is_ok() ? std::to_string(r->divergences) + " " + std::to_string(r->fallbacks.size()) : "error " + r.message();
    if (write(fds[1], msg.data(), msg.size()) < 0) _exit(91);
    _exit(0);
  }
  close(fds[1]);
  char buf[512];
  ssize_t n = read(fds[0], buf, sizeof buf);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  ASSERT_GT(n, 0);
  std::string got(buf, static_cast<size_t>(n));
  // Same divergences; statx, openat2, copy_file_range, sync_file_range, renameat2 fell back.
  EXPECT_EQ(got, "1 5") << got;
}

}  // namespace
}  // namespace fsr

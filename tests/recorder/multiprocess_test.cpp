// SPDX-License-Identifier: Apache-2.0
// Multi-process workloads are followed into every child, and nothing outside
// the recorded tree appears in the trace.
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include "tests/recorder/record_helper.h"
#include "traces/syscalls.h"

namespace fsr::test {
namespace {

// pid -> program (last exec'd path) for every process of the trace.
std::map<uint32_t, std::string> programs(const Recorded& r) {
  std::map<uint32_t, std::string> out;
  for (const Event& e : r.events)
    if (e.nr == kEvProcExec) out[e.pid] = r.str(e.path[0]);
  return out;
}

// Every pid in the trace must descend (by fork events) from the first process.
void expect_single_tree(const Recorded& r) {
  ASSERT_FALSE(r.events.empty());
  std::set<uint32_t> tree{r.reader->header().initial.pid};
  for (const Event& e : r.events) {
    EXPECT_TRUE(tree.count(e.pid)) << "event of pid " << e.pid << " (" << syscall_name(e.nr)
                                   << ") outside the recorded tree";
    if (e.nr == kEvProcFork) tree.insert(static_cast<uint32_t>(e.args[1]));
  }
}

TEST(MultiProcess, ShellPipelineEveryChildFollowed) {
  TempDir d;
  ASSERT_EQ(sh("printf 'aaaa\\n' > " + d.path() + "/in"), 0);
  Recorded r = record_command({"/bin/sh", "-c", "cd " + d.path() + " && cat in | tr a b | wc -c > out"}, d.path());
  ASSERT_TRUE(r.reader);
  EXPECT_EQ(r.summary.drops, 0u);
  expect_single_tree(r);
  auto progs = programs(r);
  std::map<std::string, uint32_t> pid_of;
  for (auto& [pid, p] : progs) pid_of[p.substr(p.rfind('/') + 1)] = pid;
  ASSERT_TRUE(pid_of.count("cat") && pid_of.count("tr") && pid_of.count("wc"))
      << "exec of every pipeline stage recorded";
  EXPECT_EQ(std::set<uint32_t>({pid_of["cat"], pid_of["tr"], pid_of["wc"]}).size(), 3u);
  bool cat_opened_in = false, out_created = false;
  for (const Event& e : r.events) {
    if (e.nr == SYS_openat && e.pid == pid_of["cat"] && r.str(e.path[0]) == d.path() + "/in" && e.ret >= 0) {
      cat_opened_in = true;
      EXPECT_EQ(e.size, 5u);
    }
    if ((e.nr == SYS_openat || e.nr == SYS_open) && r.str(e.path[0]) == d.path() + "/out" && e.ret >= 0)
      out_created = true;
  }
  EXPECT_TRUE(cat_opened_in) << "cat's cwd-relative open resolved to the absolute path";
  EXPECT_TRUE(out_created) << "the shell's redirection recorded";
  // Pipe I/O between the stages is marked.
  bool pipe_write = false;
  for (const Event& e : r.events)
    if (e.nr == SYS_write && e.pid == pid_of["cat"] && (e.flags & kEfFdIsPipe)) pipe_write = true;
  EXPECT_TRUE(pipe_write);
}

TEST(MultiProcess, MakeJ2FollowedIntoEveryRecipe) {
  TempDir d;
  std::ofstream mk(d.path() + "/Makefile");
  mk << "all: a.out b.out c.out\n"
        "%.out: %.in\n\tcp $< $@\n";
  mk.close();
  ASSERT_EQ(sh("cd " + d.path() + " && echo 1 > a.in && echo 2 > b.in && echo 3 > c.in"), 0);
  Recorded r = record_command({"make", "-s", "-j2", "-C", d.path()}, d.path());
  ASSERT_TRUE(r.reader);
  EXPECT_EQ(r.summary.exit_code, 0);
  EXPECT_EQ(r.summary.drops, 0u);
  expect_single_tree(r);
  std::set<uint32_t> cp_pids;
  for (auto& [pid, p] : programs(r))
    if (p.size() >= 3 && p.substr(p.size() - 3) == "/cp") cp_pids.insert(pid);
  EXPECT_EQ(cp_pids.size(), 3u) << "one cp per recipe";
  std::set<std::string> written;
  for (const Event& e : r.events)
    if (cp_pids.count(e.pid) && (e.nr == SYS_openat || e.nr == SYS_open) && e.ret >= 0 && (e.args[2] & O_WRONLY))
      written.insert(r.str(e.path[0]));
  EXPECT_EQ(written, (std::set<std::string>{d.path() + "/a.out", d.path() + "/b.out", d.path() + "/c.out"}));
}

TEST(MultiProcess, ConcurrentOutsiderDoesNotAppear) {
  TempDir d;
  ASSERT_EQ(sh("echo x > " + d.path() + "/f"), 0);
  std::string marker = d.path() + "/outsider";
  ASSERT_EQ(sh("echo o > " + marker), 0);
  pid_t outsider = fork();
  ASSERT_GE(outsider, 0);
  if (outsider == 0) {
    setpgid(0, 0);
    execl("/bin/sh", "sh", "-c", ("while :; do cat " + marker + " > /dev/null; done").c_str(), nullptr);
    _exit(127);
  }
  Recorded r = record_command(
      {"/bin/sh", "-c", "cd " + d.path() + " && for i in 1 2 3 4 5; do cat f > /dev/null; sleep 0.05; done"}, d.path());
  kill(-outsider, SIGKILL);
  waitpid(outsider, nullptr, 0);
  ASSERT_TRUE(r.reader);
  expect_single_tree(r);
  size_t cats = 0;
  for (const Event& e : r.events) {
    EXPECT_NE(e.pid, static_cast<uint32_t>(outsider));
    if (e.path[0]) {
      EXPECT_NE(r.str(e.path[0]), marker) << "outsider's file access recorded";
    }
    if (e.nr == kEvProcExec && r.str(e.path[0]).ends_with("/cat")) ++cats;
  }
  EXPECT_EQ(cats, 5u);
}

}  // namespace
}  // namespace fsr::test

// SPDX-License-Identifier: Apache-2.0
// --pid: a recording attached to a running tree follows it (chrooted too,
// with the paths it sees), and a filter entry of a process that exited
// before it was made does not keep the recording open.
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "recorder/core/bpf_options.h"
#include "recorder/bpf/bpf_session.h"
#include "recorder/core/initial_state.h"
#include "tests/recorder/record_helper.h"
#include "traces/syscalls.h"

namespace fsr::test {
namespace {

// Records the running tree of `p` (--pid) into DIR/pid.trace, reaping `p`;
// `opens` gets the paths of its successful openat calls.
struct Attached {
  TraceHeader header;
  std::vector<std::string> opens;
};
Attached record_pid(pid_t p, const std::string& dir) {
  Attached a;
  RecordOptions o;
  o.output = dir + "/pid.trace";
  o.root = dir;
  o.attach_pid = static_cast<uint32_t>(p);
  auto bpf = bpf_options_from_env();  // FSREPLAY_RECORD_WITHOUT: through a fallback
  EXPECT_TRUE(bpf) << bpf.message();
  if (bpf) o.bpf = bpf.value();
  std::thread reaper([p] {
    int st;
    waitpid(p, &st, 0);
  });
  auto r = record(o);
  reaper.join();
  EXPECT_TRUE(r.is_ok()) << r.message();
  auto rd = TraceReader::open(o.output);
  if (!rd.is_ok()) {
    ADD_FAILURE() << rd.message();
    return a;
  }
  a.header = rd.value()->header();
  std::vector<Event> chunk;
  while (true) {
    auto more = rd.value()->next(chunk);
    EXPECT_TRUE(more.is_ok());
    if (!more.is_ok() || !more.value()) break;
    for (const Event& e : chunk)
      if (e.nr == SYS_openat && e.ret >= 0 && e.path[0]) a.opens.emplace_back(rd.value()->str(e.path[0]));
  }
  return a;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

TEST(RecordLifecycle, PidFollowsARunningTree) {
  TempDir d;
  ASSERT_EQ(sh("echo hi > " + d.path() + "/f"), 0);
  pid_t p = fork();
  ASSERT_GE(p, 0);
  if (p == 0) {
    // cats for 4 s: however long the recorder takes to attach on a loaded
    // machine, some start after it.
    execl("/bin/sh", "sh", "-c",
          ("cd " + d.path() + " && for i in $(seq 40); do sleep 0.1; cat f > /dev/null; done").c_str(), nullptr);
    _exit(127);
  }
  Attached a = record_pid(p, d.path());
  EXPECT_TRUE(contains(a.opens, d.path() + "/f"))
      << "the cat started after attaching is followed, its relative path resolved";
}

// Mount namespaces: a workload chrooted (into a bind mount of /, in a mount
// namespace of its own) is recorded as it sees its paths: its cwd, as /proc
// shows it to the recorder, is under the bind mount; the trace has the
// workload's. (The same holds for a container's pivot_root.)
TEST(RecordLifecycle, PidOfAChrootedTreeRecordsItsOwnPaths) {
  TempDir d;
  ASSERT_EQ(sh("echo hi > " + d.path() + "/f && mkdir " + d.path() + "/R"), 0);
  pid_t p = fork();
  ASSERT_GE(p, 0);
  if (p == 0) {
    const std::string inner = "cd " + d.path() + " && for i in $(seq 40); do sleep 0.1; cat f > /dev/null; done";
    const std::string outer = "mount --make-rprivate / && mount --rbind / " + d.path() + "/R && exec chroot " +
                              d.path() + "/R sh -c '" + inner + "'";
    execl("/usr/bin/unshare", "unshare", "--mount", "sh", "-c", outer.c_str(), nullptr);
    _exit(127);
  }
  // Attach once it is chrooted: its root is no longer ours.
  for (int i = 0; i < 100 && process_root(static_cast<uint32_t>(p)) == "/"; ++i) usleep(20000);
  ASSERT_EQ(process_root(static_cast<uint32_t>(p)), d.path() + "/R");
  Attached a = record_pid(p, d.path());
  EXPECT_EQ(a.header.initial.cwd, d.path()) << "the workload's cwd, not " << d.path() << "/R/...";
  for (const std::string& path : a.opens) EXPECT_EQ(path.find(d.path() + "/R"), std::string::npos) << path;
  EXPECT_TRUE(contains(a.opens, d.path() + "/f")) << "the chrooted cat's relative open, as it saw it";
}

// A --pid tree's process can exit between the walk that finds it and its
// filter entry: the entry must not keep the recording open for ever.
TEST(RecordLifecycle, FilterEntryOfAnAlreadyExitedProcessIsDropped) {
  auto bpf = bpf_options_from_env();
  ASSERT_TRUE(bpf) << bpf.message();
  auto s = BpfSession::open(
      bpf.value(), [](void*, uint32_t, const void*, size_t, uint64_t) { return 0; }, nullptr);
  ASSERT_TRUE(s) << s.message();
  pid_t p = fork();
  ASSERT_GE(p, 0);
  if (p == 0) _exit(0);
  int st = 0;
  ASSERT_EQ(waitpid(p, &st, 0), p);
  ASSERT_TRUE(s.value()->track(static_cast<uint32_t>(p)));
  EXPECT_EQ(s.value()->tracked_count(), 1u);
  EXPECT_EQ(s.value()->forget_exited(), 1u);
  EXPECT_EQ(s.value()->tracked_count(), 0u);
}

}  // namespace
}  // namespace fsr::test

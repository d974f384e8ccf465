// SPDX-License-Identifier: Apache-2.0
// PID namespaces: `fsreplay record` run inside one (as on WSL2, in a
// container) and a workload that makes its own (a rootless container:
// unprivileged user, user + PID namespace) record the same processes and,
// within the workload's noise, the same events as outside, with every pid
// the recording's namespace's: the tree is followed by fork records, and
// what wait4 and fork-like calls return names those same processes. The
// recorder itself inside a user namespace, and a /proc of another
// namespace, are refused with a line that says what to do.
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <optional>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "tests/recorder/record_helper.h"
#include "traces/syscalls.h"
#include "traces/trace_reader.h"

namespace fsr::test {
namespace {

// The reproduction: children, a file read, one written under the root.
std::string workload(const std::string& dir) {
  return "sh -c 'ls /usr >/dev/null; cat /etc/hostname > " + dir + "/x; ls -l " + dir + " >/dev/null'";
}

// A rootless container's namespaces, made by an unprivileged user.
const char* kRootless =
    "setpriv --reuid=65534 --regid=65534 --clear-groups "
    "unshare --user --map-root-user --pid --fork --mount-proc ";

struct Trace {
  int status = -1;
  std::string err;  // fsreplay's stderr
  TraceHeader header;
  std::optional<TraceFooter> footer;
  std::vector<Event> events;
  std::map<uint32_t, std::string> program;  // pid -> last exec'd program's base name
};

// Runs `prefix fsreplay record -o T --root DIR -- cmd` through the shell and reads T.
Trace record_via_cli(const std::string& prefix, const std::string& dir, const std::string& cmd) {
  Trace t;
  const std::string out = dir + ".trace", err = dir + ".err";
  sh("rm -f '" + dir + "/x'");  // the workload's output, made anew by whoever runs it
  const std::string line =
      prefix + " " FSR_FSREPLAY_PATH " record -o " + out + " --root " + dir + " -- " + cmd + " > /dev/null 2> " + err;
  t.status = sh(line);
  std::ifstream e(err);
  std::stringstream ss;
  ss << e.rdbuf();
  t.err = ss.str();
  unlink(err.c_str());  // (also when the record failed and wrote no trace)
  auto r = TraceReader::open(out);
  if (!r) return t;
  t.header = (*r)->header();
  std::vector<Event> chunk;
  while (true) {
    auto more = (*r)->next(chunk);
    if (!more || !more.value()) break;
    t.events.insert(t.events.end(), chunk.begin(), chunk.end());
  }
  t.footer = (*r)->footer();
  for (const Event& ev : t.events)
    if (ev.nr == kEvProcExec && ev.path[0]) {
      std::string p((*r)->str(ev.path[0]));
      t.program[ev.pid] = p.substr(p.rfind('/') + 1);
    }
  unlink(out.c_str());
  return t;
}

// Processes and events of the workload itself: not of the wrappers that
// made its namespaces (setpriv, unshare). Page faults are left out: those on
// files outside the root are recorded only until the drain has seen their
// file, which depends on when it ran.
struct Counts {
  size_t processes = 0, events = 0;
};
Counts workload_counts(const Trace& t) {
  Counts c;
  std::set<uint32_t> wrappers;
  for (const auto& [pid, prog] : t.program)
    if (prog == "setpriv" || prog == "unshare") wrappers.insert(pid);
  std::set<uint32_t> pids;
  for (const Event& e : t.events)
    if (!wrappers.count(e.pid)) {
      pids.insert(e.pid);
      c.events += e.nr != kEvPageFault;
    }
  c.processes = pids.size();
  return c;
}

// Every pid of the trace descends from the first process by fork records,
// and every pid a call returned (fork-like calls, wait4) is one of them.
void expect_pids_of_one_tree(const Trace& t) {
  ASSERT_FALSE(t.events.empty());
  std::set<uint32_t> tree{t.header.initial.pid};
  for (const Event& e : t.events) {
    EXPECT_TRUE(tree.count(e.pid)) << "event of pid " << e.pid << " (" << syscall_name(e.nr) << ") outside the tree";
    if (e.nr == kEvProcFork) tree.insert(static_cast<uint32_t>(e.args[0]));
  }
  size_t waits = 0;
  for (const Event& e : t.events) {
    const bool forkish = e.nr == SYS_clone || e.nr == SYS_clone3 || e.nr == SYS_fork || e.nr == SYS_vfork;
    if ((forkish || e.nr == SYS_wait4) && e.ret > 0) {
      EXPECT_TRUE(tree.count(static_cast<uint32_t>(e.ret)))
          << syscall_name(e.nr) << " returned " << e.ret << ", no process of the trace";
      waits += e.nr == SYS_wait4;
    }
  }
  EXPECT_GE(waits, 3u) << "the shell waited for its three children";
}

bool has_choice(const Trace& t, const std::string& prefix) {
  for (const std::string& c : t.header.recorder_choices)
    if (c.rfind(prefix, 0) == 0) return true;
  return false;
}

void expect_like_outside(const Trace& inside, const Trace& outside) {
  const Counts in = workload_counts(inside), out = workload_counts(outside);
  EXPECT_EQ(in.processes, out.processes);
  EXPECT_EQ(out.processes, 4u) << "sh, ls, cat, ls";
  // The same commands: the counts differ only by what the workload does
  // differently run to run.
  EXPECT_NEAR(static_cast<double>(in.events), static_cast<double>(out.events), 0.1 * out.events)
      << "events inside " << in.events << ", outside " << out.events;
}

class PidNamespaces : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(geteuid(), 0u) << "the recorder tests load BPF programs: run them as root";
    // Writable by the unprivileged workload of the rootless cases.
    ASSERT_EQ(sh("chmod 0777 '" + dir_.path() + "'"), 0);
    outside_ = record_via_cli("", dir_.path(), workload(dir_.path()));
    ASSERT_EQ(outside_.status, 0) << outside_.err;
    ASSERT_FALSE(outside_.events.empty());
  }
  TempDir dir_;
  Trace outside_;
};

TEST_F(PidNamespaces, RecorderInsideAPidNamespaceRecordsTheSameTree) {
  Trace t = record_via_cli("unshare --pid --fork --mount-proc", dir_.path(), workload(dir_.path()));
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_TRUE(has_choice(t, "pid_namespace=below the initial one")) << t.err;
  // The recorder is the namespace's pid 1; its cost-calibration children and
  // then the workload take the next few pids of that namespace.
  EXPECT_GT(t.header.initial.pid, 1u);
  EXPECT_LT(t.header.initial.pid, 100u) << "the workload's pid is not the namespace's";
  for (const Event& e : t.events) ASSERT_LT(e.pid, 1000u) << "a pid of another namespace";
  expect_pids_of_one_tree(t);
  expect_like_outside(t, outside_);
}

// Inside a PID namespace the recorder's kernel tgid is not its pid: the
// switch program learns it, and the time the drain takes from a busy loop
// on the one CPU they share is measured all the same.
TEST_F(PidNamespaces, RecorderInsideAPidNamespaceMeasuresTheTimeItTakesFromTheWorkload) {
  Trace t = record_via_cli("taskset -c 0 unshare --pid --fork --mount-proc", dir_.path(),
                           "sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); [ -e /nonexistent ]; done; true'");
  ASSERT_EQ(t.status, 0) << t.err;
  ASSERT_TRUE(t.footer.has_value());
  ASSERT_TRUE(t.footer->stolen_measured) << t.err;
  EXPECT_GT(t.footer->gaps_ns, 0u);
  EXPECT_GT(t.footer->recorder_stolen_ns, 0u) << t.err;
  EXPECT_LT(t.footer->recorder_stolen_ns, t.footer->gaps_ns);
}

TEST_F(PidNamespaces, RootlessContainerWorkloadIsFollowedWithItsPidsMapped) {
  Trace t = record_via_cli("", dir_.path(), kRootless + workload(dir_.path()));
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_TRUE(has_choice(t, "pid_namespace=initial"));
  expect_pids_of_one_tree(t);
  expect_like_outside(t, outside_);
  EXPECT_EQ(t.err.find("not followed"), std::string::npos) << t.err;
}

TEST_F(PidNamespaces, RootlessContainerInsideTheRecordersNamespace) {
  Trace t = record_via_cli("unshare --pid --fork --mount-proc", dir_.path(), kRootless + workload(dir_.path()));
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_TRUE(has_choice(t, "pid_namespace=below the initial one"));
  expect_pids_of_one_tree(t);
  expect_like_outside(t, outside_);
}

TEST(PidNamespaceRefusals, RecorderInsideAUserNamespaceSaysToRunOutside) {
  TempDir d;
  Trace t = record_via_cli("unshare --user --map-root-user", d.path(), "true");
  EXPECT_EQ(t.status >> 8, 5) << t.err;
  EXPECT_NE(t.err.find("user namespace"), std::string::npos) << t.err;
  EXPECT_NE(t.err.find("outside"), std::string::npos) << t.err;
}

TEST(PidNamespaceRefusals, ProcOfAnotherNamespaceIsRefused) {
  TempDir d;
  Trace t = record_via_cli("unshare --pid --fork", d.path(), "true");
  EXPECT_NE(t.status, 0);
  EXPECT_NE(t.err.find("--mount-proc"), std::string::npos) << t.err;
}

// Exit codes follow the error's kind, not its wording: a --root that does not
// exist is an error (1), although its message names "--root".
TEST(RecordExitCodes, MissingRootDirectoryIsAnErrorNotAMissingPrivilege) {
  TempDir d;
  Trace t = record_via_cli("", d.path() + "/does-not-exist", "true");
  EXPECT_EQ(t.status >> 8, 1) << t.err;
  EXPECT_NE(t.err.find("--root"), std::string::npos) << t.err;
}

TEST(KernelFeatureRefusals, MissingRequiredTracepointIsNamed) {
  TempDir d;
  Trace t = record_via_cli("FSREPLAY_RECORD_WITHOUT=tp_btf/sched_process_fork", d.path(), "true");
  EXPECT_EQ(t.status >> 8, 5) << t.err;
  EXPECT_NE(t.err.find("the kernel lacks tp_btf/sched_process_fork"), std::string::npos) << t.err;
}

}  // namespace
}  // namespace fsr::test

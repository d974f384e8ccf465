// SPDX-License-Identifier: Apache-2.0
#include "report/stats.h"

#include <gtest/gtest.h>

#include "tests/report/test_results.h"

namespace fsr {
namespace {

TEST(DirKey, GroupsBelowRootAtDepth) {
  EXPECT_EQ(dir_key("/w/proj/node_modules/react/index.js", "/w/proj", 2), "node_modules/react");
  EXPECT_EQ(dir_key("/w/proj/node_modules/react/lib/a.js", "/w/proj", 2), "node_modules/react");
  EXPECT_EQ(dir_key("/w/proj/node_modules/react/lib/a.js", "/w/proj", 1), "node_modules");
  EXPECT_EQ(dir_key("/w/proj/README", "/w/proj", 2), ".");
  EXPECT_EQ(dir_key("/w/proj", "/w/proj", 2), ".");
  EXPECT_EQ(dir_key("/w/proj/src", "/w/proj/", 2), ".");
  EXPECT_EQ(dir_key("/usr/lib/x86_64/libc.so", "/w/proj", 2), "/usr/lib");
  EXPECT_EQ(dir_key("/w/projector/a/b", "/w/proj", 2), "/w/projector");
  EXPECT_EQ(dir_key("", "/w/proj", 2), "(no path)");
  EXPECT_EQ(dir_key("/etc", "/", 2), ".");
  // A process's /proc directory is one key whatever the pid (two runs of a
  // workload differ in pids only: the behaviour diff must not list them).
  EXPECT_EQ(dir_key("/proc/19064/status", "/w/proj", 2), "/proc/<pid>");
  EXPECT_EQ(dir_key("/proc/22072/fd/3", "/w/proj", 3), "/proc/<pid>/fd");
  EXPECT_EQ(dir_key("/proc/self/status", "/w/proj", 2), "/proc/self");
  EXPECT_EQ(dir_key("/w/proj/proc/123/x", "/w/proj", 2), "proc/123");
}

TEST(ProcessNames, ExecRenamesThePidFromThatOpOn) {
  ResultSet rs;
  rs.header.command = {"/bin/sh", "-c", "make"};
  rs.header.initial.pid = 10;
  const StrId make = 1, cc = 2;
  rs.strings = {{make, "/usr/bin/make"}, {cc, "/usr/bin/cc"}};
  auto op = [](uint64_t ev, uint32_t pid, uint16_t nr, StrId path) {
    OpRecord o;
    o.event_index = ev;
    o.pid = pid;
    o.nr = nr;
    o.path = path;
    return o;
  };
  // Stored out of trace order on purpose: names follow event_index.
  rs.ops = {op(4, 11, 4, 0), op(0, 10, 4, 0), op(1, 10, kEvProcExec, make),
            op(2, 10, 4, 0), op(3, 11, 4, 0), op(5, 11, kEvProcExec, cc),
            op(6, 11, 4, 0)};
  auto names = process_names(rs);
  EXPECT_EQ(names, (std::vector<std::string>{"(unknown)", "sh", "make", "make", "(unknown)", "cc", "cc"}));
}

TEST(ComputeStats, CountsPerClassProcessAndDirSkippingUnissuedOps) {
  ResultSet rs = testdata::small_result(/*slow=*/false);
  ResultStats st = compute_stats(rs, {.dir_depth = 1});
  uint64_t in_hist = 0;
  for (auto& h : st.by_class) in_hist += h.count();
  EXPECT_EQ(st.ops, rs.ops.size());
  EXPECT_EQ(in_hist + st.skipped, st.ops);
  EXPECT_EQ(st.skipped, 1u);
  const auto& stat = st.by_class[static_cast<size_t>(SyscallClass::kStat)];
  EXPECT_GT(stat.count(), 0u);
  uint64_t stat_sum = 0, stat_n = 0;
  for (const OpRecord& op : rs.ops)
    if (class_of(op.nr) == SyscallClass::kStat && !(op.flags & kOfSkipped)) stat_sum += op.latency, ++stat_n;
  EXPECT_EQ(stat.count(), stat_n);
  EXPECT_EQ(stat.sum(), stat_sum);
  EXPECT_TRUE(st.by_process.count("git"));
  EXPECT_TRUE(st.by_process.count("node"));
  EXPECT_TRUE(st.by_dir.count("src"));
  EXPECT_TRUE(st.by_dir.count("node_modules"));
  uint64_t proc_total = 0, dir_total = 0;
  for (auto& [k, h] : st.by_process) proc_total += h.count();
  for (auto& [k, h] : st.by_dir) dir_total += h.count();
  EXPECT_EQ(proc_total, in_hist);
  EXPECT_EQ(dir_total, in_hist);
}

}  // namespace
}  // namespace fsr

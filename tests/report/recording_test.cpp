// SPDX-License-Identifier: Apache-2.0
// Recordings as first-class inputs (issue 41 item 2): a trace given to
// report or compare is read as a recording (its calls at their recorded
// times and durations, its span as wall), and two recordings of one workload
// made on two mounts are compared with the behaviour diff: where the
// workload itself did different work.
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/report/golden.h"
#include "report/compare.h"
#include "report/render.h"
#include "report/render_json.h"
#include "report/render_text.h"
#include "report/result_set.h"
#include "report/result_summary.h"
#include "report/same_trace.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace fsr {
namespace {

constexpr uint64_t kAtFdcwd = static_cast<uint64_t>(-100);

struct Call {
  uint32_t tid;
  uint16_t nr;
  uint64_t ts, dur;
  int64_t ret;
  std::string path;
};

// One run of a small build on a mount: `stats` stats of sources (git's
// racy re-reads make more on a slow mount), `probes` xattr probes (ls stops
// after the mount's first EOPNOTSUPP), each call `us` µs.
std::vector<Call> run_of(int stats, int probes, uint64_t us) {
  std::vector<Call> v;
  uint64_t t = 1'000;
  auto add = [&](uint32_t tid, uint16_t nr, int64_t ret, const std::string& path) {
    v.push_back({tid, nr, t, us * 1'000, ret, path});
    t += us * 1'000 + 500;
  };
  add(1, SYS_execve, 0, "/usr/bin/git");
  for (int i = 0; i < stats; ++i) add(1, SYS_newfstatat, 0, "/w/p/src/f" + std::to_string(i % 25) + ".c");
  for (int i = 0; i < 10; ++i) {
    add(1, SYS_openat, 3, "/w/p/src/f" + std::to_string(i) + ".c");
    add(1, SYS_read, 100, "");
    add(1, SYS_close, 0, "");
  }
  for (int i = 0; i < probes; ++i) add(2, SYS_lgetxattr, -61, "/w/p/out/o" + std::to_string(i));
  for (int i = 0; i < 5; ++i) add(2, SYS_mkdir, 0, "/w/p/out/d" + std::to_string(i));
  return v;
}

class Recordings : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const std::string& f : files_) std::remove(f.c_str());
  }
  // Writes `calls` as a trace recorded at /w/p on a mount of `fs_type`; its path.
  std::string write(const std::string& name, const std::vector<Call>& calls, const std::string& fs_type) {
    const std::string path =
        (std::filesystem::temp_directory_path() / (name + "." + std::to_string(::getpid()) + ".trace")).string();
    files_.push_back(path);
    TraceHeader h;
    h.kind = PayloadKind::kTrace;
    h.hostname = "host";
    h.command = {"git", "status"};
    h.root = "/w/p";
    h.initial.pid = 1;
    h.initial.cwd = "/w/p";
    MountEntry root_fs, w;
    root_fs.mount_point = "/";
    root_fs.fs_type = "ext4";
    w.mount_point = "/w";
    w.fs_type = fs_type;
    h.mounts = {root_fs, w};
    auto wr = TraceWriter::create(path, h);
    EXPECT_TRUE(wr.is_ok()) << wr.message();
    if (!wr.is_ok()) return path;
    TraceFooter f;
    for (const Call& c : calls) {
      Event e;
      e.ts = c.ts;
      e.dur = c.dur;
      e.ret = c.ret;
      e.pid = 1;
      e.tid = c.tid;
      e.nr = c.nr;
      if (c.nr == SYS_newfstatat || c.nr == SYS_openat) e.args[0] = kAtFdcwd;
      if (c.nr == SYS_read || c.nr == SYS_close) e.args[0] = 3;
      if (!c.path.empty()) e.path[0] = (*wr)->intern(c.path);
      EXPECT_TRUE((*wr)->append(e).is_ok());
      f.end_ns = c.ts + c.dur;
    }
    f.end_ns += 20'000;
    EXPECT_TRUE((*wr)->finish(f).is_ok());
    return path;
  }
  // Its summary as a report reads it, named by `file` (not the temporary path).
  ResultSummary summary(const std::string& path, const std::string& file) {
    auto s = summarize_result(path, {}, nullptr);
    EXPECT_TRUE(s.is_ok()) << s.message();
    ResultSummary r = s.is_ok() ? std::move(s.value()) : ResultSummary{};
    r.file = file;
    r.header.source_trace = file;
    r.header.source_trace_id = 0;  // (its bytes' hash: not what the golden files are about)
    return r;
  }
  std::vector<std::string> files_;
};

TEST_F(Recordings, ATraceLoadsAsItsRecordedCalls) {
  const std::vector<Call> calls = run_of(30, 40, 2);
  const std::string path = write("fast", calls, "ext4");
  auto rs = load_result(path);
  ASSERT_TRUE(rs.is_ok()) << rs.message();
  EXPECT_TRUE(rs->recording);
  EXPECT_TRUE(rs->complete);
  EXPECT_EQ(rs->header.target, "/w/p");
  EXPECT_EQ(rs->header.source_trace, path);
  EXPECT_NE(rs->header.source_trace_id, 0u);
  EXPECT_EQ(rs->label(), "/w/p (recording, ext4)");
  // The events as the trace reader gives them (times as the format keeps them).
  auto reader = TraceReader::open(path);
  ASSERT_TRUE(reader.is_ok()) << reader.message();
  std::vector<Event> ev, chunk;
  for (;;) {
    auto more = (*reader)->next(chunk);
    ASSERT_TRUE(more.is_ok()) << more.message();
    if (!*more) break;
    ev.insert(ev.end(), chunk.begin(), chunk.end());
  }
  ASSERT_EQ(ev.size(), calls.size());
  ASSERT_EQ(rs->ops.size(), calls.size());
  std::map<uint32_t, uint64_t> end_of;  // per thread, its previous call's end
  for (size_t i = 0; i < calls.size(); ++i) {
    const OpRecord& op = rs->ops[i];
    EXPECT_EQ(op.event_index, i);
    EXPECT_EQ(op.start, ev[i].ts);
    EXPECT_NEAR(double(op.start), double(calls[i].ts), 0.01 * double(calls[i].ts) + 16);
    EXPECT_EQ(op.latency, ev[i].dur);
    EXPECT_EQ(op.recorded_dur, ev[i].dur);
    EXPECT_EQ(op.ret, calls[i].ret);
    EXPECT_EQ(op.recorded_ret, calls[i].ret);
    EXPECT_EQ(op.tid, calls[i].tid);
    EXPECT_EQ(op.nr, calls[i].nr);
    EXPECT_EQ(rs->str(op.path), calls[i].path);
    // The gap: since the thread's previous call ended (a thread's first: 0).
    const auto prev = end_of.find(op.tid);
    EXPECT_EQ(op.gap, prev == end_of.end() ? 0 : ev[i].ts - prev->second) << i;
    end_of[op.tid] = ev[i].ts + ev[i].dur;
  }
  EXPECT_GT(rs->ops[1].gap, 0u);
  // Wall: the recording's span (its footer's end).
  EXPECT_EQ(rs->wall_ns(), rs->footer->end_ns);
  EXPECT_GE(rs->wall_ns(), ev.back().ts + ev.back().dur);
}

TEST_F(Recordings, AReportOfARecordingMatchesGolden) {
  const ResultSummary s = summary(write("fast", run_of(30, 40, 2), "ext4"), "fast.trace");
  const std::string text = render_report(s, nullptr, OutputFormat::kText, {});
  EXPECT_NE(text.find("/w/p (recording, ext4)"), std::string::npos) << text;
  EXPECT_EQ(testdata::check_golden("report_recording.txt", text), "");
}

TEST_F(Recordings, TwoRecordingsOnTwoMountsShowTheirBehaviourDiff) {
  const ResultSummary fast = summary(write("fast", run_of(30, 40, 2), "ext4"), "fast.trace");
  const ResultSummary slow = summary(write("slow", run_of(60, 1, 900), "9p"), "slow.trace");
  const Comparison c = compare_summaries({&fast, &slow});
  ASSERT_TRUE(c.behaviour_compared);
  // stat 30 -> 60 and xattr 40 -> 1 differ; open, read, close, mkdir do not.
  auto row = [&](const std::string& kind, const std::string& key) -> const BehaviourRow* {
    for (const BehaviourRow& r : c.behaviour)
      if (r.kind == kind && r.key == key) return &r;
    return nullptr;
  };
  const BehaviourRow* stat = row("class", "stat");
  const BehaviourRow* xattr = row("class", "xattr");
  ASSERT_NE(stat, nullptr);
  ASSERT_NE(xattr, nullptr);
  EXPECT_EQ(stat->calls, (std::vector<uint64_t>{30, 60}));
  EXPECT_EQ(xattr->calls, (std::vector<uint64_t>{40, 1}));
  for (const char* same : {"open", "read", "close", "mkdir"}) EXPECT_EQ(row("class", same), nullptr) << same;
  EXPECT_NE(row("directory", "out"), nullptr);  // the probes' directory: 45 -> 6
  EXPECT_NE(row("directory", "src"), nullptr);  // 40 -> 70
  // Largest difference first.
  ASSERT_FALSE(c.behaviour.empty());
  EXPECT_EQ(c.behaviour.front().calls, (std::vector<uint64_t>{40, 1}));
  const std::string text = render_compare_text(c);
  EXPECT_NE(text.find("Behaviour diff"), std::string::npos) << text;
  EXPECT_EQ(testdata::check_golden("compare_recordings.txt", text), "");
  EXPECT_EQ(testdata::check_golden("compare_recordings.json", compare_to_json(c).dump(2) + "\n"), "");
  const auto html = render_compare(std::vector<const ResultSummary*>{&fast, &slow}, OutputFormat::kHtml, {});
  ASSERT_TRUE(html.is_ok()) << html.message();
  EXPECT_NE(html->find("<table id=\"behaviour-diff\">"), std::string::npos);
  EXPECT_NE(html->find("<td class=\"k\">xattr</td><td>40</td><td>1</td>"), std::string::npos);
}

TEST_F(Recordings, RecordingsThatMadeTheSameCallsHaveNoBehaviourDiff) {
  const ResultSummary fast = summary(write("fast", run_of(30, 40, 2), "ext4"), "fast.trace");
  const ResultSummary slow = summary(write("slow", run_of(30, 40, 900), "9p"), "slow.trace");
  const Comparison c = compare_summaries({&fast, &slow});
  EXPECT_TRUE(c.behaviour_compared);
  EXPECT_TRUE(c.behaviour.empty());
  EXPECT_NE(render_compare_text(c).find("none: the recordings made the same calls"), std::string::npos);
  // One recording beside replay results: no behaviour diff is computed.
  const Comparison one = compare_summaries({&fast});
  EXPECT_FALSE(one.behaviour_compared);
  EXPECT_EQ(render_compare_text(one).find("Behaviour diff"), std::string::npos);
}

// Two recordings are two runs, not a mix-up; a replay result of another
// trace beside a recording still is.
TEST_F(Recordings, TwoRecordingsPassTheSameTraceCheckAResultOfAnotherTraceDoesNot) {
  auto a = read_result_meta(write("fast", run_of(30, 40, 2), "ext4"));
  auto b = read_result_meta(write("slow", run_of(60, 1, 900), "9p"));
  ASSERT_TRUE(a.is_ok() && b.is_ok());
  ASSERT_NE(a->header.source_trace_id, b->header.source_trace_id);
  std::vector<std::string> warnings;
  EXPECT_TRUE(check_same_trace({&*a, &*b}, false, warnings).is_ok());
  EXPECT_FALSE(b->different_trace);
  EXPECT_TRUE(warnings.empty());
  ResultMeta replay;
  replay.file = "other.result";
  replay.header.source_trace = "/t/other.trace";
  replay.header.source_trace_id = 0x1111222233334444ull;
  EXPECT_FALSE(check_same_trace({&*a, &replay}, false, warnings).is_ok());
  // A replay of the recording itself is its trace's: the fidelity check.
  replay.header.source_trace_id = a->header.source_trace_id;
  EXPECT_TRUE(check_same_trace({&*a, &replay}, false, warnings).is_ok());
}

}  // namespace
}  // namespace fsr

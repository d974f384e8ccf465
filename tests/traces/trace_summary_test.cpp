// SPDX-License-Identifier: Apache-2.0
// summarise over small written traces: what inspect reports about a thread
// whose calls overlap (a recording never has one; a damaged or hand-made
// trace may), and that pseudo events of no duration at a call's enter time
// do not count as overlap.
#include "traces/trace_summary.h"

#include <gtest/gtest.h>

#include <csignal>

#include "tests/traces/test_util.h"
#include "traces/trace_writer.h"

namespace fsr {
namespace {

Event ev(uint32_t tid, uint16_t nr, uint64_t ts, uint64_t dur) {
  Event e;
  e.pid = 10;
  e.tid = tid;
  e.nr = nr;
  e.ts = ts;
  e.dur = dur;
  return e;
}

TraceSummary summarise_events(const std::vector<Event>& events, const TraceFooter& footer = {},
                              const TraceHeader& header = test::sample_header()) {
  test::TempFile f;
  {
    auto w = TraceWriter::create(f.path(), header);
    EXPECT_TRUE(w) << w.message();
    for (const Event& e : events) EXPECT_TRUE((*w)->append(e).is_ok());
    EXPECT_TRUE((*w)->finish(footer).is_ok());
  }
  auto s = summarise(f.path());
  EXPECT_TRUE(s) << s.message();
  return s ? s.value() : TraceSummary{};
}

TEST(TraceSummary, CountsCallsEnteredBeforeTheirThreadsPreviousReturned) {
  // Thread 11: an exec marker inside its execve, in submission order (the
  // marker ends first): the execve entered before the marker "returned".
  auto s = summarise_events({ev(11, 0, 1000, 100), ev(12, 0, 1050, 10), ev(11, kEvProcExec, 5000, 10),
                             ev(11, 59, 4000, 2000), ev(12, 0, 1100, 5)});
  EXPECT_EQ(s.overlapping_calls, 1u);
  EXPECT_NE(s.first_overlap.find("thread 11 entered execve"), std::string::npos) << s.first_overlap;
  EXPECT_NE(summary_to_json(s).find("\"overlapping_calls\": 1"), std::string::npos);
  EXPECT_NE(summary_to_text(s).find("overlapping calls: 1"), std::string::npos);
}

TEST(TraceSummary, MarkersAtTheEnterTimeOfTheirCallDoNotOverlap) {
  // As the recorder writes them: the marker takes the execve's enter time and
  // no duration; touching ends (gap 0) are not overlap.
  auto s = summarise_events(
      {ev(11, 0, 1000, 100), ev(11, kEvProcExec, 4000, 0), ev(11, 59, 4000, 2000), ev(11, 0, 6000, 5)});
  EXPECT_EQ(s.overlapping_calls, 0u) << s.first_overlap;
  EXPECT_EQ(summary_to_text(s).find("overlapping calls"), std::string::npos);
}

TraceFooter exited(int wait_status) {
  TraceFooter f;
  f.exit_status = wait_status;
  return f;
}

// The workload's `exit 3` is a wait status of 768: inspect shows 3.
TEST(TraceSummary, ShowsTheWorkloadsExitCodeNotItsWaitStatus) {
  auto s = summarise_events({ev(11, 0, 1000, 100)}, exited(3 << 8));
  EXPECT_NE(summary_to_text(s).find("exit status        exit 3\n"), std::string::npos) << summary_to_text(s);
  const std::string j = summary_to_json(s);
  EXPECT_NE(j.find("\"exit_code\": 3,"), std::string::npos) << j;
  EXPECT_NE(j.find("\"exit_signal\": null"), std::string::npos) << j;
  EXPECT_NE(j.find("\"exit_status\": 768"), std::string::npos) << "the raw field stays for older readers";
}

TEST(TraceSummary, ShowsTheSignalThatKilledTheWorkload) {
  auto s = summarise_events({ev(11, 0, 1000, 100)}, exited(SIGINT));  // as waitpid gives it
  EXPECT_NE(summary_to_text(s).find("exit status        killed by SIGINT\n"), std::string::npos) << summary_to_text(s);
  const std::string j = summary_to_json(s);
  EXPECT_NE(j.find("\"exit_code\": null"), std::string::npos) << j;
  EXPECT_NE(j.find("\"exit_signal\": \"SIGINT\""), std::string::npos) << j;
}

TEST(TraceSummary, AnAttachedRecordingHasNoExitStatus) {
  TraceHeader h = test::sample_header();
  h.command = {"--pid 1234"};
  auto s = summarise_events({ev(11, 0, 1000, 100)}, exited(0), h);
  EXPECT_NE(summary_to_text(s).find("exit status        not known (--pid"), std::string::npos) << summary_to_text(s);
  const std::string j = summary_to_json(s);
  EXPECT_NE(j.find("\"exit_code\": null"), std::string::npos) << j;
  EXPECT_NE(j.find("\"exit_signal\": null"), std::string::npos) << j;
}

}  // namespace
}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// The recorder's own cost (recorder/bpf/record_cost.h): measured at record time
// against the live programs, stored in the trace header, read back; the
// calibration's calls never reach the trace or its counters.
#include <sched.h>
#include <gtest/gtest.h>

#include <fstream>

#include "recorder/bpf/fault_cost.h"
#include "recorder/bpf/record_cost.h"
#include "tests/recorder/record_helper.h"
#include "traces/syscalls.h"

namespace fsr::test {
namespace {

TEST(RecordCost, IsMeasuredStoredAndReadBack) {
  TempDir d;
  Recorded r = record_command({"/bin/sh", "-c", "cat /etc/hostname > /dev/null"}, d.path());
  ASSERT_TRUE(r.reader);
  const RecordCost& c = r.reader->header().record_cost;
  ASSERT_TRUE(c.present) << "no recorder cost in the header: " << ::testing::PrintToString(r.summary.warnings);
  EXPECT_GT(c.samples, 0u);
  EXPECT_NE(c.method.find("calibration child"), std::string::npos) << c.method;
  // Every class has a figure (measured, or the median of the measured ones),
  // and none is absurd: a few µs at most for work of a few hundred ns.
  for (int k = 0; k < kClassCount; ++k) {
    EXPECT_LT(c.gap_ns[k], 50'000u) << class_name(static_cast<SyscallClass>(k));
    EXPECT_LT(c.dur_ns[k], 50'000u) << class_name(static_cast<SyscallClass>(k));
  }
  // What recording adds to a stat's duration is a difference of medians,
  // clamped at 0: on a busy machine it can be 0 (CI saw it), so only its
  // bound above is asserted. The gaps carry the record's submission: their
  // sum over the classes is measured, not defaulted.
  uint64_t gaps = 0;
  for (int k = 0; k < kClassCount; ++k) gaps += c.gap_ns[k];
  EXPECT_GT(gaps, 0u) << "every class's recorder gap is 0: the calibration measured nothing";
}

TEST(RecordCost, CalibrationCallsAreNotTheWorkloads) {
  TempDir d;
  Recorded r = record_command({"/bin/true"}, d.path());
  ASSERT_TRUE(r.reader);
  ASSERT_TRUE(r.reader->header().record_cost.present) << ::testing::PrintToString(r.summary.warnings);
  ASSERT_TRUE(r.reader->footer().has_value());
  // The calibration made ~2,400 fstats and 1,200 opens; /bin/true makes a few.
  const auto stat = static_cast<size_t>(SyscallClass::kStat), open = static_cast<size_t>(SyscallClass::kOpen);
  std::array<uint64_t, kClassCount> in_trace{};
  for (const Event& e : r.events) {
    if (e.nr < kMaxSyscallNr) ++in_trace[static_cast<size_t>(class_of(e.nr))];
    for (StrId p : e.path)
      if (p != kNoStr) {
        EXPECT_EQ(r.str(p).find("fsreplay-record-cost"), std::string::npos) << r.str(p);
      }
  }
  const TraceFooter& f = *r.reader->footer();
  EXPECT_EQ(f.seen[stat], in_trace[stat] + f.drops[stat]);
  EXPECT_EQ(f.seen[open], in_trace[open] + f.drops[open]);
  EXPECT_LT(f.seen[stat], 200u);
}

// The CPU time the recorder's threads take from the workload: with the
// recorder and a busy shell loop on one CPU, the drain can only run by taking
// it from the loop, between its calls. Measured, stored in the footer, no
// more than the recorder's CPU time; the gaps it lies in are summed.
TEST(RecordCost, TheTimeTheRecorderTakesFromTheWorkloadIsMeasured) {
  cpu_set_t was, one;
  ASSERT_EQ(sched_getaffinity(0, sizeof was, &was), 0);
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  TempDir d;
  Recorded r = record_command(
      {"/bin/sh", "-c", "i=0; while [ $i -lt 30000 ]; do i=$((i+1)); [ -e /nonexistent ]; done"}, d.path());
  sched_setaffinity(0, sizeof was, &was);
  ASSERT_TRUE(r.reader);
  ASSERT_TRUE(r.reader->footer().has_value());
  const TraceFooter& f = *r.reader->footer();
  ASSERT_TRUE(f.stolen_measured) << ::testing::PrintToString(r.summary.warnings);
  EXPECT_GT(f.gaps_ns, 0u);
  EXPECT_LT(f.gaps_ns, f.end_ns);  // one thread at a time
  EXPECT_GT(f.recorder_stolen_ns, 0u) << "drain CPU " << r.summary.drain_cpu_ns << " ns";
  EXPECT_LE(f.recorder_stolen_ns, r.summary.drain_cpu_ns + 2'000'000) << "the recorder cannot take more than it ran";
  EXPECT_LT(f.recorder_stolen_ns, f.gaps_ns);
}

// What the fault programs cost a workload: measured per kind of fault at
// record time (the header), the workload's faults counted (the footer: the
// calibration's thousands left out), and their programs' time in the gaps
// estimated from both, which replays take out with the recorder's threads'.
TEST(RecordCost, AWorkloadsPageFaultsAreCountedAndWhatTheirProgramsCostIsStored) {
  TempDir d;
  const std::string file = d.path() + "/mapped.bin";
  {
    std::ofstream o(file, std::ios::binary);
    const std::string page(4096, 'x');
    for (int k = 0; k < 64; ++k) o << page;
  }
  constexpr int kRounds = 4;
  Recorded r = record_command({FSR_MAPPER_PATH, std::to_string(kRounds), "0", file}, d.path());
  ASSERT_TRUE(r.reader);
  const RecordCost& c = r.reader->header().record_cost;
  ASSERT_TRUE(c.present) << ::testing::PrintToString(r.summary.warnings);
  ASSERT_NE(c.method.find("page faults: the fault programs' run time"), std::string::npos) << c.method;
  for (int k = 0; k < RecordCost::kFaultKinds; ++k) {
    EXPECT_GT(c.fault_ns[k], 0u) << "fault kind " << k << ": " << c.method;
    EXPECT_LT(c.fault_ns[k], 50'000u) << "fault kind " << k;
  }
  ASSERT_TRUE(r.reader->footer().has_value());
  const TraceFooter& f = *r.reader->footer();
  uint64_t fault_events = 0;
  for (const Event& e : r.events) fault_events += e.nr == kEvPageFault;
  // Every round's child reads the 64 pages of a file under the root: at
  // least one fault-around of 16 pages per 16.
  EXPECT_GE(fault_events, uint64_t{kRounds} * 4);
  EXPECT_EQ(f.fault_records, fault_events);
  EXPECT_GE(f.user_faults, f.fault_records);
  EXPECT_LT(f.user_faults, 4'000u) << "the calibration's ~6,000 touches are not the workload's";
  EXPECT_EQ(f.fault_cost_ns, fault_cost_ns(c, f.user_faults, f.fault_records, f.fault_skips));
  EXPECT_GT(f.fault_cost_ns, 0u);
}

TEST(RecordCost, FaultCostChargesEveryFaultItsProgramsAndRecordsAndSkipsWhatTheyCostMore) {
  RecordCost c;
  c.fault_ns = {50, 400, 200};
  EXPECT_EQ(fault_cost_ns(c, 100, 10, 20), 0u) << "not measured: nothing";
  c.present = true;
  EXPECT_EQ(fault_cost_ns(c, 100, 10, 20), 100u * 50 + 10 * 350 + 20 * 150);
  c.fault_ns = {50, 40, 0};  // a kind measured below the anonymous one adds nothing
  EXPECT_EQ(fault_cost_ns(c, 100, 10, 20), 100u * 50);
}

}  // namespace
}  // namespace fsr::test

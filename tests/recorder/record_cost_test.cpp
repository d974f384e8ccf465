// The recorder's own cost (recorder/record_cost.h): measured at record time
// against the live programs, stored in the trace header, read back; the
// calibration's calls never reach the trace or its counters.
#include <gtest/gtest.h>

#include "tests/recorder/record_helper.h"
#include "traces/syscalls.h"

namespace fsr::test {
namespace {

TEST(RecordCost, IsMeasuredStoredAndReadBack) {
  TempDir d;
  Recorded r = record_command({"/bin/sh", "-c", "cat /etc/hostname > /dev/null"}, d.path());
  ASSERT_TRUE(r.reader);
  const RecordCost& c = r.reader->header().record_cost;
  ASSERT_TRUE(c.present) << "no recorder cost in the header: " << r.summary.warnings;
  EXPECT_GT(c.samples, 0u);
  EXPECT_NE(c.method.find("calibration child"), std::string::npos) << c.method;
  // Every class has a figure (measured, or the median of the measured ones),
  // and none is absurd: a few µs at most for work of a few hundred ns.
  for (int k = 0; k < kClassCount; ++k) {
    EXPECT_LT(c.gap_ns[k], 50'000u) << class_name(static_cast<SyscallClass>(k));
    EXPECT_LT(c.dur_ns[k], 50'000u) << class_name(static_cast<SyscallClass>(k));
  }
  // Recording builds its record between the two timestamps: what it adds to
  // a stat's duration is not nothing in every sample, so its median is above 0.
  EXPECT_GT(c.dur_ns[static_cast<size_t>(SyscallClass::kStat)], 0u);
}

TEST(RecordCost, CalibrationCallsAreNotTheWorkloads) {
  TempDir d;
  Recorded r = record_command({"/bin/true"}, d.path());
  ASSERT_TRUE(r.reader);
  ASSERT_TRUE(r.reader->header().record_cost.present) << r.summary.warnings;
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

}  // namespace
}  // namespace fsr::test

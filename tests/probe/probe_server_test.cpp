// SPDX-License-Identifier: Apache-2.0
// probe's server part on a local directory (no root): every sweep point is
// there, the model is fitted, the bandwidths measured and the files gone;
// without it (--quick) the profile has no model; the sweep's windows under
// its deadline (arithmetic).
#include <gtest/gtest.h>

#include <iostream>
#include <set>
#include <tuple>

#include "tests/probe/probe_fixture.h"
#include "probe/server_sweep.h"
#include "probe/prober.h"

namespace fsr {
namespace {

using test::quick;
using test::Tmp;

bool refused_direct(const Profile& p) {
  for (const std::string& n : p.notes)
    if (n.find("O_DIRECT refused") != std::string::npos) return true;
  return false;
}

TEST(ProbeServer, WritesAModelWithEverySweepPointAndRemovesItsFiles) {
  Tmp t;
  ProbeOptions o = quick(t.dir);
  o.measure_server = true;
  auto p = run_probe(o);
  ASSERT_TRUE(p) << p.message();
  EXPECT_TRUE(t.empty()) << "the probe left files in " << t.dir;
  const ServerModel& m = p->server;
  EXPECT_TRUE(m.measured()) << m.fit_note;
  EXPECT_GT(m.service_ns, 0u);
  EXPECT_FALSE(m.fit_note.empty());
  const bool direct = !refused_direct(*p);
  const std::tuple<ProbeKind, uint64_t, bool> cases[] = {
      {ProbeKind::kStat, 0, false},        {ProbeKind::kOpenFile, 0, false},      {ProbeKind::kRead, 4096, false},
      {ProbeKind::kOpenCreate, 0, false},  {ProbeKind::kUnlink, 0, false},        {ProbeKind::kReadSeq, 4096, false},
      {ProbeKind::kReadSeq, 4096, true},   {ProbeKind::kReadSeq, 1 << 20, false}, {ProbeKind::kReadSeq, 1 << 20, true},
      {ProbeKind::kWrite, 1 << 20, false}, {ProbeKind::kWrite, 1 << 20, true}};
  std::set<std::tuple<ProbeKind, uint64_t, bool, uint32_t>> seen;
  for (const ConcurrencyPoint& c : m.sweep) {
    EXPECT_GT(c.ops, 0u);
    EXPECT_GT(c.wall_ns, 0u);
    EXPECT_GT(c.median_ns, 0u);
    seen.insert({c.kind, c.param, c.direct, c.streams});
  }
  for (const auto& [kind, param, is_direct] : cases) {
    if (is_direct && !direct) continue;
    for (uint32_t n : kSweepStreams) {
      EXPECT_TRUE(seen.count({kind, param, is_direct, n})) << sweep_kind_label(kind, param, is_direct) << " at " << n
                                                           << " streams; notes " << ::testing::PrintToString(p->notes);
    }
  }
  EXPECT_GT(m.read_bw_buffered, 0u);
  EXPECT_GT(m.write_bw_buffered, 0u);
  if (direct) {
    EXPECT_GT(m.read_bw_direct, 0u);
    EXPECT_GT(m.write_bw_direct, 0u);
  } else {
    std::cout << "O_DIRECT refused on " << t.dir << ": direct points not checked\n";
  }
  // inspect shows them.
  const std::string text = profile_to_text(*p);
  EXPECT_NE(text.find("  fit        " + m.fit_note), std::string::npos) << text;
  EXPECT_NE(text.find("read-seq 1 MiB"), std::string::npos) << text;
}

TEST(ProbeServer, QuickWritesNoModel) {
  Tmp t;
  auto p = run_probe(quick(t.dir));  // measure_server = false, as probe --quick sets it
  ASSERT_TRUE(p) << p.message();
  EXPECT_FALSE(p->server.measured());
  EXPECT_TRUE(p->server.sweep.empty());
  EXPECT_EQ(
      p->server.read_bw_direct + p->server.write_bw_direct + p->server.read_bw_buffered + p->server.write_bw_buffered,
      0u);
  EXPECT_NE(profile_to_text(*p).find("server     not measured"), std::string::npos);
}

TEST(ProbeServer, SweepWindowsShareWhatIsLeftOfTheDeadline) {
  constexpr uint64_t kS = 1'000'000'000;
  EXPECT_DOUBLE_EQ(sweep_point_window_s(0, 10 * kS, 40), 0.25);
  // The setup took 2 s: the points get the 8 s left, not 10.
  EXPECT_DOUBLE_EQ(sweep_point_window_s(2 * kS, 10 * kS, 40), 0.2);
  // Earlier points overran: the rest shrink, down to the shortest window.
  EXPECT_DOUBLE_EQ(sweep_point_window_s(9 * kS, 10 * kS, 10), 0.1);
  EXPECT_DOUBLE_EQ(sweep_point_window_s(11 * kS, 10 * kS, 10), kMinPointS);
  EXPECT_DOUBLE_EQ(sweep_point_window_s(0, 100 * kS, 4), 1.0);  // no point longer than 1 s
}

}  // namespace
}  // namespace fsr

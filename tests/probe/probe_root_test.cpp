// SPDX-License-Identifier: Apache-2.0
// probe as root: cold cases come from dropping the kernel's caches before
// cold rounds (root only; label root).
#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/probe/probe_fixture.h"
#include "probe/probe_cases.h"
#include "probe/prober.h"

namespace fsr {
namespace {

using test::quick;
using test::Tmp;

TEST(Probe, DropsCachesForColdCasesAsRoot) {
  if (geteuid() != 0) GTEST_SKIP() << "dropping the kernel's caches needs root (CI runs as root)";
  Tmp t;
  auto p = run_probe(quick(t.dir));
  ASSERT_TRUE(p) << p.message();
  EXPECT_TRUE(p->cold_measured) << ::testing::PrintToString(p->notes);
  for (ProbeKind k :
       {ProbeKind::kStat, ProbeKind::kOpenFile, ProbeKind::kRead, ProbeKind::kPageFault, ProbeKind::kReaddir}) {
    bool cold = false;
    for (const ProfileCase& c : p->cases) cold = cold || (c.kind == k && c.temp == Temp::kCold);
    EXPECT_TRUE(cold) << probe_kind_name(k);
  }
}

}  // namespace
}  // namespace fsr

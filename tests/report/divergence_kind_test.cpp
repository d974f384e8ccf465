// SPDX-License-Identifier: Apache-2.0
#include "report/divergence_kind.h"

#include <sys/syscall.h>

#include <cerrno>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/report/json_schema.h"
#include "tests/report/test_results.h"
#include "report/render_json.h"
#include "report/render_text.h"
#include "report/report.h"

namespace fsr {
namespace {

OpRecord divergent(uint16_t nr, int64_t recorded, int64_t replayed) {
  OpRecord op;
  op.nr = nr;
  op.recorded_ret = recorded;
  op.ret = replayed;
  op.flags = kOfDivergent;
  return op;
}

TEST(DivergenceKind, XattrEopnotsuppWhereExt4SaidEnodataIsTheMount) {
  for (uint16_t nr : {SYS_getxattr, SYS_lgetxattr, SYS_fgetxattr, SYS_listxattr, SYS_setxattr}) {
    const DivergenceVerdict v = classify_divergence(divergent(nr, -ENODATA, -EOPNOTSUPP));
    EXPECT_EQ(v.kind, DivergenceKind::kMountBehaviour) << nr;
    EXPECT_NE(v.why.find("serves no extended attributes"), std::string_view::npos);
  }
  EXPECT_EQ(classify_divergence(divergent(SYS_listxattr, 24, -EOPNOTSUPP)).kind, DivergenceKind::kMountBehaviour);
}

TEST(DivergenceKind, AnythingWithoutARuleIsTheReplayers) {
  // The same errno from a call that is not an xattr call, another errno from an
  // xattr call, and an xattr call that failed recorded with another error.
  EXPECT_EQ(classify_divergence(divergent(SYS_openat, 3, -EOPNOTSUPP)).kind, DivergenceKind::kReplayer);
  EXPECT_EQ(classify_divergence(divergent(SYS_lgetxattr, -ENODATA, -ENOENT)).kind, DivergenceKind::kReplayer);
  EXPECT_EQ(classify_divergence(divergent(SYS_lgetxattr, -ENOENT, -EOPNOTSUPP)).kind, DivergenceKind::kReplayer);
  OpRecord same = divergent(SYS_lgetxattr, -ENODATA, -EOPNOTSUPP);
  same.flags = 0;  // not flagged divergent: nothing to excuse
  EXPECT_EQ(classify_divergence(same).kind, DivergenceKind::kReplayer);
  EXPECT_TRUE(classify_divergence(same).why.empty());
}

TEST(DivergenceKind, CountsSplitByKind) {
  DivergenceCounts c;
  c.add(divergent(SYS_lgetxattr, -ENODATA, -EOPNOTSUPP));
  c.add(divergent(SYS_getxattr, -ENODATA, -EOPNOTSUPP));
  c.add(divergent(SYS_openat, -ENOENT, 3));
  OpRecord fine;
  c.add(fine);
  EXPECT_EQ(c.mount, 2u);
  EXPECT_EQ(c.replayer, 1u);
  ASSERT_EQ(c.mount_why.size(), 1u);
  EXPECT_EQ(c.mount_why.begin()->second, 2u);
}

// The report names mount-behaviour divergences apart (text and JSON, which
// still validates), and prints nothing new for a result without them.
TEST(DivergenceKind, ReportSaysWhichDivergencesAreTheMounts) {
  ResultSet rs = testdata::small_result(true);
  for (OpRecord& op : rs.ops) op.flags &= ~kOfDivergent;  // the fixture's own divergent op
  const std::string before = render_report_text(build_report(rs, nullptr, {}));
  EXPECT_EQ(before.find("mount's own behaviour"), std::string::npos);
  rs.ops[0].nr = SYS_lgetxattr;
  rs.ops[0].recorded_ret = -ENODATA;
  rs.ops[0].ret = -EOPNOTSUPP;
  rs.ops[0].flags = kOfDivergent;
  rs.ops[1].flags = kOfDivergent;  // one the replayer must answer for
  rs.ops[1].ret = rs.ops[1].recorded_ret == 0 ? -ENOENT : 0;
  const Report r = build_report(rs, nullptr, {});
  EXPECT_EQ(r.target.divergent, 2u);
  EXPECT_EQ(r.target.divergent_mount, 1u);
  const std::string text = render_report_text(r);
  EXPECT_NE(text.find("1 of the 2 divergent ops are the mount's own behaviour"), std::string::npos) << text;
  EXPECT_NE(text.find("1 ops: xattr calls answer EOPNOTSUPP"), std::string::npos) << text;
  const nlohmann::json j = nlohmann::json::parse(report_to_json(r).dump());
  EXPECT_EQ(j["target"]["divergent_mount_behaviour"], 1);
  std::ifstream in(std::string(FSR_SCHEMA_DIR) + "/report.schema.json");
  const nlohmann::json schema = nlohmann::json::parse(in);
  EXPECT_TRUE(testdata::validate_json(schema, j).empty());
}

}  // namespace
}  // namespace fsr

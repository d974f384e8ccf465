// SPDX-License-Identifier: Apache-2.0
#include "replayer/plan/path_map.h"

#include <gtest/gtest.h>

namespace fsr {
namespace {

TEST(PathMap, NormalisesAndClampsDotDot) {
  EXPECT_EQ(normalize_abs("/a//b/./c/../d"), "/a/b/d");
  EXPECT_EQ(normalize_abs("/../../etc/passwd"), "/etc/passwd");
  EXPECT_EQ(normalize_abs("/"), "/");
  EXPECT_EQ(join_abs("/w/p", "../x"), "/w/x");
  EXPECT_EQ(join_abs("/w/p", "/abs"), "/abs");
}

TEST(PathMap, RootGoesToTargetEverythingElseToScratch) {
  PathMap m("/home/u/proj/");
  EXPECT_EQ(m.map("/home/u/proj"), (MappedPath{Root::kTarget, ""}));
  EXPECT_EQ(m.map("/home/u/proj/src/a.c"), (MappedPath{Root::kTarget, "src/a.c"}));
  EXPECT_EQ(m.map("/home/u/projX/a"), (MappedPath{Root::kScratch, "home/u/projX/a"}));
  EXPECT_EQ(m.map("/usr/lib/x"), (MappedPath{Root::kScratch, "usr/lib/x"}));
}

TEST(PathMap, HostileDotDotCannotLeaveTheTarget) {
  PathMap m("/w/p");
  // Climbing out of the root lands in scratch, never above a root.
  EXPECT_EQ(m.map("/w/p/../../../etc/shadow"), (MappedPath{Root::kScratch, "etc/shadow"}));
  EXPECT_EQ(m.map("/w/p/a/../../p/b"), (MappedPath{Root::kTarget, "b"}));
}

TEST(PathMap, SymlinkTargetsStayBeneathTheirRoot) {
  PathMap m("/w/p");
  // Relative and inside: kept verbatim.
  EXPECT_EQ(m.symlink_target("/w/p/a/l", "../b/c", "/T", "/S"), "../b/c");
  // Absolute inside the root: made relative so RESOLVE_BENEATH accepts it.
  EXPECT_EQ(m.symlink_target("/w/p/a/l", "/w/p/b/c", "/T", "/S"), "../b/c");
  // Climbing out of the root: mapped into scratch, absolute.
  EXPECT_EQ(m.symlink_target("/w/p/a/l", "../../../etc/passwd", "/T", "/S"), "/S/etc/passwd");
  EXPECT_EQ(m.symlink_target("/w/p/l", "/etc/passwd", "/T", "/S"), "/S/etc/passwd");
  // A scratch link to the target root.
  EXPECT_EQ(m.symlink_target("/usr/l", "/w/p/x", "/T", "/S"), "/T/x");
}

TEST(PathMap, StaysBeneath) {
  EXPECT_TRUE(stays_beneath("a/b", "../../c"));
  EXPECT_FALSE(stays_beneath("a/b", "../../../c"));
  EXPECT_FALSE(stays_beneath("", "/x"));
  EXPECT_EQ(relative_path("a/b", "a/c/d"), "../c/d");
  EXPECT_EQ(relative_path("", "x"), "x");
}

}  // namespace
}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// The shared lexical path helpers (base/paths.h).
#include "base/paths.h"

#include <gtest/gtest.h>

namespace fsr {
namespace {

std::vector<std::string_view> split(std::string_view p) {
  std::vector<std::string_view> v;
  split_path(p, v);
  return v;
}

TEST(Paths, SplitKeepsDotsAndDropsEmptyComponents) {
  EXPECT_EQ(split("/a//b/./c/"), (std::vector<std::string_view>{"a", "b", ".", "c"}));
  EXPECT_EQ(split("x/../y"), (std::vector<std::string_view>{"x", "..", "y"}));
  EXPECT_TRUE(split("///").empty());
  EXPECT_TRUE(split("").empty());
}

TEST(Paths, SplitFoldedClampsDotDotAtTheTop) {
  std::vector<std::string_view> v{"base"};
  split_folded("../../a/./b/..", v);
  EXPECT_EQ(v, (std::vector<std::string_view>{"a"}));
}

TEST(Paths, NormalizeFoldsDotsSlashesAndClampsAtRoot) {
  EXPECT_EQ(normalize_abs("/a//b/./c/../d"), "/a/b/d");
  EXPECT_EQ(normalize_abs("/../../etc"), "/etc");
  EXPECT_EQ(normalize_abs("/"), "/");
  EXPECT_EQ(normalize_abs(""), "/");
  EXPECT_EQ(normalize_abs("rel/x"), "/rel/x");
}

TEST(Paths, JoinTakesAnAbsoluteSecondPartAsIs) {
  EXPECT_EQ(join_abs("/a/b", "../c"), "/a/c");
  EXPECT_EQ(join_abs("/a/b", "/x/./y"), "/x/y");
  EXPECT_EQ(join_abs("/", ".."), "/");
}

TEST(Paths, ParentOfStopsAtRoot) {
  EXPECT_EQ(parent_of("/a/b"), "/a");
  EXPECT_EQ(parent_of("/a"), "/");
  EXPECT_EQ(parent_of("/"), "/");
}

TEST(Paths, BeneathOnlyOnAComponentBoundary) {
  EXPECT_TRUE(is_beneath("/mnt/c", "/mnt/c"));
  EXPECT_TRUE(is_beneath("/mnt/c/x", "/mnt/c"));
  EXPECT_FALSE(is_beneath("/mnt/cd", "/mnt/c"));
  EXPECT_FALSE(is_beneath("/mnt", "/mnt/c"));
  EXPECT_TRUE(is_beneath("/anything", "/"));
  EXPECT_TRUE(is_beneath("/", "/"));
  EXPECT_FALSE(is_beneath("relative", "/"));
  EXPECT_FALSE(is_beneath("/a", ""));
}

// The endings normalisation folds away and the kernel does not.
TEST(Paths, TailNamesTheEndingAPathWasPassedWith) {
  EXPECT_EQ(path_tail("conftest.sym/"), PathTail::kSlash);
  EXPECT_EQ(path_tail("a/b//"), PathTail::kSlash);
  EXPECT_EQ(path_tail("conftest.dir/./"), PathTail::kDot);
  EXPECT_EQ(path_tail("a/."), PathTail::kDot);
  EXPECT_EQ(path_tail("."), PathTail::kDot);
  EXPECT_EQ(path_tail("./"), PathTail::kDot);
  EXPECT_EQ(path_tail("a/b/.."), PathTail::kDotDot);
  EXPECT_EQ(path_tail("../"), PathTail::kDotDot);
  EXPECT_EQ(path_tail("a/b"), PathTail::kNone);
  EXPECT_EQ(path_tail("a/.x"), PathTail::kNone);
  EXPECT_EQ(path_tail("a/..x/"), PathTail::kSlash);
  EXPECT_EQ(path_tail("/"), PathTail::kNone);
  EXPECT_EQ(path_tail("///"), PathTail::kNone);
  EXPECT_EQ(path_tail(""), PathTail::kNone);
  EXPECT_EQ(tail_text(PathTail::kSlash), "/");
  EXPECT_EQ(tail_text(PathTail::kDot), "/.");
  EXPECT_EQ(tail_text(PathTail::kDotDot), "/.");
  EXPECT_EQ(tail_text(PathTail::kNone), "");
}

}  // namespace
}  // namespace fsr

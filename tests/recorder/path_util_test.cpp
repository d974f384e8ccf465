#include "recorder/path_util.h"

#include <gtest/gtest.h>

namespace fsr {
namespace {

std::string join(std::string_view base, std::string_view rel) {
  std::string out;
  join_path(out, base, rel);
  return out;
}

TEST(JoinPath, RelativeIsJoinedToBase) { EXPECT_EQ(join("/a/b", "c/d"), "/a/b/c/d"); }
TEST(JoinPath, AbsoluteIgnoresBase) { EXPECT_EQ(join("/a/b", "/x//y/"), "/x/y"); }
TEST(JoinPath, DotAndDotDotAreLexical) {
  EXPECT_EQ(join("/a/b", "./c/../d"), "/a/b/d");
  EXPECT_EQ(join("/a", "../../.."), "/");
  EXPECT_EQ(join("/", "."), "/");
}
TEST(JoinPath, EmptyRelativeIsBase) { EXPECT_EQ(join("/a/b/", ""), "/a/b"); }

}  // namespace
}  // namespace fsr

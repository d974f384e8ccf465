// SPDX-License-Identifier: Apache-2.0
// PathResolver without a kernel: lexical where no symlink is involved,
// physical where one is (from the probe, the root's known links, or the
// trace's own calls), the last component kept as given, link chains and
// loops bounded as the kernel bounds them.
#include "recorder/core/path_resolver.h"

#include <gtest/gtest.h>

#include <map>

namespace fsr {
namespace {

class Resolver : public ::testing::Test {
 protected:
  Resolver()
      : r_([this](const std::string& p, std::string* t) {
          ++probes_[p];
          auto it = fs_links_.find(p);
          if (it == fs_links_.end()) return false;
          *t = it->second;
          return true;
        }) {}
  std::string resolve(std::string_view base, std::string_view rel) {
    std::string out;
    r_.resolve(out, base, rel);
    return out;
  }
  std::map<std::string, std::string> fs_links_;  // what the probe finds
  std::map<std::string, int> probes_;
  PathResolver r_;
};

TEST_F(Resolver, WithoutLinksItIsLexical) {
  EXPECT_EQ(resolve("/a/b", "c/d"), "/a/b/c/d");
  EXPECT_EQ(resolve("/a/b", "/x//y/"), "/x/y");
  EXPECT_EQ(resolve("/a/b", "./c/../d"), "/a/b/d");
  EXPECT_EQ(resolve("/a", "../../.."), "/");
  EXPECT_EQ(resolve("/", "."), "/");
  EXPECT_EQ(resolve("/a/b", ".."), "/a");
  EXPECT_EQ(resolve("/a/b", ""), "/a/b");
  EXPECT_EQ(resolve("/a/b", "name"), "/a/b/name");
}

TEST_F(Resolver, DirectoryPartIsPhysicalLastComponentAsGiven) {
  fs_links_["/lib"] = "usr/lib";
  fs_links_["/usr/lib/x86_64-linux-gnu/libz.so.1"] = "libz.so.1.2.13";
  EXPECT_EQ(resolve("/", "/lib/x86_64-linux-gnu/libz.so.1"), "/usr/lib/x86_64-linux-gnu/libz.so.1");
  EXPECT_EQ(resolve("/", "/lib"), "/lib");
  EXPECT_EQ(resolve("/", "/lib/"), "/lib") << "(a trailing slash is not a component)";
  EXPECT_EQ(resolve("/", "/lib/.."), "/usr") << "`..` of the link's target";
  EXPECT_EQ(resolve("/etc", "../lib/../bin/sh"), "/usr/bin/sh");
  std::string dir;
  r_.resolve_dir(dir, "/lib");
  EXPECT_EQ(dir, "/usr/lib");
}

TEST_F(Resolver, EachDirectoryIsLookedUpOnce) {
  fs_links_["/lib"] = "usr/lib";
  for (int i = 0; i < 3; ++i) resolve("/", "/lib/x86_64-linux-gnu/libc.so.6");
  resolve("/", "/lib/x86_64-linux-gnu/libm.so.6");
  EXPECT_EQ(probes_["/lib"], 1);
  EXPECT_EQ(probes_["/usr/lib/x86_64-linux-gnu"], 1);
  EXPECT_EQ(probes_.count("/usr/lib/x86_64-linux-gnu/libc.so.6"), 0u) << "the last component is not looked up";
}

TEST_F(Resolver, BelowTheRootOnlyThePrestateAndTheTraceSay) {
  fs_links_["/r/live"] = "elsewhere";  // on disk now, not at the recording's start
  r_.set_root("/r");
  r_.add_link("/r/a", "/r/b/c");
  EXPECT_EQ(resolve("/r", "live/../x"), "/r/x");
  EXPECT_EQ(resolve("/r", "a/../y"), "/r/b/y");
  EXPECT_EQ(probes_.count("/r/live"), 0u);
  r_.renamed("/r/a", "/r/a2");
  EXPECT_EQ(resolve("/r", "a2/../y"), "/r/b/y");
  EXPECT_EQ(resolve("/r", "a/../y"), "/r/y");
  r_.add_link("/r/d/in", "t");
  r_.renamed("/r/d", "/r/e");  // a directory holding a link
  EXPECT_EQ(resolve("/r", "e/in/z"), "/r/e/t/z");
  r_.removed("/r/e/in");
  EXPECT_EQ(resolve("/r", "e/in/z"), "/r/e/in/z");
}

TEST_F(Resolver, LinkChainsAreFollowedAndLoopsEnd) {
  fs_links_["/x"] = "/y";
  fs_links_["/y"] = "z/w";
  EXPECT_EQ(resolve("/", "/x/f"), "/z/w/f");
  fs_links_["/loop"] = "loop";
  EXPECT_FALSE(resolve("/", "/loop/f").empty()) << "a symlink loop ends (as ELOOP would)";
}

}  // namespace
}  // namespace fsr

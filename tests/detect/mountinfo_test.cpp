// SPDX-License-Identifier: Apache-2.0
// parse_mountinfo, unescape_mountinfo and mount_for_path over fixture text.
#include <gtest/gtest.h>
#include <sys/sysmacros.h>

#include "mount_helpers.h"
#include "detect/detect.h"

namespace fsr {
namespace {

using test::read_fixture;

std::vector<MountEntry> parse_ok(const std::string& text) {
  auto r = parse_mountinfo(text);
  EXPECT_TRUE(r.is_ok()) << (r.is_ok() ? "" : r.message());
  return r.is_ok() ? r.value() : std::vector<MountEntry>{};
}

TEST(Mountinfo, ParsesAllFieldsOfAnEntryWithOptionalFields) {
  auto m = parse_ok("36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 shared:7 - ext3 /dev/root rw,errors=continue\n");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].mount_id, 36u);
  EXPECT_EQ(m[0].parent_id, 35u);
  EXPECT_EQ(m[0].dev, makedev(98, 0));
  EXPECT_EQ(m[0].root, "/mnt1");
  EXPECT_EQ(m[0].mount_point, "/mnt/parent");
  EXPECT_EQ(m[0].mount_options, "rw,noatime");
  EXPECT_EQ(m[0].fs_type, "ext3");
  EXPECT_EQ(m[0].source, "/dev/root");
  EXPECT_EQ(m[0].super_options, "rw,errors=continue");
}

TEST(Mountinfo, UnescapesOctalInMountPointRootAndSource) {
  EXPECT_EQ(unescape_mountinfo("C:\\134"), "C:\\");
  EXPECT_EQ(unescape_mountinfo("a\\040b\\011c\\012d"), "a b\tc\nd");
  EXPECT_EQ(unescape_mountinfo("path=C:\\;uid"), "path=C:\\;uid");  // lone backslash stays
  EXPECT_EQ(unescape_mountinfo("end\\13"), "end\\13");              // short escape stays
  auto m = parse_ok("1 0 0:1 /r\\040oot /mnt/my\\040disk rw - tmpfs my\\134src rw\n");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].root, "/r oot");
  EXPECT_EQ(m[0].mount_point, "/mnt/my disk");
  EXPECT_EQ(m[0].source, "my\\src");
}

TEST(Mountinfo, ParsesEveryFixture) {
  for (const char* f : {"wsl2_9p.mountinfo", "wsl2_virtio9p.mountinfo", "wsl2_virtiofs.mountinfo", "wsl1.mountinfo",
                        "linux.mountinfo"}) {
    auto r = parse_mountinfo(read_fixture(f));
    ASSERT_TRUE(r.is_ok()) << f << ": " << r.message();
    EXPECT_GE(r.value().size(), 2u) << f;
  }
  auto m = parse_ok(read_fixture("linux.mountinfo"));
  EXPECT_EQ(m.size(), 18u);
  EXPECT_EQ(m.back().mount_point, "/mnt/empty");
  EXPECT_EQ(m.back().source, "");  // an empty source prints as two spaces
  EXPECT_EQ(m.back().fs_type, "tmpfs");
}

TEST(Mountinfo, KeepsWslSuperOptionsWithBackslashAndSemicolons) {
  auto m = parse_ok(read_fixture("wsl2_9p.mountinfo"));
  const MountEntry* c = mount_for_path(m, "/mnt/c");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->source, "C:\\");
  EXPECT_EQ(c->super_options,
            "rw,dirsync,aname=drvfs;path=C:\\;uid=1000;gid=1000;symlinkroot=/mnt/,cache=5,access=client,"
            "msize=65536,trans=fd,rfd=5,wfd=5");
}

TEST(Mountinfo, SuperOptionsMayHoldAnUnescapedSpace) {
  // v9fs prints aname= with seq_printf, unescaped: the rest of the line is the options.
  auto m = parse_ok("80 63 0:38 / /mnt/c rw - 9p C:\\134 rw,aname=drvfs;path=C:\\My Dir;uid=1000,trans=fd\n");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].super_options, "rw,aname=drvfs;path=C:\\My Dir;uid=1000,trans=fd");
}

TEST(Mountinfo, SkipsBlankLinesAndHandlesMissingFinalNewline) {
  auto m = parse_ok("\n1 0 0:1 / / rw - ext4 /dev/a rw\n\n2 1 0:2 / /x rw - tmpfs t rw");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[1].mount_point, "/x");
}

struct Malformed {
  const char* text;
  const char* expect_in_message;
};

class MountinfoMalformed : public ::testing::TestWithParam<Malformed> {};

TEST_P(MountinfoMalformed, ReportsTheLineNumberAndWhatIsWrong) {
  std::string text = std::string("26 1 254:0 / / rw - ext4 /dev/vda rw\n") + GetParam().text + "\n";
  auto r = parse_mountinfo(text);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.message().find("mountinfo line 2:"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find(GetParam().expect_in_message), std::string::npos) << r.message();
  EXPECT_EQ(r.message().find('\n'), std::string::npos) << "one-line message";
}

INSTANTIATE_TEST_SUITE_P(Lines, MountinfoMalformed,
                         ::testing::Values(Malformed{"garbage", "too few"},
                                           Malformed{"1 2 3:4 / /x rw ext4 /dev/a rw", "separator"},
                                           Malformed{"x 1 0:1 / /x rw - ext4 /dev/a rw", "mount id"},
                                           Malformed{"1 y 0:1 / /x rw - ext4 /dev/a rw", "parent id"},
                                           Malformed{"1 1 01 / /x rw - ext4 /dev/a rw", "major:minor"},
                                           Malformed{"1 1 0:z / /x rw - ext4 /dev/a rw", "major:minor"},
                                           Malformed{"1 1 0:1 / /x rw - ext4", "missing fields"},
                                           Malformed{"1 1 0:1 / /x rw - ext4 /dev/a", "missing fields"},
                                           Malformed{"1 1 0:1 / /x rw shared - ext4 /dev/a rw", "tag:value"},
                                           Malformed{"1 1 0:1  /x rw - ext4 /dev/a rw", "empty"},
                                           Malformed{"1 1 0:1 / /x rw -  /dev/a rw", "type is empty"},
                                           Malformed{"99999999999 1 0:1 / /x rw - ext4 /dev/a rw", "mount id"}));

TEST(Mountinfo, RejectsEmbeddedNul) {
  const char raw[] = "1 0 0:1 / / rw - ext4 /dev/a rw\n1 0 0:1 / /\0x rw - ext4 /dev/a rw\n";
  std::string text(raw, sizeof(raw) - 1);
  auto r = parse_mountinfo(text);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.message().find("line 2: contains a NUL"), std::string::npos) << r.message();
}

TEST(MountForPath, PicksLongestPrefixOnComponentBoundary) {
  auto m = parse_ok(read_fixture("linux.mountinfo"));
  EXPECT_EQ(mount_for_path(m, "/mnt/c")->source, "c");
  EXPECT_EQ(mount_for_path(m, "/mnt/c/x/y")->source, "c");
  EXPECT_EQ(mount_for_path(m, "/mnt/cd")->source, "cd");
  EXPECT_EQ(mount_for_path(m, "/mnt/cd/z")->source, "cd");
  EXPECT_EQ(mount_for_path(m, "/mnt/cdrom")->fs_type, "ext4");  // neither /mnt/c nor /mnt/cd
  EXPECT_EQ(mount_for_path(m, "/")->fs_type, "ext4");
  EXPECT_EQ(mount_for_path(m, "/data/x")->fs_type, "xfs");
  EXPECT_EQ(mount_for_path(m, "/mnt/my disk\ttab/f")->source, "my\\src");
}

TEST(MountForPath, LaterEntryWinsOnStackedMounts) {
  auto m = parse_ok(read_fixture("linux.mountinfo"));
  EXPECT_EQ(mount_for_path(m, "/mnt/stack/f")->source, "upper");
}

TEST(MountForPath, LaterMountOnAnAncestorHidesEarlierChild) {
  // /a/b mounted first, then /a mounted over it: /a/b is no longer reachable.
  auto m = parse_ok(
      "1 0 0:1 / / rw - ext4 /dev/a rw\n"
      "2 1 0:2 / /a/b rw - tmpfs early-child rw\n"
      "3 1 0:3 / /a rw - tmpfs later-parent rw\n"
      "4 3 0:4 / /a/c rw - tmpfs child-of-later rw\n");
  EXPECT_EQ(mount_for_path(m, "/a/b/x")->source, "later-parent");
  EXPECT_EQ(mount_for_path(m, "/a/c/x")->source, "child-of-later");
  // A child listed before its parent (moved mounts) is not hidden by it.
  auto moved = parse_ok(
      "1 0 0:1 / / rw - ext4 /dev/a rw\n"
      "5 6 0:5 / /m/sub rw - tmpfs moved-child rw\n"
      "6 1 0:6 / /m rw - tmpfs parent rw\n");
  EXPECT_EQ(mount_for_path(moved, "/m/sub/f")->source, "moved-child");
  // Parent loops in hostile input end (7 sits on 8, so it is not hidden).
  auto loop = parse_ok("7 8 0:7 / /x rw - tmpfs a rw\n8 7 0:8 / / rw - tmpfs b rw\n");
  EXPECT_EQ(mount_for_path(loop, "/x/f")->source, "a");
}

TEST(MountForPath, ReturnsNullWithoutRootMountOrForRelativePath) {
  auto m = parse_ok("2 1 0:2 / /x rw - tmpfs t rw\n");
  EXPECT_EQ(mount_for_path(m, "/y"), nullptr);
  EXPECT_EQ(mount_for_path(m, "/x/a")->source, "t");
  auto root = parse_ok("1 0 0:1 / / rw - ext4 /dev/a rw\n");
  EXPECT_EQ(mount_for_path(root, "relative/path"), nullptr);
}

}  // namespace
}  // namespace fsr

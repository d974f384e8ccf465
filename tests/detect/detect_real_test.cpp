// SPDX-License-Identifier: Apache-2.0
// detect_environment on real mounts made here: ext4 and xfs loop images,
// tmpfs (also with a space in its path, and stacked), bindfs, slowfs when
// built. Each mount is undone by ScopedMount, also when an assertion fails.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>

#include "mount_helpers.h"
#include "detect/detect.h"

namespace fsr {
namespace {

using test::ScopedMount;

#define REQUIRE_ROOT() \
  if (!test::is_root()) GTEST_SKIP() << "needs root to mount (CI runs as root)"

Environment detect_ok(const std::string& path) {
  Result<Environment> r = detect_environment(path);
  EXPECT_TRUE(r.is_ok()) << path << ": " << (r.is_ok() ? "" : r.message());
  return r.is_ok() ? r.value() : Environment{};
}

// A loop image of `size_mb` formatted by `mkfs` ("mkfs.xfs -q -f"), mounted on a temp dir.
void mount_loop_image(ScopedMount& m, const std::string& tag, int size_mb, const std::string& mkfs) {
  m.dir = test::make_temp_dir(tag);
  m.image = m.dir + ".img";
  ASSERT_EQ(test::run("truncate -s " + std::to_string(size_mb) + "M " + m.image), 0);
  ASSERT_EQ(test::run(mkfs + " " + m.image), 0) << mkfs << " failed";
  int st = -1;
  std::string dev = test::run_capture("losetup -f --show " + m.image + " 2>/dev/null", &st);
  while (!dev.empty() && dev.back() == '\n') dev.pop_back();
  if (st != 0 || dev.empty()) GTEST_SKIP() << "no free loop device (losetup -f failed)";
  m.loop_dev = dev;
  ASSERT_EQ(test::run("mount " + m.loop_dev + " " + m.dir), 0) << "mount " << m.loop_dev;
  m.mounted = true;
}

void mount_tmpfs(ScopedMount& m, const std::string& dir, const char* source) {
  m.dir = dir;
  ASSERT_EQ(mount(source, dir.c_str(), "tmpfs", 0, "size=1m"), 0) << "mount tmpfs on " << dir;
  m.mounted = true;
}

TEST(DetectReal, RootFileSystemMatchesStatfs) {
  Environment e = detect_ok("/");
  EXPECT_EQ(e.path, "/");
  EXPECT_EQ(e.mount.mount_point, "/");
  struct statfs s {};
  ASSERT_EQ(statfs("/", &s), 0);
  EXPECT_EQ(e.statfs_type, static_cast<uint64_t>(s.f_type));
  std::string_view by_magic = statfs_type_name(e.statfs_type);
  if (!by_magic.empty() && by_magic != "fuse") {
    EXPECT_EQ(e.mount_class.kind, by_magic);
  }
  EXPECT_FALSE(e.kernel_release.empty());
  EXPECT_GT(e.cpu_count, 0u);
  EXPECT_FALSE(e.hostname.empty());
}

TEST(DetectReal, Ext4LoopImage) {
  REQUIRE_ROOT();
  if (!test::have_program("mkfs.ext4")) GTEST_SKIP() << "mkfs.ext4 not installed (e2fsprogs)";
  ScopedMount m;
  mount_loop_image(m, "ext4", 16, "mkfs.ext4 -q -F");
  if (IsSkipped() || HasFatalFailure()) return;
  ASSERT_EQ(mkdir((m.dir + "/sub").c_str(), 0755), 0);
  Environment e = detect_ok(m.dir + "/sub");
  EXPECT_EQ(e.mount.mount_point, m.dir);
  EXPECT_EQ(e.mount.source, m.loop_dev);
  EXPECT_EQ(e.mount_class.kind, "ext4");
  EXPECT_EQ(e.statfs_type, 0xEF53u);
}

TEST(DetectReal, XfsLoopImage) {
  REQUIRE_ROOT();
  if (!test::have_program("mkfs.xfs")) GTEST_SKIP() << "mkfs.xfs not installed (xfsprogs)";
  ScopedMount m;
  mount_loop_image(m, "xfs", 300, "mkfs.xfs -q -f");
  if (IsSkipped() || HasFatalFailure()) return;
  Environment e = detect_ok(m.dir);
  EXPECT_EQ(e.mount.mount_point, m.dir);
  EXPECT_EQ(e.mount.fs_type, "xfs");
  EXPECT_EQ(e.mount_class.kind, "xfs");
  EXPECT_EQ(e.statfs_type, 0x58465342u);
}

TEST(DetectReal, TmpfsInTempDir) {
  REQUIRE_ROOT();
  ScopedMount m;
  mount_tmpfs(m, test::make_temp_dir("tmpfs"), "fsr-tmpfs");
  if (HasFatalFailure()) return;
  std::ofstream(m.dir + "/f") << "x";
  Environment e = detect_ok(m.dir + "/f");
  EXPECT_EQ(e.path, m.dir + "/f");
  EXPECT_EQ(e.mount.mount_point, m.dir);
  EXPECT_EQ(e.mount.source, "fsr-tmpfs");
  EXPECT_EQ(e.mount_class.kind, "tmpfs");
  EXPECT_EQ(e.mount_class.options.at("size"), "1024k");
  EXPECT_EQ(e.statfs_type, 0x01021994u);
}

TEST(DetectReal, MountPointWithSpaceAndTabIsUnescaped) {
  REQUIRE_ROOT();
  std::string parent = test::make_temp_dir("esc");
  std::string dir = parent + "/my dir\tx";
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  {
    ScopedMount m;
    mount_tmpfs(m, dir, "src with space");
    if (!HasFatalFailure()) {
      Environment e = detect_ok(dir);
      EXPECT_EQ(e.mount.mount_point, dir);
      EXPECT_EQ(e.mount.source, "src with space");
      EXPECT_EQ(e.mount_class.kind, "tmpfs");
    }
  }
  rmdir(parent.c_str());
}

TEST(DetectReal, StackedMountsReportTheTopOne) {
  REQUIRE_ROOT();
  std::string dir = test::make_temp_dir("stack");
  ScopedMount lower;
  mount_tmpfs(lower, dir, "fsr-lower");
  if (HasFatalFailure()) return;
  auto upper = std::make_unique<ScopedMount>();
  upper->owns_dir = false;  // the directory belongs to `lower`
  mount_tmpfs(*upper, dir, "fsr-upper");
  if (HasFatalFailure()) return;
  EXPECT_EQ(detect_ok(dir).mount.source, "fsr-upper");
  upper.reset();  // unmounts the top one only
  EXPECT_EQ(detect_ok(dir).mount.source, "fsr-lower");
}

// bindfs (libfuse2) mounted by root shows plain "fuse": nothing in mountinfo
// names the daemon, so the kind is fuse without subtype. With -o subtype= the
// type is fuse.bindfs.
TEST(DetectReal, MountOverAnAncestorHidesTheEarlierChild) {
  REQUIRE_ROOT();
  std::string dir = test::make_temp_dir("hide");
  std::string sub = dir + "/sub";
  ASSERT_EQ(mkdir(sub.c_str(), 0755), 0);
  {
    ScopedMount child;
    child.owns_dir = false;
    mount_tmpfs(child, sub, "fsr-early-child");
    if (HasFatalFailure()) return;
    ScopedMount parent;
    parent.owns_dir = false;
    mount_tmpfs(parent, dir, "fsr-later-parent");
    if (HasFatalFailure()) return;
    ASSERT_EQ(mkdir(sub.c_str(), 0755), 0);  // on the new tmpfs: the old sub is unreachable
    Environment e = detect_ok(sub);
    EXPECT_EQ(e.mount.source, "fsr-later-parent");
    EXPECT_EQ(e.mount.mount_point, dir);
  }  // destroyed in reverse: the parent is unmounted before the child it hides
  rmdir(sub.c_str());
  rmdir(dir.c_str());
}

TEST(DetectReal, Bindfs) {
  REQUIRE_ROOT();
  if (!test::have_program("bindfs")) GTEST_SKIP() << "bindfs not installed";
  std::string src = test::make_temp_dir("bindsrc");
  for (std::string opts : {"", "-o subtype=bindfs "}) {
    ScopedMount m;
    m.dir = test::make_temp_dir("bindfs");
    ASSERT_EQ(test::run("bindfs " + opts + src + " " + m.dir), 0) << "bindfs failed";
    m.mounted = true;
    Environment e = detect_ok(m.dir);
    EXPECT_EQ(e.mount.mount_point, m.dir);
    EXPECT_EQ(e.mount.source, src);
    EXPECT_EQ(e.mount_class.kind, "fuse");
    EXPECT_EQ(e.statfs_type, 0x65735546u);
    if (opts.empty()) {
      EXPECT_EQ(e.mount.fs_type, "fuse");
      EXPECT_EQ(e.mount_class.fuse_subtype, "");
    } else {
      EXPECT_EQ(e.mount.fs_type, "fuse.bindfs");
      EXPECT_EQ(e.mount_class.fuse_subtype, "bindfs");
    }
  }
  rmdir(src.c_str());
}

TEST(DetectReal, Slowfs) {
  REQUIRE_ROOT();
  const char* env_bin = std::getenv("FSR_SLOWFS_BIN");  // overrides the build's slowfs target
  std::string bin = env_bin && *env_bin ? env_bin : FSR_SLOWFS_BIN;
  if (bin.empty() || access(bin.c_str(), X_OK) != 0)
    GTEST_SKIP() << "slowfs binary not built (emulators/slowfs target, or FSR_SLOWFS_BIN=/path/to/slowfs)";
  std::string src = test::make_temp_dir("slowsrc");
  {
    ScopedMount m;
    m.dir = test::make_temp_dir("slowfs");
    ASSERT_EQ(test::run(bin + " " + src + " " + m.dir), 0) << bin << " failed";
    m.mounted = true;
    Environment e = detect_ok(m.dir);
    EXPECT_EQ(e.mount.fs_type, "fuse.slowfs");
    EXPECT_EQ(e.mount_class.kind, "fuse");
    EXPECT_EQ(e.mount_class.fuse_subtype, "slowfs");
  }
  rmdir(src.c_str());
}

TEST(DetectReal, MissingPathIsAnErrorNamingIt) {
  Result<Environment> r = detect_environment("/nonexistent/fsr-detect-probe");
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.message().find("/nonexistent/fsr-detect-probe"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("No such file"), std::string::npos) << r.message();
  EXPECT_FALSE(detect_environment("").is_ok());
}

TEST(DetectReal, RelativePathIsResolved) {
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof cwd), nullptr);
  Environment e = detect_ok(".");
  EXPECT_EQ(e.path, std::string(cwd));
}

}  // namespace
}  // namespace fsr

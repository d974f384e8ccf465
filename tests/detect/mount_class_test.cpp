// SPDX-License-Identifier: Apache-2.0
// classify_platform and classify_mount over every fixture case of
// WSL's mount kinds, plus the smaller parsers (options, wsl.conf, virtiofs tag).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "mount_helpers.h"
#include "detect/detect.h"

namespace fsr {
namespace {

using test::read_fixture;

std::string trimmed(std::string s) {
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

// Classifies the mount holding `path` in a fixture.
MountClass classify_in(const std::string& fixture, const std::string& path, Platform p, uint64_t magic = 0,
                       MountEntry* entry = nullptr) {
  auto mounts = parse_mountinfo(read_fixture(fixture));
  EXPECT_TRUE(mounts.is_ok()) << fixture;
  if (!mounts.is_ok()) return {};
  const MountEntry* m = mount_for_path(mounts.value(), path);
  EXPECT_NE(m, nullptr) << fixture << " " << path;
  if (m == nullptr) return {};
  if (entry) *entry = *m;
  return classify_mount(*m, magic, p);
}

TEST(Platform, ClassifiesOsreleaseFixtures) {
  EXPECT_EQ(classify_platform(trimmed(read_fixture("wsl1.osrelease")), false), Platform::kWsl1);
  EXPECT_EQ(classify_platform(trimmed(read_fixture("wsl1.osrelease")), true), Platform::kWsl1);
  EXPECT_EQ(classify_platform(trimmed(read_fixture("wsl2.osrelease")), false), Platform::kWsl2);
  EXPECT_EQ(classify_platform(trimmed(read_fixture("linux.osrelease")), false), Platform::kLinux);
  // A custom WSL2 kernel without the string: interop gives it away.
  EXPECT_EQ(classify_platform(trimmed(read_fixture("wsl2_custom.osrelease")), false), Platform::kLinux);
  EXPECT_EQ(classify_platform(trimmed(read_fixture("wsl2_custom.osrelease")), true), Platform::kWsl2);
  EXPECT_EQ(classify_platform("5.15.90.1-custom-WSL2", false), Platform::kWsl2);
  EXPECT_EQ(classify_platform("4.19.128-microsoft-standard", false), Platform::kWsl2);
  EXPECT_EQ(platform_name(Platform::kWsl1), "wsl1");
  EXPECT_EQ(platform_name(Platform::kWsl2), "wsl2");
  EXPECT_EQ(platform_name(Platform::kLinux), "linux");
}

TEST(MountClass, Wsl2NinePDefaultIsDrvfsWithItsOptions) {
  MountEntry e;
  MountClass c = classify_in("wsl2_9p.mountinfo", "/mnt/c/Users/me", Platform::kWsl2, 0x01021997, &e);
  EXPECT_EQ(e.fs_type, "9p");
  EXPECT_EQ(c.kind, "9p-drvfs");
  EXPECT_TRUE(c.wsl_share);
  EXPECT_EQ(c.windows_path, "C:\\");
  EXPECT_EQ(c.options.at("aname"), "drvfs");
  EXPECT_EQ(c.options.at("cache"), "5");
  EXPECT_EQ(c.options.at("msize"), "65536");
  EXPECT_EQ(c.options.at("trans"), "fd");
  EXPECT_EQ(c.options.at("rfd"), "5");
  EXPECT_EQ(c.options.at("wfd"), "5");
  EXPECT_EQ(c.options.at("uid"), "1000");
  EXPECT_EQ(c.options.at("gid"), "1000");
  EXPECT_EQ(c.options.at("symlinkroot"), "/mnt/");
  EXPECT_EQ(c.options.at("access"), "client");
  EXPECT_TRUE(c.options.contains("noatime"));
  EXPECT_FALSE(c.options.contains("case"));
}

TEST(MountClass, Wsl2NinePWithMetadataCaseAndMasks) {
  MountClass c = classify_in("wsl2_9p.mountinfo", "/mnt/d", Platform::kWsl2);
  EXPECT_EQ(c.kind, "9p-drvfs");
  EXPECT_EQ(c.windows_path, "D:\\");
  EXPECT_TRUE(c.options.contains("metadata"));
  EXPECT_EQ(c.options.at("case"), "dir");
  EXPECT_EQ(c.options.at("umask"), "22");
  EXPECT_EQ(c.options.at("fmask"), "11");
}

TEST(MountClass, Wsl2OtherNinePSharesAreNotDrvfs) {
  MountClass c = classify_in("wsl2_9p.mountinfo", "/usr/lib/wsl/drivers/x", Platform::kWsl2);
  EXPECT_EQ(c.kind, "9p");
  EXPECT_FALSE(c.wsl_share);
  EXPECT_EQ(c.options.at("aname"), "drivers");
  EXPECT_EQ(classify_in("linux.mountinfo", "/mnt/host", Platform::kLinux).kind, "9p");
  EXPECT_EQ(classify_in("wsl2_9p.mountinfo", "/mnt/wsl", Platform::kWsl2).kind, "tmpfs");
  EXPECT_EQ(classify_in("wsl2_9p.mountinfo", "/home/me", Platform::kWsl2).kind, "ext4");
}

TEST(MountClass, Wsl2VirtioNineP) {
  MountClass c = classify_in("wsl2_virtio9p.mountinfo", "/mnt/c", Platform::kWsl2);
  EXPECT_EQ(c.kind, "9p-drvfs");
  EXPECT_EQ(c.options.at("trans"), "virtio");
  EXPECT_EQ(c.options.at("msize"), "262144");
  EXPECT_FALSE(c.options.contains("rfd"));
  EXPECT_EQ(c.windows_path, "C:\\");
}

TEST(MountClass, Wsl2VirtiofsBySourceTag) {
  MountEntry e;
  MountClass c = classify_in("wsl2_virtiofs.mountinfo", "/mnt/c/x", Platform::kWsl2, 0x65735546, &e);
  EXPECT_EQ(c.kind, "virtiofs");
  EXPECT_EQ(e.source, "drvfsC0");
  EXPECT_TRUE(c.wsl_share);
  EXPECT_EQ(c.windows_path, "");  // lives in /run/wsl/virtiofs, read by detect_environment
  MountClass g = classify_in("wsl2_virtiofs.mountinfo", "/mnt/e", Platform::kWsl2, 0x65735546);
  EXPECT_EQ(g.kind, "virtiofs");
  EXPECT_TRUE(g.wsl_share);
  EXPECT_TRUE(classify_in("wsl2_virtiofs.mountinfo", "/mnt/f", Platform::kWsl2).wsl_share);
  // A GUID-tagged virtiofs outside WSL is some other VM's share.
  EXPECT_FALSE(classify_in("wsl2_virtiofs.mountinfo", "/mnt/e", Platform::kLinux).wsl_share);
}

TEST(MountClass, Wsl1DrvfsFromMountinfoNotStatfs) {
  MountClass c = classify_in("wsl1.mountinfo", "/mnt/c/Windows", Platform::kWsl1, 0x53464846);
  EXPECT_EQ(c.kind, "drvfs");
  EXPECT_TRUE(c.wsl_share);
  EXPECT_EQ(c.windows_path, "C:\\");
  EXPECT_EQ(c.options.at("case"), "off");
  EXPECT_EQ(c.options.at("uid"), "1000");
  EXPECT_TRUE(c.options.contains("noatime"));
  // Same statfs magic, but the root is WSL1's own file system, not drvfs.
  MountClass root = classify_in("wsl1.mountinfo", "/home/me", Platform::kWsl1, 0x53464846);
  EXPECT_EQ(root.kind, "lxfs");
  EXPECT_FALSE(root.wsl_share);
  MountClass d = classify_in("wsl1.mountinfo", "/mnt/d", Platform::kWsl1, 0x53464846);
  EXPECT_TRUE(d.options.contains("metadata"));
  EXPECT_EQ(d.options.at("case"), "dir");
}

TEST(MountClass, LinuxFileSystemsKeepTheirType) {
  EXPECT_EQ(classify_in("linux.mountinfo", "/etc", Platform::kLinux, 0xEF53).kind, "ext4");
  EXPECT_EQ(classify_in("linux.mountinfo", "/data/db", Platform::kLinux).kind, "xfs");
  MountClass b = classify_in("linux.mountinfo", "/home/me", Platform::kLinux);
  EXPECT_EQ(b.kind, "btrfs");
  EXPECT_EQ(b.options.at("subvol"), "/@home");
  EXPECT_EQ(classify_in("linux.mountinfo", "/tmp/a", Platform::kLinux).kind, "tmpfs");
  EXPECT_EQ(classify_in("linux.mountinfo", "/var/lib/docker/overlay2/abc/merged/usr", Platform::kLinux).kind,
            "overlay");
  EXPECT_EQ(classify_in("linux.mountinfo", "/mnt/nfs/x", Platform::kLinux).kind, "nfs4");
  EXPECT_EQ(classify_in("linux.mountinfo", "/mnt/win", Platform::kLinux).kind, "cifs");
  for (const char* p : {"/etc", "/data", "/tmp", "/mnt/nfs"}) {
    MountClass c = classify_in("linux.mountinfo", p, Platform::kLinux);
    EXPECT_FALSE(c.wsl_share) << p;
    EXPECT_EQ(c.fuse_subtype, "") << p;
    EXPECT_EQ(c.windows_path, "") << p;
  }
}

TEST(MountClass, FuseMountsNameTheirSubtype) {
  struct Case {
    const char* path;
    const char* subtype;
  };
  for (Case k : {Case{"/mnt/ssh/a", "sshfs"}, Case{"/mnt/bind", "bindfs"}, Case{"/mnt/slow/x", "slowfs"},
                 Case{"/media/usb/f", "fuseblk"}}) {
    MountClass c = classify_in("linux.mountinfo", k.path, Platform::kLinux, 0x65735546);
    EXPECT_EQ(c.kind, "fuse") << k.path;
    EXPECT_EQ(c.fuse_subtype, k.subtype) << k.path;
  }
}

TEST(MountClass, FallsBackToStatfsMagicWithoutType) {
  MountEntry e;
  EXPECT_EQ(classify_mount(e, 0x58465342, Platform::kLinux).kind, "xfs");
  EXPECT_EQ(classify_mount(e, 0x12345678, Platform::kLinux).kind, "unknown");
}

TEST(MountOptions, SplitsOnCommaAndSemicolonLaterWins) {
  auto o = parse_mount_options("rw,aname=drvfs;path=C:\\;uid=1000,,cache=5,uid=0");
  EXPECT_EQ(o.size(), 5u);
  EXPECT_EQ(o.at("rw"), "");
  EXPECT_EQ(o.at("aname"), "drvfs");
  EXPECT_EQ(o.at("path"), "C:\\");
  EXPECT_EQ(o.at("cache"), "5");
  EXPECT_EQ(o.at("uid"), "0");
  EXPECT_TRUE(parse_mount_options("").empty());
}

TEST(StatfsTypeName, NamesKnownMagics) {
  EXPECT_EQ(statfs_type_name(0xEF53), "ext4");
  EXPECT_EQ(statfs_type_name(0x01021997), "v9fs");
  EXPECT_EQ(statfs_type_name(0x65735546), "fuse");
  EXPECT_EQ(statfs_type_name(0x53464846), "wslfs");
  EXPECT_EQ(statfs_type_name(0x1), "");
}

TEST(WslConf, ReadsAutomountOptions) {
  EXPECT_EQ(wsl_conf_automount_options("[boot]\nsystemd=true\n[automount]\nenabled = true\n"
                                       "options = \"metadata,umask=22,fmask=11\"\n[network]\noptions=x\n"),
            "metadata,umask=22,fmask=11");
  EXPECT_EQ(wsl_conf_automount_options("# options=no\n[automount]\n  options=case=dir  \n"), "case=dir");
  EXPECT_EQ(wsl_conf_automount_options("[network]\noptions=x\n"), "");
  EXPECT_EQ(wsl_conf_automount_options(""), "");
}

TEST(VirtiofsTag, ReadsWindowsPathFromSymlink) {
  std::string dir = test::make_temp_dir("vfs");
  ASSERT_EQ(symlink("C:\\", (dir + "/drvfsC0").c_str()), 0);
  EXPECT_EQ(virtiofs_windows_path("drvfsC0", dir), "C:\\");
  EXPECT_EQ(virtiofs_windows_path("drvfsD0", dir), "");
  EXPECT_EQ(virtiofs_windows_path("../etc", dir), "");
  EXPECT_EQ(virtiofs_windows_path("", dir), "");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// Golden output of environment_to_json / environment_to_text for an
// environment built from fixtures (WSL2 /mnt/c over 9p, WSL1 drvfs).
// Regenerate a golden file only after checking the new output by eye.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mount_helpers.h"
#include "detect/detect.h"

namespace fsr {
namespace {

Environment fixture_env(const std::string& mountinfo, const std::string& osrelease, const std::string& path,
                        uint64_t magic) {
  Environment e;
  std::string rel = test::read_fixture(osrelease);
  while (!rel.empty() && rel.back() == '\n') rel.pop_back();
  e.kernel_release = rel;
  e.platform = classify_platform(rel, false);
  e.hostname = "DESKTOP-FSR";
  e.cpu_count = 8;
  e.path = path;
  auto mounts = parse_mountinfo(test::read_fixture(mountinfo));
  EXPECT_TRUE(mounts.is_ok());
  if (!mounts.is_ok()) return e;
  const MountEntry* m = mount_for_path(mounts.value(), path);
  EXPECT_NE(m, nullptr);
  if (m == nullptr) return e;
  e.mount = *m;
  e.statfs_type = magic;
  e.mount_class = classify_mount(*m, magic, e.platform);
  e.wsl_distro = "Ubuntu";
  return e;
}

TEST(EnvFormat, Wsl2NinePJsonMatchesGolden) {
  Environment e = fixture_env("wsl2_9p.mountinfo", "wsl2.osrelease", "/mnt/c/src", 0x01021997);
  EXPECT_EQ(environment_to_json(e) + "\n", test::read_fixture("wsl2_9p_env.json"));
}

TEST(EnvFormat, Wsl2NinePTextMatchesGolden) {
  Environment e = fixture_env("wsl2_9p.mountinfo", "wsl2.osrelease", "/mnt/c/src", 0x01021997);
  EXPECT_EQ(environment_to_text(e), test::read_fixture("wsl2_9p_env.txt"));
}

TEST(EnvFormat, Wsl1DrvfsTextMatchesGolden) {
  Environment e = fixture_env("wsl1.mountinfo", "wsl1.osrelease", "/mnt/c/Users", 0x53464846);
  EXPECT_EQ(environment_to_text(e), test::read_fixture("wsl1_drvfs_env.txt"));
}

TEST(EnvFormat, JsonHasTheDocumentedKeys) {
  Environment e = fixture_env("linux.mountinfo", "linux.osrelease", "/mnt/ssh/x", 0x65735546);
  auto j = nlohmann::json::parse(environment_to_json(e));
  for (const char* k :
       {"platform", "kernel_release", "hostname", "cpu_count", "path", "mount", "statfs_type", "wsl_distro"})
    EXPECT_TRUE(j.contains(k)) << k;
  for (const char* k : {"mount_point", "fs_type", "source", "options", "kind", "fuse_subtype", "windows_path"})
    EXPECT_TRUE(j["mount"].contains(k)) << k;
  EXPECT_EQ(j["platform"], "linux");
  EXPECT_EQ(j["mount"]["kind"], "fuse");
  EXPECT_EQ(j["mount"]["fuse_subtype"], "sshfs");
  EXPECT_EQ(j["mount"]["source"], "me@host:/srv");
  EXPECT_EQ(j["statfs_type"], 0x65735546u);
  EXPECT_EQ(j["statfs_type_hex"], "0x65735546");
}

TEST(EnvFormat, JsonSurvivesInvalidUtf8InPaths) {
  Environment e;
  e.path = "/mnt/\xff\xfe";
  e.mount.mount_point = "/mnt/\xff\xfe";
  std::string out;
  ASSERT_NO_THROW(out = environment_to_json(e));
  EXPECT_TRUE(nlohmann::json::accept(out)) << out;
}

}  // namespace
}  // namespace fsr

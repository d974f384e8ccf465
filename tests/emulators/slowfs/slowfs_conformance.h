// SPDX-License-Identifier: Apache-2.0
// The fixture of the slowfs conformance suite (slowfs_conformance_test.cpp,
// slowfs_conformance_attr_test.cpp): each test runs on a plain temporary
// directory and on slowfs mounts of each cache mode, which must answer alike.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/emulators/slowfs/slowfs_test_mount.h"

namespace fsr::testing {

enum class Target { kPlainDir, kSlowfs, kSlowfsNoCache, kSlowfsWriteback, kSlowfsDirectIo };

inline std::string target_name(const ::testing::TestParamInfo<Target>& info) {
  switch (info.param) {
    case Target::kPlainDir:
      return "PlainDir";
    case Target::kSlowfs:
      return "Slowfs";
    case Target::kSlowfsNoCache:
      return "SlowfsNoCache";
    case Target::kSlowfsWriteback:
      return "SlowfsWriteback";
    case Target::kSlowfsDirectIo:
      return "SlowfsDirectIo";
  }
  return "?";
}

class Conformance : public ::testing::TestWithParam<Target> {
 protected:
  void SetUp() override {
    if (GetParam() == Target::kPlainDir) {
      plain_ = make_temp_dir("slowfs-plain-");
      ASSERT_FALSE(plain_.empty());
      dir_ = plain_;
      return;
    }
    if (geteuid() != 0) GTEST_SKIP() << "mounting slowfs with allow_other needs root";
    if (access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "kernel has no /dev/fuse";
    std::vector<std::string> args = {"--lat", "all=20us"};
    if (GetParam() == Target::kSlowfsNoCache)
      args = {"--profile", "none", "--attr-timeout", "0", "--entry-timeout", "0", "--no-readdirplus"};
    if (GetParam() == Target::kSlowfsWriteback) args = {"--writeback-cache", "--lat", "all=20us"};
    if (GetParam() == Target::kSlowfsDirectIo) args = {"--direct-io", "--lat", "all=20us"};
    std::string err = mount_.mount(args);
    ASSERT_EQ(err, "");
    dir_ = mount_.mountpoint();
  }
  void TearDown() override {
    mount_.unmount();  // also runs from the destructor if SetUp failed midway
    if (!plain_.empty()) remove_tree(plain_);
  }

  std::string p(const std::string& name) const { return dir_ + "/" + name; }

  void write_file(const std::string& name, const std::string& data, mode_t mode = 0644) {
    int fd = open(p(name).c_str(), O_WRONLY | O_CREAT | O_TRUNC, mode);
    ASSERT_GE(fd, 0) << p(name) << ": " << std::strerror(errno);
    ASSERT_EQ(write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
    ASSERT_EQ(close(fd), 0);
  }
  std::string read_file(const std::string& name) {
    int fd = open(p(name).c_str(), O_RDONLY);
    if (fd < 0) {
      std::string err = "<error: ";
      err += std::strerror(errno);  // not operator+: GCC 12 -Wrestrict false positive
      err += ">";
      return err;
    }
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
    close(fd);
    return out;
  }
  static std::string pread_all(int fd) {
    std::string out;
    char buf[4096];
    ssize_t n;
    off_t off = 0;
    while ((n = pread(fd, buf, sizeof buf, off)) > 0) {
      out.append(buf, static_cast<size_t>(n));
      off += n;
    }
    return out;
  }

  SlowfsMount mount_;
  std::string plain_, dir_;
};

}  // namespace fsr::testing

// SPDX-License-Identifier: Apache-2.0
// The slowfs conformance suite's checks of attributes and data (the names:
// slowfs_conformance_test.cpp): xattrs, truncation, fsync, permissions,
// timestamps and a large file read through a mapping.
#include <fcntl.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "tests/emulators/slowfs/slowfs_conformance.h"

namespace fsr::testing {
namespace {

TEST_P(Conformance, UserXattrsSetGetListRemove) {
  write_file("x", "");
  std::string f = p("x");
  if (setxattr(f.c_str(), "user.probe", "1", 1, 0) != 0 && errno == EOPNOTSUPP)
    GTEST_SKIP() << "the file system under " << dir_ << " has no user xattrs";
  ASSERT_EQ(setxattr(f.c_str(), "user.k1", "value1", 6, 0), 0);
  ASSERT_EQ(setxattr(f.c_str(), "user.k2", "v2", 2, XATTR_CREATE), 0);
  EXPECT_EQ(setxattr(f.c_str(), "user.k2", "v2", 2, XATTR_CREATE), -1);
  EXPECT_EQ(errno, EEXIST);
  EXPECT_EQ(setxattr(f.c_str(), "user.k3", "v3", 2, XATTR_REPLACE), -1);
  EXPECT_EQ(errno, ENODATA);
  char buf[256] = {};
  EXPECT_EQ(getxattr(f.c_str(), "user.k1", nullptr, 0), 6);  // size query
  ASSERT_EQ(getxattr(f.c_str(), "user.k1", buf, sizeof buf), 6);
  EXPECT_EQ(std::string(buf, 6), "value1");
  EXPECT_EQ(getxattr(f.c_str(), "user.k1", buf, 2), -1);
  EXPECT_EQ(errno, ERANGE);
  ssize_t n = listxattr(f.c_str(), buf, sizeof buf);
  ASSERT_GT(n, 0);
  std::set<std::string> names;
  for (ssize_t i = 0; i < n; i += static_cast<ssize_t>(std::strlen(buf + i)) + 1) names.insert(buf + i);
  EXPECT_EQ(names.count("user.k1"), 1u);
  EXPECT_EQ(names.count("user.k2"), 1u);
  ASSERT_EQ(removexattr(f.c_str(), "user.k1"), 0);
  EXPECT_EQ(getxattr(f.c_str(), "user.k1", buf, sizeof buf), -1);
  EXPECT_EQ(errno, ENODATA);
  EXPECT_EQ(removexattr(f.c_str(), "user.k1"), -1);
  EXPECT_EQ(errno, ENODATA);
}

TEST_P(Conformance, TruncateAndFtruncate) {
  write_file("t", std::string(100, 'a'));
  ASSERT_EQ(truncate(p("t").c_str(), 10), 0);
  struct stat st {};
  ASSERT_EQ(stat(p("t").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 10);
  EXPECT_EQ(read_file("t"), std::string(10, 'a'));
  int fd = open(p("t").c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 5000), 0);
  std::string all = pread_all(fd);
  ASSERT_EQ(all.size(), 5000u);
  EXPECT_EQ(all.substr(0, 10), std::string(10, 'a'));
  EXPECT_EQ(all.substr(10), std::string(4990, '\0'));
  close(fd);
  EXPECT_EQ(truncate(p("missing").c_str(), 0), -1);
  EXPECT_EQ(errno, ENOENT);
  // O_TRUNC on open.
  fd = open(p("t").c_str(), O_WRONLY | O_TRUNC);
  ASSERT_GE(fd, 0);
  close(fd);
  ASSERT_EQ(stat(p("t").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 0);
}

TEST_P(Conformance, FsyncFileAndDirectory) {
  int fd = open(p("s").c_str(), O_WRONLY | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "data", 4), 4);
  EXPECT_EQ(fsync(fd), 0);
  EXPECT_EQ(fdatasync(fd), 0);
  close(fd);
  int dfd = open(dir_.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(dfd, 0);
  EXPECT_EQ(fsync(dfd), 0);
  close(dfd);
  EXPECT_EQ(read_file("s"), "data");
}

// Forks a child that becomes nobody (65534) and reports each check as a bit.
TEST_P(Conformance, ChmodDeniesOtherUsers) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch to another user";
  ASSERT_EQ(chmod(dir_.c_str(), 0755), 0);
  write_file("public", "pub", 0644);
  write_file("private", "priv", 0600);
  ASSERT_EQ(chmod(p("public").c_str(), 0644), 0);
  ASSERT_EQ(mkdir(p("closed").c_str(), 0700), 0);
  auto run_as_nobody = [&]() -> int {
    pid_t pid = fork();
    if (pid == 0) {
      if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(255);
      int bits = 0;
      int fd = open(p("public").c_str(), O_RDONLY);
      if (fd >= 0) {
        bits |= 1;
        close(fd);
      }
      fd = open(p("private").c_str(), O_RDONLY);
      if (fd < 0 && errno == EACCES) bits |= 2;
      if (fd >= 0) close(fd);
      fd = open(p("public").c_str(), O_WRONLY);
      if (fd < 0 && errno == EACCES) bits |= 4;
      if (fd >= 0) close(fd);
      if (chmod(p("public").c_str(), 0666) != 0 && errno == EPERM) bits |= 8;
      if (open(p("closed/new").c_str(), O_WRONLY | O_CREAT, 0644) < 0 && errno == EACCES) bits |= 16;
      if (open(p("newfile").c_str(), O_WRONLY | O_CREAT, 0644) < 0 && errno == EACCES) bits |= 32;
      _exit(bits);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  EXPECT_EQ(run_as_nobody(), 1 | 2 | 4 | 8 | 16 | 32);
  // After chmod o+r the same user may read it.
  ASSERT_EQ(chmod(p("private").c_str(), 0604), 0);
  EXPECT_EQ(run_as_nobody() & 2, 0);
  // A directory writable by all lets nobody create a file, owned by nobody.
  ASSERT_EQ(chmod(dir_.c_str(), 0777), 0);
  EXPECT_EQ(run_as_nobody() & 32, 0);
  struct stat st {};
  ASSERT_EQ(stat(p("newfile").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_gid, 65534u);
  ASSERT_EQ(chmod(dir_.c_str(), 0755), 0);
}

TEST_P(Conformance, UtimensatSetsAndOmitsTimes) {
  write_file("u", "");
  timespec ts[2] = {{1000000000, 123456789}, {1200000000, 5}};
  ASSERT_EQ(utimensat(AT_FDCWD, p("u").c_str(), ts, 0), 0);
  struct stat st {};
  ASSERT_EQ(stat(p("u").c_str(), &st), 0);
  EXPECT_EQ(st.st_atim.tv_sec, 1000000000);
  EXPECT_EQ(st.st_atim.tv_nsec, 123456789);
  EXPECT_EQ(st.st_mtim.tv_sec, 1200000000);
  EXPECT_EQ(st.st_mtim.tv_nsec, 5);
  timespec omit[2] = {{0, UTIME_OMIT}, {1300000000, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, p("u").c_str(), omit, 0), 0);
  ASSERT_EQ(stat(p("u").c_str(), &st), 0);
  EXPECT_EQ(st.st_atim.tv_sec, 1000000000);
  EXPECT_EQ(st.st_mtim.tv_sec, 1300000000);
}

TEST_P(Conformance, LargeFileWithMmapRead) {
  constexpr size_t kChunk = 1 << 20, kChunks = 24;
  int fd = open(p("big").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  std::string chunk(kChunk, '\0');
  for (size_t c = 0; c < kChunks; ++c) {
    for (size_t i = 0; i < kChunk; i += 4096) std::memcpy(&chunk[i], &c, sizeof c);
    ASSERT_EQ(write(fd, chunk.data(), kChunk), static_cast<ssize_t>(kChunk));
  }
  ASSERT_EQ(fsync(fd), 0);
  close(fd);
  fd = open(p("big").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  struct stat st {};
  ASSERT_EQ(fstat(fd, &st), 0);
  ASSERT_EQ(static_cast<size_t>(st.st_size), kChunk * kChunks);
  void* m = mmap(nullptr, kChunk * kChunks, PROT_READ, MAP_SHARED, fd, 0);
  std::string copy;
  if (GetParam() == Target::kSlowfsDirectIo) {
    // FOPEN_DIRECT_IO files refuse shared mmap unless the server sets
    // FUSE_CAP_DIRECT_IO_ALLOW_MMAP (libfuse >= 3.16); check the data by pread.
    EXPECT_EQ(m, MAP_FAILED);
    EXPECT_EQ(errno, ENODEV);
    if (m != MAP_FAILED) munmap(m, kChunk * kChunks);
    copy = pread_all(fd);
    ASSERT_EQ(copy.size(), kChunk * kChunks);
    m = copy.data();
  }
  ASSERT_NE(m, MAP_FAILED) << std::strerror(errno);
  const char* bytes = static_cast<const char*>(m);
  size_t bad = 0;
  for (size_t c = 0; c < kChunks; ++c) {
    for (size_t i = 0; i < kChunk; i += 4096) {
      size_t v;
      std::memcpy(&v, bytes + c * kChunk + i, sizeof v);
      bad += v != c;
    }
  }
  EXPECT_EQ(bad, 0u);
  if (copy.empty()) munmap(m, kChunk * kChunks);
  close(fd);
}

}  // namespace
}  // namespace fsr::testing

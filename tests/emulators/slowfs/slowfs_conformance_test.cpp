// SPDX-License-Identifier: Apache-2.0
// The same file-system behaviour checks on a plain temporary directory and on
// a slowfs mount: slowfs must answer exactly as the backing file system does.
// Here the names (create, rename, unlink, readdir, links, mkdir, O_EXCL);
// attributes and data: slowfs_conformance_attr_test.cpp.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "tests/emulators/slowfs/slowfs_conformance.h"

namespace fsr::testing {
namespace {

TEST_P(Conformance, CreateWriteReadBack) {
  int fd = open(p("a").c_str(), O_RDWR | O_CREAT, 0640);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "hello world", 11), 11);
  EXPECT_EQ(pread_all(fd), "hello world");
  ASSERT_EQ(pwrite(fd, "W", 1, 6), 1);
  struct stat st {};
  ASSERT_EQ(fstat(fd, &st), 0);
  EXPECT_EQ(st.st_size, 11);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  ASSERT_EQ(close(fd), 0);
  EXPECT_EQ(read_file("a"), "hello World");
  fd = open(p("a").c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "!", 1), 1);
  close(fd);
  EXPECT_EQ(read_file("a"), "hello World!");
}

TEST_P(Conformance, RenameReplacesExistingFile) {
  write_file("src", "new contents");
  write_file("dst", "old");
  int old_fd = open(p("dst").c_str(), O_RDONLY);
  ASSERT_GE(old_fd, 0);
  ASSERT_EQ(rename(p("src").c_str(), p("dst").c_str()), 0);
  EXPECT_EQ(read_file("dst"), "new contents");
  struct stat st {};
  EXPECT_EQ(lstat(p("src").c_str(), &st), -1);
  EXPECT_EQ(errno, ENOENT);
  EXPECT_EQ(pread_all(old_fd), "old");  // the replaced inode lives on while open
  close(old_fd);
  // Renaming a directory over a non-empty directory fails.
  ASSERT_EQ(mkdir(p("d1").c_str(), 0755), 0);
  ASSERT_EQ(mkdir(p("d2").c_str(), 0755), 0);
  write_file("d2/x", "x");
  EXPECT_EQ(rename(p("d1").c_str(), p("d2").c_str()), -1);
  EXPECT_TRUE(errno == ENOTEMPTY || errno == EEXIST) << std::strerror(errno);
}

TEST_P(Conformance, UnlinkedOpenFileKeepsWorking) {
  int fd = open(p("gone").c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "abc", 3), 3);
  ASSERT_EQ(unlink(p("gone").c_str()), 0);
  struct stat st {};
  EXPECT_EQ(stat(p("gone").c_str(), &st), -1);
  EXPECT_EQ(errno, ENOENT);
  ASSERT_EQ(fstat(fd, &st), 0);
  EXPECT_EQ(st.st_nlink, 0u);
  ASSERT_EQ(pwrite(fd, "defg", 4, 3), 4);
  EXPECT_EQ(pread_all(fd), "abcdefg");
  ASSERT_EQ(ftruncate(fd, 2), 0);
  ASSERT_EQ(fstat(fd, &st), 0);
  EXPECT_EQ(st.st_size, 2);
  EXPECT_EQ(close(fd), 0);
  // The name is free for a new file.
  write_file("gone", "again");
  EXPECT_EQ(read_file("gone"), "again");
}

TEST_P(Conformance, ReaddirDuringModificationListsStableEntriesOnce) {
  ASSERT_EQ(mkdir(p("dir").c_str(), 0755), 0);
  for (int i = 0; i < 300; ++i) write_file("dir/keep" + std::to_string(i), "");
  for (int i = 0; i < 100; ++i) write_file("dir/drop" + std::to_string(i), "");
  DIR* d = opendir(p("dir").c_str());
  ASSERT_NE(d, nullptr);
  std::map<std::string, int> seen;
  int read_count = 0;
  dirent* e;
  while ((e = readdir(d)) != nullptr) {
    seen[e->d_name]++;
    if (++read_count == 60) {  // modify the directory mid-listing
      for (int i = 0; i < 100; ++i) ASSERT_EQ(unlink(p("dir/drop" + std::to_string(i)).c_str()), 0);
      for (int i = 0; i < 100; ++i) write_file("dir/added" + std::to_string(i), "");
    }
  }
  closedir(d);
  for (int i = 0; i < 300; ++i) EXPECT_EQ(seen["keep" + std::to_string(i)], 1) << "keep" << i;
  EXPECT_EQ(seen["."], 1);
  EXPECT_EQ(seen[".."], 1);
  for (const auto& [name, count] : seen) {
    EXPECT_EQ(count, 1) << name << " listed twice";
    EXPECT_TRUE(name == "." || name == ".." || name.rfind("keep", 0) == 0 || name.rfind("drop", 0) == 0 ||
                name.rfind("added", 0) == 0)
        << "unexpected entry " << name;
  }
  // A fresh listing reflects the final state exactly.
  d = opendir(p("dir").c_str());
  ASSERT_NE(d, nullptr);
  std::set<std::string> now;
  while ((e = readdir(d)) != nullptr) now.insert(e->d_name);
  closedir(d);
  EXPECT_EQ(now.size(), 2u + 300u + 100u);
  EXPECT_EQ(now.count("drop5"), 0u);
  EXPECT_EQ(now.count("added99"), 1u);
}

TEST_P(Conformance, SymlinkAndReadlink) {
  write_file("target", "through the link");
  ASSERT_EQ(symlink("target", p("link").c_str()), 0);
  char buf[64] = {};
  ASSERT_EQ(readlink(p("link").c_str(), buf, sizeof buf), 6);
  EXPECT_STREQ(buf, "target");
  struct stat st {};
  ASSERT_EQ(lstat(p("link").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(read_file("link"), "through the link");
  ASSERT_EQ(symlink("nowhere", p("dangling").c_str()), 0);
  EXPECT_EQ(stat(p("dangling").c_str(), &st), -1);
  EXPECT_EQ(errno, ENOENT);
  EXPECT_EQ(open(p("link").c_str(), O_RDONLY | O_NOFOLLOW), -1);
  EXPECT_EQ(errno, ELOOP);
}

TEST_P(Conformance, HardLinkSharesInodeAndCountsLinks) {
  write_file("one", "shared");
  ASSERT_EQ(link(p("one").c_str(), p("two").c_str()), 0);
  struct stat a {
  }, b{};
  ASSERT_EQ(stat(p("one").c_str(), &a), 0);
  ASSERT_EQ(stat(p("two").c_str(), &b), 0);
  EXPECT_EQ(a.st_ino, b.st_ino);
  EXPECT_EQ(a.st_nlink, 2u);
  write_file("two", "changed");
  EXPECT_EQ(read_file("one"), "changed");
  ASSERT_EQ(unlink(p("one").c_str()), 0);
  ASSERT_EQ(stat(p("two").c_str(), &b), 0);
  EXPECT_EQ(b.st_nlink, 1u);
  EXPECT_EQ(link(p("two").c_str(), p("two").c_str()), -1);
  EXPECT_EQ(errno, EEXIST);
}

TEST_P(Conformance, MkdirRmdirNonEmpty) {
  ASSERT_EQ(mkdir(p("d").c_str(), 0750), 0);
  struct stat st {};
  ASSERT_EQ(stat(p("d").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0750u);
  EXPECT_EQ(mkdir(p("d").c_str(), 0755), -1);
  EXPECT_EQ(errno, EEXIST);
  write_file("d/f", "x");
  EXPECT_EQ(rmdir(p("d").c_str()), -1);
  EXPECT_EQ(errno, ENOTEMPTY);
  EXPECT_EQ(unlink(p("d").c_str()), -1);
  EXPECT_EQ(errno, EISDIR);
  ASSERT_EQ(unlink(p("d/f").c_str()), 0);
  EXPECT_EQ(rmdir(p("d").c_str()), 0);
  EXPECT_EQ(stat(p("d").c_str(), &st), -1);
  EXPECT_EQ(errno, ENOENT);
}

TEST_P(Conformance, OExclFailsOnExistingFile) {
  int fd = open(p("e").c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  ASSERT_GE(fd, 0);
  close(fd);
  EXPECT_EQ(open(p("e").c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644), -1);
  EXPECT_EQ(errno, EEXIST);
  ASSERT_EQ(symlink("e", p("el").c_str()), 0);
  EXPECT_EQ(open(p("el").c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644), -1);
  EXPECT_EQ(errno, EEXIST);
}

INSTANTIATE_TEST_SUITE_P(Targets, Conformance,
                         ::testing::Values(Target::kPlainDir, Target::kSlowfs, Target::kSlowfsNoCache,
                                           Target::kSlowfsWriteback, Target::kSlowfsDirectIo),
                         target_name);

}  // namespace
}  // namespace fsr::testing

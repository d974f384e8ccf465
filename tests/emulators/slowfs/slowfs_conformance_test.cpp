// The same file-system behaviour checks on a plain temporary directory and on
// a slowfs mount: slowfs must answer exactly as the backing file system does.
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "tests/emulators/slowfs/slowfs_test_mount.h"

namespace fsr::testing {
namespace {

enum class Target { kPlainDir, kSlowfs, kSlowfsNoCache, kSlowfsWriteback, kSlowfsDirectIo };

std::string target_name(const ::testing::TestParamInfo<Target>& info) {
  switch (info.param) {
    case Target::kPlainDir: return "PlainDir";
    case Target::kSlowfs: return "Slowfs";
    case Target::kSlowfsNoCache: return "SlowfsNoCache";
    case Target::kSlowfsWriteback: return "SlowfsWriteback";
    case Target::kSlowfsDirectIo: return "SlowfsDirectIo";
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

TEST_P(Conformance, CreateWriteReadBack) {
  int fd = open(p("a").c_str(), O_RDWR | O_CREAT, 0640);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "hello world", 11), 11);
  EXPECT_EQ(pread_all(fd), "hello world");
  ASSERT_EQ(pwrite(fd, "W", 1, 6), 1);
  struct stat st{};
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
  struct stat st{};
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
  struct stat st{};
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
  struct stat st{};
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
  struct stat a{}, b{};
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
  struct stat st{};
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
      if (fd >= 0) { bits |= 1; close(fd); }
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
  struct stat st{};
  ASSERT_EQ(stat(p("newfile").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_gid, 65534u);
  ASSERT_EQ(chmod(dir_.c_str(), 0755), 0);
}

TEST_P(Conformance, MkdirRmdirNonEmpty) {
  ASSERT_EQ(mkdir(p("d").c_str(), 0750), 0);
  struct stat st{};
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

TEST_P(Conformance, UtimensatSetsAndOmitsTimes) {
  write_file("u", "");
  timespec ts[2] = {{1000000000, 123456789}, {1200000000, 5}};
  ASSERT_EQ(utimensat(AT_FDCWD, p("u").c_str(), ts, 0), 0);
  struct stat st{};
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
  struct stat st{};
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

INSTANTIATE_TEST_SUITE_P(Targets, Conformance,
                         ::testing::Values(Target::kPlainDir, Target::kSlowfs, Target::kSlowfsNoCache,
                                           Target::kSlowfsWriteback, Target::kSlowfsDirectIo),
                         target_name);

}  // namespace
}  // namespace fsr::testing

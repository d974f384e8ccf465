// SPDX-License-Identifier: Apache-2.0
#include "traces/syscalls.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>

#include <set>

namespace fsr {
namespace {

TEST(SyscallTable, IsSortedAndUnique) {
  auto t = syscall_table();
  ASSERT_FALSE(t.empty());
  for (size_t i = 1; i < t.size(); ++i) EXPECT_LT(t[i - 1].nr, t[i].nr) << t[i].name;
}

TEST(SyscallTable, EveryEntryHasAClassAndName) {
  std::set<std::string_view> names;
  for (const auto& s : syscall_table()) {
    EXPECT_LT(static_cast<int>(s.cls), kClassCount) << s.name;
    EXPECT_FALSE(s.name.empty());
    EXPECT_TRUE(names.insert(s.name).second) << "duplicate name " << s.name;
    EXPECT_TRUE(s.nr < kMaxSyscallNr || s.nr >= kEvProcExec) << s.name;
  }
}

TEST(SyscallTable, ArgumentIndicesAreConsistent) {
  for (const auto& s : syscall_table()) {
    for (int i = 0; i < 2; ++i) {
      if (s.path[i] >= 0) {
        EXPECT_LT(s.path[i], 6) << s.name;
        EXPECT_TRUE(s.ptr_mask & (1u << s.path[i])) << s.name << ": a path argument is a pointer";
      }
      if (s.dirfd[i] >= 0) {
        EXPECT_GE(s.path[i], 0) << s.name << ": dirfd without a path";
      }
    }
    if (s.stat_buf >= 0) {
      EXPECT_TRUE(s.flags & (kSfStatBuf | kSfStatxBuf)) << s.name;
      EXPECT_TRUE(s.ptr_mask & (1u << s.stat_buf)) << s.name;
    }
    if (s.fd >= 0) {
      EXPECT_FALSE(s.ptr_mask & (1u << s.fd)) << s.name << ": an fd is not a pointer";
    }
  }
}

// The classes docs/design.md names, for a few syscalls of each.
TEST(SyscallTable, ClassesFollowTheTaxonomy) {
  EXPECT_EQ(class_of(SYS_newfstatat), SyscallClass::kStat);
  EXPECT_EQ(class_of(SYS_statx), SyscallClass::kStat);
  EXPECT_EQ(class_of(SYS_access), SyscallClass::kStat);
  EXPECT_EQ(class_of(SYS_readlink), SyscallClass::kStat);
  EXPECT_EQ(class_of(SYS_openat), SyscallClass::kOpen);
  EXPECT_EQ(class_of(SYS_close), SyscallClass::kClose);
  EXPECT_EQ(class_of(SYS_pread64), SyscallClass::kRead);
  EXPECT_EQ(class_of(SYS_pwrite64), SyscallClass::kWrite);
  EXPECT_EQ(class_of(SYS_getdents64), SyscallClass::kReaddir);
  EXPECT_EQ(class_of(SYS_mkdirat), SyscallClass::kMkdir);
  EXPECT_EQ(class_of(SYS_rmdir), SyscallClass::kRmdir);
  EXPECT_EQ(class_of(SYS_unlinkat), SyscallClass::kUnlink);
  EXPECT_EQ(class_of(SYS_renameat2), SyscallClass::kRename);
  EXPECT_EQ(class_of(SYS_symlinkat), SyscallClass::kLink);
  EXPECT_EQ(class_of(SYS_utimensat), SyscallClass::kAttr);
  EXPECT_EQ(class_of(SYS_fallocate), SyscallClass::kAttr);
  EXPECT_EQ(class_of(SYS_setxattr), SyscallClass::kAttr);
  EXPECT_EQ(class_of(SYS_getxattr), SyscallClass::kXattr);
  EXPECT_EQ(class_of(SYS_fdatasync), SyscallClass::kSync);
  EXPECT_EQ(class_of(SYS_mmap), SyscallClass::kMmap);
  EXPECT_EQ(class_of(SYS_copy_file_range), SyscallClass::kCopy);
  EXPECT_EQ(class_of(SYS_lseek), SyscallClass::kFd);
  EXPECT_EQ(class_of(SYS_clone3), SyscallClass::kProcess);
  EXPECT_EQ(class_of(SYS_wait4), SyscallClass::kWait);
  EXPECT_EQ(class_of(SYS_getpid), SyscallClass::kOther);  // not in the table
  EXPECT_EQ(class_of(kEvPageFault), SyscallClass::kMmap);
}

TEST(SyscallTable, NamesRoundTrip) {
  for (const auto& s : syscall_table()) {
    EXPECT_EQ(syscall_name(s.nr), s.name);
    EXPECT_EQ(syscall_from_name(s.name), s.nr);
  }
  EXPECT_EQ(syscall_name(499), "sys_499");
  for (int c = 0; c < kClassCount; ++c)
    EXPECT_EQ(class_from_name(class_name(static_cast<SyscallClass>(c))), static_cast<SyscallClass>(c));
  EXPECT_FALSE(class_from_name("nonsense"));
}

TEST(SyscallTable, RenameAndLinkCarryTwoPaths) {
  for (long nr : {SYS_rename, SYS_renameat, SYS_renameat2, SYS_link, SYS_linkat, SYS_symlink, SYS_symlinkat}) {
    const SyscallInfo* s = syscall_info(static_cast<uint32_t>(nr));
    ASSERT_NE(s, nullptr) << nr;
    EXPECT_GE(s->path[0], 0) << s->name;
    EXPECT_GE(s->path[1], 0) << s->name;
    EXPECT_TRUE(s->flags & kSfNamespace) << s->name;
  }
  EXPECT_TRUE(syscall_info(SYS_symlinkat)->flags & kSfLiteralPath0);
  EXPECT_EQ(syscall_info(SYS_renameat2)->dirfd[1], 2);
}

}  // namespace
}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// The initial tree inferred from a trace, on synthetic events.
#include "replayer/plan/tree_spec.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <gtest/gtest.h>

#include "tests/replayer/synthetic.h"

namespace fsr {
namespace {

using test::kAtCwd;
using test::Synth;

const TreeEntry* find(const TreeSpec& s, Root root, const std::string& rel) {
  for (size_t i = 0; i < s.entries.size(); ++i)
    if (s.where(i) == MappedPath{root, rel}) return &s.entries[i];
  return nullptr;
}
std::string_view target_of(const TreeSpec& s, const TreeEntry* e) {
  return e ? s.target(static_cast<size_t>(e - s.entries.data())) : std::string_view("(no entry)");
}

TreeSpec spec_of(const Synth& t, const std::vector<PrestateEntry>& pre = {}) {
  Plan p = t.plan("/r");
  return tree_spec(pre, p, PathMap("/r"), "/T", "/S");
}

TEST(TreeSpec, EverythingBeforeAPathsFirstChangeDescribesTheStart) {
  Synth t;
  t.add(1, 1, SYS_access, 10, 1, 0, {0, 0}, "/etc/gitconfig");  // exists, no facts yet
  uint32_t o = t.add(1, 1, SYS_openat, 20, 1, 3, {kAtCwd, 0, O_RDONLY}, "/etc/gitconfig");
  t.ev[o].mode = S_IFREG | 0644;
  t.ev[o].size = 123;
  t.add(1, 1, SYS_newfstatat, 30, 1, -ENOENT, {kAtCwd}, "/r/new");  // absent ...
  t.add(1, 1, SYS_creat, 40, 1, 4, {0, 0644}, "/r/new");            // ... then created
  uint32_t s = t.add(1, 1, SYS_newfstatat, 50, 1, 0, {kAtCwd}, "/r/new");
  t.ev[s].mode = S_IFREG | 0644;                    // after the creation: says nothing about the start
  t.add(1, 1, SYS_unlink, 60, 1, 0, {}, "/r/old");  // removed: existed
  TreeSpec sp = spec_of(t);
  const TreeEntry* g = find(sp, Root::kScratch, "etc/gitconfig");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->size, 123u);
  EXPECT_EQ(find(sp, Root::kTarget, "new"), nullptr);
  ASSERT_EQ(sp.created.size(), 1u);
  EXPECT_EQ(sp.created[0], (MappedPath{Root::kTarget, "new"}));
  EXPECT_NE(find(sp, Root::kTarget, "old"), nullptr);
  EXPECT_NE(find(sp, Root::kScratch, "etc"), nullptr);  // parents are directories
}

// An execve says a file exists and is run, not how large it is: a script
// outside the root (a pyenv shim) that its interpreter then opens and reads
// gets the size and mode the open saw, not the empty file of the exec alone.
TEST(TreeSpec, AnExecutablesSizeComesFromTheOpenThatFollowsItsExec) {
  Synth t;
  t.add(1, 1, SYS_execve, 10, 5, 0, {}, "/opt/shims/tool");
  uint32_t o = t.add(1, 1, SYS_openat, 20, 1, 3, {kAtCwd, 0, O_RDONLY}, "/opt/shims/tool");
  t.ev[o].mode = S_IFREG | 0750;
  t.ev[o].size = 3341;
  uint32_t later = t.add(1, 1, SYS_newfstatat, 30, 1, 0, {kAtCwd}, "/opt/shims/tool");
  t.ev[later].mode = S_IFREG | 0644;  // the first inode seen describes the start; a later one does not
  t.ev[later].size = 7;
  t.add(2, 2, SYS_execve, 40, 5, 0, {}, "/opt/bin/only-run");  // run, never opened: a guess stays
  TreeSpec sp = spec_of(t);
  const TreeEntry* tool = find(sp, Root::kScratch, "opt/shims/tool");
  ASSERT_NE(tool, nullptr);
  EXPECT_EQ(tool->size, 3341u) << "prepared from the exec alone: empty, and bash's read of it returned 0 bytes";
  EXPECT_EQ(tool->mode, static_cast<uint32_t>(S_IFREG | 0750));
  const TreeEntry* run = find(sp, Root::kScratch, "opt/bin/only-run");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->mode, static_cast<uint32_t>(0100755));
}

TEST(TreeSpec, ReadlinkLengthsBecomeSymlinksToTheNextLookup) {
  Synth t;
  t.add(1, 1, SYS_readlink, 10, 1, 20, {0, 0, 4096}, "/usr/bin/cc");
  t.add(1, 1, SYS_readlink, 11, 1, -EINVAL, {0, 0, 4096}, "/etc");  // realpath walks the parents
  t.add(1, 1, SYS_readlink, 12, 1, 12, {0, 0, 4096}, "/etc/alternatives/cc");
  t.add(1, 1, SYS_readlink, 13, 1, 6, {0, 0, 4096}, "/usr/bin/gcc");
  t.add(1, 1, SYS_readlink, 14, 1, -EINVAL, {0, 0, 4096}, "/usr/bin/gcc-12");
  t.add(1, 1, SYS_readlink, 15, 1, 5, {0, 0, 4096}, "/usr/bin/odd");  // nothing to infer from
  TreeSpec sp = spec_of(t);
  const TreeEntry* cc = find(sp, Root::kScratch, "usr/bin/cc");
  ASSERT_NE(cc, nullptr);
  EXPECT_EQ(cc->kind, PrestateKind::kSymlink);
  EXPECT_EQ(target_of(sp, cc), "../../etc/alternatives/cc");  // absolute in the trace, relative beneath scratch
  const TreeEntry* alt = find(sp, Root::kScratch, "etc/alternatives/cc");
  ASSERT_NE(alt, nullptr);
  EXPECT_EQ(target_of(sp, alt), "../../usr/bin/gcc");
  EXPECT_EQ(target_of(sp, find(sp, Root::kScratch, "usr/bin/gcc")), "gcc-12");
  const TreeEntry* end = find(sp, Root::kScratch, "usr/bin/gcc-12");  // known only to exist
  ASSERT_NE(end, nullptr);
  EXPECT_EQ(end->kind, PrestateKind::kFile);
  EXPECT_EQ(target_of(sp, find(sp, Root::kScratch, "usr/bin/odd")).size(), 5u);
}

// glibc's tzset opens /etc/localtime (following the link: the facts are the
// zone file's), then readlinks it for the zone's name. The link's target gets
// those facts, down a chain of links; prepared empty, the replay's read
// returned 0 bytes and tzset's lseek back -EINVAL (npm ci did that).
TEST(TreeSpec, FactsSeenThroughASymlinkGoToItsTarget) {
  Synth t;
  uint32_t o = t.add(1, 1, SYS_openat, 10, 1, 3, {kAtCwd, 0, O_RDONLY}, "/etc/localtime");
  t.ev[o].mode = S_IFREG | 0644;
  t.ev[o].size = 114;
  t.add(1, 1, SYS_close, 11, 1, 0, {3});
  t.add(1, 1, SYS_readlink, 12, 1, 24, {0, 0, 1023}, "/etc/localtime");  // "/usr/share/zoneinfo/Zone"
  t.add(1, 1, SYS_readlink, 13, 1, -EINVAL, {0, 0, 1023}, "/usr/share/zoneinfo");
  t.add(1, 1, SYS_readlink, 14, 1, 3, {0, 0, 1023}, "/usr/share/zoneinfo/Zone");  // a link again
  t.add(1, 1, SYS_readlink, 15, 1, -EINVAL, {0, 0, 1023}, "/usr/share/zoneinfo/UTC");
  TreeSpec sp = spec_of(t);
  const TreeEntry* lt = find(sp, Root::kScratch, "etc/localtime");
  ASSERT_NE(lt, nullptr);
  EXPECT_EQ(lt->kind, PrestateKind::kSymlink);
  const TreeEntry* zone = find(sp, Root::kScratch, "usr/share/zoneinfo/Zone");
  ASSERT_NE(zone, nullptr);
  EXPECT_EQ(zone->kind, PrestateKind::kSymlink);
  EXPECT_EQ(target_of(sp, zone), "UTC");
  const TreeEntry* utc = find(sp, Root::kScratch, "usr/share/zoneinfo/UTC");
  ASSERT_NE(utc, nullptr);
  EXPECT_EQ(utc->kind, PrestateKind::kFile);
  EXPECT_EQ(utc->size, 114u) << "the end of the chain, known only to exist, was an empty file";
  EXPECT_EQ(utc->mode, static_cast<uint32_t>(S_IFREG | 0644));
}

// A /proc file stats as 0 bytes: the bytes read through its fd say how large
// it was (cargo reads /proc/PID/maps 1 KiB at a time); a positioned read
// says where it ended. A file the trace changed first is not sized so.
TEST(TreeSpec, BytesReadThroughAnFdSizeAFileThatStatedSmaller) {
  Synth t;
  uint32_t o = t.add(1, 1, SYS_openat, 10, 1, 3, {kAtCwd, 0, O_RDONLY}, "/proc/7/maps");
  t.ev[o].mode = S_IFREG | 0444;
  t.ev[o].size = 0;
  t.add(1, 1, SYS_read, 11, 1, 1024, {3, 0, 1024});
  t.add(1, 1, SYS_read, 12, 1, 1024, {3, 0, 1024});
  t.add(1, 1, SYS_lseek, 13, 1, 100, {3, 100, SEEK_SET});
  t.add(1, 1, SYS_read, 14, 1, 500, {3, 0, 1024});  // 100 + 500: below the 2,048 already read
  t.add(1, 1, SYS_close, 15, 1, 0, {3});
  uint32_t q = t.add(1, 1, SYS_openat, 20, 1, 3, {kAtCwd, 0, O_RDONLY}, "/opt/data");
  t.ev[q].mode = S_IFREG | 0644;
  t.ev[q].size = 0;
  t.add(1, 1, SYS_pread64, 21, 1, 10, {3, 0, 10, 10000});
  t.add(1, 1, SYS_close, 22, 1, 0, {3});
  TreeSpec sp = spec_of(t);
  const TreeEntry* maps = find(sp, Root::kScratch, "proc/7/maps");
  ASSERT_NE(maps, nullptr);
  EXPECT_EQ(maps->size, 2048u) << "prepared empty, the replay's reads returned 0 bytes";
  const TreeEntry* data = find(sp, Root::kScratch, "opt/data");
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->size, 10010u);
}

// cmake readlinks /usr/lib32 (-EINVAL: it exists, no symlink), then a name
// beneath it (-ENOENT, not -ENOTDIR): a directory, not the empty file a
// path known only to exist becomes, which made the second call -ENOTDIR.
TEST(TreeSpec, AnExistingPathWithAMissingNameBeneathItIsADirectory) {
  Synth t;
  t.add(1, 1, SYS_readlink, 10, 1, -EINVAL, {0, 0, 1023}, "/usr/lib32");
  t.add(1, 1, SYS_readlink, 11, 1, -ENOENT, {0, 0, 1023}, "/usr/lib32/x86_64-linux-gnu");
  t.add(1, 1, SYS_readlink, 12, 1, -EINVAL, {0, 0, 1023}, "/usr/bin/tool");  // nothing looked up beneath
  t.add(1, 1, SYS_newfstatat, 13, 1, -ENOENT, {kAtCwd}, "/gone/x");          // its parent never shown to exist
  TreeSpec sp = spec_of(t);
  const TreeEntry* lib32 = find(sp, Root::kScratch, "usr/lib32");
  ASSERT_NE(lib32, nullptr);
  EXPECT_EQ(lib32->kind, PrestateKind::kDir);
  const TreeEntry* tool = find(sp, Root::kScratch, "usr/bin/tool");
  ASSERT_NE(tool, nullptr);
  EXPECT_EQ(tool->kind, PrestateKind::kFile);
  EXPECT_EQ(find(sp, Root::kScratch, "gone"), nullptr);
}

TEST(TreeSpec, CreatedDirectoriesAreNotPreparedButTheirParentsAre) {
  Synth t;
  t.add(1, 1, SYS_mkdir, 10, 1, 0, {0, 0755}, "/r/a/out");
  t.add(1, 1, SYS_creat, 20, 1, 3, {0, 0644}, "/r/a/out/x.o");
  TreeSpec sp = spec_of(t);
  EXPECT_NE(find(sp, Root::kTarget, "a"), nullptr);
  EXPECT_EQ(find(sp, Root::kTarget, "a/out"), nullptr);
  ASSERT_EQ(sp.created.size(), 2u);
  EXPECT_EQ(sp.created[0].rel, "a/out/x.o");  // deepest first, for removal
}

// `rm -rf d; mkdir -p d; ... > d/f`: the failed removal shows d absent; the
// mkdir after it makes d a created path, not an implied parent to prepare.
TEST(TreeSpec, APathRemovedInVainThenCreatedIsNotPrepared) {
  Synth t;
  t.add(1, 1, SYS_newfstatat, 5, 1, -ENOENT, {kAtCwd, 0, 0, AT_SYMLINK_NOFOLLOW}, "/r/small");
  t.add(1, 1, SYS_unlinkat, 10, 1, -ENOENT, {kAtCwd, 0, 0}, "/r/small");
  t.add(1, 1, SYS_mkdir, 20, 1, 0, {0, 0777}, "/r/small");
  t.add(1, 1, SYS_creat, 30, 1, 3, {0, 0644}, "/r/small/f1");
  TreeSpec sp = spec_of(t);
  EXPECT_EQ(find(sp, Root::kTarget, "small"), nullptr) << "prepared, so the recorded ENOENTs diverge";
  ASSERT_EQ(sp.created.size(), 2u);
  EXPECT_EQ(sp.created[0].rel, "small/f1");
  EXPECT_EQ(sp.created[1].rel, "small");
}

TEST(TreeSpec, HardLinksShareTheirFirstPath) {
  PrestateEntry a{"/r/a", PrestateKind::kFile, 0100644, 10, "", 77, 1, 2};
  PrestateEntry b{"/r/b", PrestateKind::kFile, 0100644, 10, "", 77, 1, 2};
  TreeSpec sp = spec_of(Synth{}, {a, b});
  const TreeEntry* eb = find(sp, Root::kTarget, "b");
  ASSERT_NE(eb, nullptr);
  ASSERT_NE(eb->link_to, UINT32_MAX);
  EXPECT_EQ(sp.where(eb->link_to).rel, "a");
}

}  // namespace
}  // namespace fsr

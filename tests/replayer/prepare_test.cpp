// SPDX-License-Identifier: Apache-2.0
// fsreplay prepare on prestates of many blocks (traces/synthetic/synthetic_tree.h):
// the tree made is the prestate, entry for entry, whatever the block and
// window sizes; a damaged or cut prestate is one clear error; progress is
// reported while the prestate is read and while the tree is made.
#include <sys/stat.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "replayer/session/replay.h"
#include "tests/replayer/replay_fixture.h"
#include "traces/synthetic/synthetic_tree.h"
#include "traces/trace_reader.h"

namespace fsr {
namespace {

using test::ReplayDirs;

constexpr const char* kRoot = "/home/dev/project";
constexpr uint64_t kEntries = 8500;  // more than two of the writer's 4,096-entry prestate blocks

class Prepare : public ReplayDirs {
 protected:
  std::string tree_trace(uint64_t entries, uint64_t events) {
    const std::string path = base + "/tree" + std::to_string(entries) + "-" + std::to_string(events) + ".trace";
    TreeTraceShape shape;
    shape.entries = entries;
    shape.events = events;
    shape.root = kRoot;
    auto st = write_tree_trace(path, shape);
    EXPECT_TRUE(st.is_ok()) << st.message();
    if (st.is_ok()) stats = st.value();
    return path;
  }
  std::string on_disk(const std::string& recorded) const {
    const std::string root = kRoot;
    if (recorded == root) return target;
    if (recorded.compare(0, root.size() + 1, root + "/") == 0) return target + recorded.substr(root.size());
    return scratch + recorded;
  }
  // (fsreplay's marker, .fsreplay-target, aside: target_guard.h)
  static uint64_t count_entries(const std::string& dir) {
    std::string cmd = "find '" + dir + "' -mindepth 1 ! -path '" + dir + "/.fsreplay-target' | wc -l";
    FILE* p = popen(cmd.c_str(), "r");
    unsigned long long n = 0;
    if (p && fscanf(p, "%llu", &n) != 1) n = 0;
    if (p) pclose(p);
    return n;
  }
  // Every entry beneath `dir`: path, kind, mode, size, symlink text (no times, no directory
  // sizes: a replay changes them).
  static std::string manifest(const std::string& dir) {
    std::string cmd = "cd '" + dir +
                      "' && { find . -mindepth 1 ! -type d ! -path ./.fsreplay-target -printf '%P %y %m %s %l\\n'; "
                      "find . -mindepth 1 -type d -printf '%P %y %m\\n'; } | LC_ALL=C sort";
    FILE* p = popen(cmd.c_str(), "r");
    std::string out;
    char buf[4096];
    for (size_t n; p && (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    if (p) pclose(p);
    return out;
  }
  TreeTraceStats stats;
};

TEST_F(Prepare, APrestateOfManyBlocksIsMadeEntryForEntry) {
  const std::string trace = tree_trace(kEntries, 300);
  ASSERT_GT(stats.symlinks, 0u);
  ASSERT_GT(stats.hard_links, 0u);
  ASSERT_GT(stats.outside, 0u);
  ReplayOptions o = options();
  o.window = 1024;  // the tree is eight times the window
  auto r = run_prepare(trace, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->unmade, 0u) << r->first_unmade;

  auto rd = TraceReader::open(trace);
  ASSERT_TRUE(rd.is_ok()) << rd.message();
  auto pre = rd.value()->prestate();
  ASSERT_TRUE(pre.is_ok()) << pre.message();
  ASSERT_EQ(pre->size(), kEntries);
  std::map<uint64_t, ino_t> inode_of;  // recorded inode -> the one made for its first name
  for (const PrestateEntry& e : pre.value()) {
    const std::string p = on_disk(e.path);
    struct stat st;
    ASSERT_EQ(lstat(p.c_str(), &st), 0) << e.path << " was not made";
    switch (e.kind) {
      case PrestateKind::kDir:
        EXPECT_TRUE(S_ISDIR(st.st_mode)) << e.path;
        break;
      case PrestateKind::kSymlink: {
        ASSERT_TRUE(S_ISLNK(st.st_mode)) << e.path;
        char b[4096];
        const ssize_t n = readlink(p.c_str(), b, sizeof b);
        ASSERT_GT(n, 0) << e.path;
        if (e.target[0] != '/') {
          EXPECT_EQ(std::string(b, static_cast<size_t>(n)), e.target) << e.path;
        }
        break;
      }
      default:
        ASSERT_TRUE(S_ISREG(st.st_mode)) << e.path;
        EXPECT_EQ(static_cast<uint64_t>(st.st_size), e.size) << e.path;
        EXPECT_EQ(st.st_mode & 07777, e.mode & 07777) << e.path;
        if (e.nlink > 1) {
          auto [it, first] = inode_of.try_emplace(e.ino, st.st_ino);
          if (!first) {
            EXPECT_EQ(st.st_ino, it->second) << e.path << " is not a hard link of its inode's first name";
          }
        }
    }
  }
  EXPECT_EQ(inode_of.size(), stats.hard_links);
  // Nothing besides: every entry but the recorded root itself (the target).
  EXPECT_EQ(count_entries(target) + count_entries(scratch), kEntries - 1);

  // The same trace with the default window makes the same tree: nothing to redo.
  auto again = run_prepare(trace, options());
  ASSERT_TRUE(again.is_ok()) << again.message();
  EXPECT_EQ(again->files + again->dirs + again->symlinks, 0u);
  EXPECT_EQ(again->kept, kEntries - 1);
}

TEST_F(Prepare, ReplayVerifiesAManyBlockTreeAndResetsIt) {
  const std::string trace = tree_trace(kEntries, 2000);
  ReplayOptions o = options();
  ASSERT_TRUE(run_prepare(trace, o).is_ok());
  const std::string before = manifest(target);
  ASSERT_EQ(std::count(before.begin(), before.end(), '\n'), static_cast<long>(kEntries - 1 - stats.outside));
  o.prepare = false;
  auto r = run_replay(trace, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->divergences, 0u);
  EXPECT_EQ(manifest(target), before) << "the tree was not reset to the prestate after the replay";
}

TEST_F(Prepare, ReportsProgressWhileReadingThePrestateAndMakingTheTree) {
  const std::string trace = tree_trace(kEntries, 100);
  ReplayOptions o = options();
  o.progress = true;
  std::map<std::string, std::pair<uint64_t, uint64_t>> last;  // phase -> (done, total)
  bool backwards = false;
  o.on_progress = [&](const char* phase, uint64_t done, uint64_t total, std::string_view) {
    auto& l = last[phase];
    if (done < l.first) backwards = true;
    l = {done, total};
  };
  ASSERT_TRUE(run_prepare(trace, o).is_ok());
  EXPECT_FALSE(backwards);
  ASSERT_TRUE(last.count("prestate"));
  EXPECT_EQ(last["prestate"], std::make_pair(kEntries, kEntries));
  ASSERT_TRUE(last.count("prepare"));
  EXPECT_GE(last["prepare"].second, kEntries - 1);
  EXPECT_EQ(last["prepare"].first, last["prepare"].second);
}

// A trace whose writer died while it wrote the prestate has no events: no
// tree is made from part of it, and the error says what happened in one line.
TEST_F(Prepare, ATraceCutInsideItsPrestateIsOneLineThatSaysSo) {
  const std::string trace = tree_trace(kEntries, 0);
  struct stat st;
  ASSERT_EQ(stat(trace.c_str(), &st), 0);
  ASSERT_EQ(truncate(trace.c_str(), st.st_size * 6 / 10), 0);
  auto r = run_prepare(trace, options());
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.message().find("ends inside its prestate"), std::string::npos) << r.message();
  EXPECT_NE(r.message().find("record the trace again"), std::string::npos) << r.message();
  EXPECT_EQ(r.message().find('\n'), std::string::npos) << r.message();
  EXPECT_EQ(count_entries(target), 0u) << "part of the tree was made";
}

TEST_F(Prepare, ADamagedPrestateBlockIsAnErrorNamingIt) {
  const std::string trace = tree_trace(kEntries, 0);
  struct stat st;
  ASSERT_EQ(stat(trace.c_str(), &st), 0);
  int fd = open(trace.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  char c;
  const off_t at = st.st_size / 2;
  ASSERT_EQ(pread(fd, &c, 1, at), 1);
  c = static_cast<char>(c ^ 0x5a);
  ASSERT_EQ(pwrite(fd, &c, 1, at), 1);
  close(fd);
  auto r = run_prepare(trace, options());
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.message().find("prestate block"), std::string::npos) << r.message();
  EXPECT_EQ(r.message().find('\n'), std::string::npos) << r.message();
  EXPECT_EQ(count_entries(target), 0u) << "part of the tree was made";
}

}  // namespace
}  // namespace fsr

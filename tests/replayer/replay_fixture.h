// SPDX-License-Identifier: Apache-2.0
// End-to-end helpers: a temporary directory with target/, scratch/ and a
// sentinel tree outside both; synthetic traces written as real trace files.
#pragma once

#include <algorithm>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "replayer/session/replay.h"
#include "tests/replayer/synthetic.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace fsr::test {

inline void write_file(const std::string& p, const std::string& data) {
  int fd = open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0) << p;
  ASSERT_EQ(write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  close(fd);
}

// A hash of a whole tree: names, kinds, sizes, modes, link targets and contents.
inline uint64_t tree_hash(const std::string& dir) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  };
  std::function<void(const std::string&)> walk = [&](const std::string& d) {
    DIR* dp = opendir(d.c_str());
    if (!dp) return;
    std::vector<std::string> names;
    while (dirent* de = readdir(dp)) names.emplace_back(de->d_name);
    closedir(dp);
    std::sort(names.begin(), names.end());
    for (auto& n : names) {
      if (n == "." || n == "..") continue;
      std::string p = d + "/" + n;
      struct stat st;
      if (lstat(p.c_str(), &st) != 0) continue;
      mix(p + ":" + std::to_string(st.st_mode) + ":" + std::to_string(st.st_size) + ":" +
          std::to_string(st.st_mtim.tv_nsec));
      if (S_ISLNK(st.st_mode)) {
        char b[4096];
        ssize_t k = readlink(p.c_str(), b, sizeof b);
        if (k > 0) mix(std::string(b, static_cast<size_t>(k)));
      } else if (S_ISREG(st.st_mode)) {
        int fd = open(p.c_str(), O_RDONLY);
        char b[4096];
        ssize_t k;
        while (fd >= 0 && (k = read(fd, b, sizeof b)) > 0) mix(std::string(b, static_cast<size_t>(k)));
        if (fd >= 0) close(fd);
      } else if (S_ISDIR(st.st_mode)) {
        walk(p);
      }
    }
  };
  walk(dir);
  return h;
}

class ReplayDirs : public ::testing::Test {
 protected:
  void SetUp() override {
    char tpl[] = "/tmp/fsreplay-test-XXXXXX";
    ASSERT_NE(mkdtemp(tpl), nullptr);
    base = tpl;
    target = base + "/target";
    scratch = base + "/scratch";
    sentinel = base + "/sentinel";
    for (auto* d : {&target, &scratch, &sentinel}) ASSERT_EQ(mkdir(d->c_str(), 0755), 0);
    ASSERT_EQ(mkdir((sentinel + "/sub").c_str(), 0755), 0);
    write_file(sentinel + "/keep.txt", "precious");
    write_file(sentinel + "/sub/x", "also precious");
    sentinel_hash = tree_hash(sentinel);
  }
  void TearDown() override {
    EXPECT_EQ(tree_hash(sentinel), sentinel_hash) << "the sentinel tree outside target/scratch changed";
    std::string cmd = "rm -rf --one-file-system '" + base + "'";
    if (system(cmd.c_str()) != 0) ADD_FAILURE() << "cleanup failed: " << base;
  }

  std::vector<std::string> trace_choices;  // the headers' recorder choices (write_trace)

  // Writes `t` as a trace file with recorded root `root`; returns its path.
  // `cost`: the recorder's measured cost, as `record` stores it in the header.
  std::string write_trace(const Synth& t, const std::string& root, const std::vector<PrestateEntry>& prestate = {},
                          const RecordCost* cost = nullptr, const TraceFooter& footer = {}) {
    std::string path = base + "/t" + std::to_string(++traces_) + ".trace";
    TraceHeader h;
    if (cost) h.record_cost = *cost;
    h.recorder_choices = trace_choices;
    h.root = root;
    h.initial.cwd = root;
    h.initial.pid = t.ev.empty() ? 0 : t.ev[0].pid;
    auto w = TraceWriter::create(path, h);
    EXPECT_TRUE(w.is_ok()) << w.message();
    if (!w.is_ok()) return path;
    TraceWriter& wr = *w.value();
    std::vector<StrId> ids(t.strs.size(), kNoStr);
    for (size_t i = 1; i < t.strs.size(); ++i) ids[i] = wr.intern(t.strs[i]);
    for (const auto& p : prestate) EXPECT_TRUE(wr.add_prestate(p).is_ok());
    for (Event e : t.ev) {
      for (auto& p : e.path) p = ids[p];
      EXPECT_TRUE(wr.append(e).is_ok());
    }
    EXPECT_TRUE(wr.finish(footer).is_ok());
    return path;
  }

  ReplayOptions options(TimingMode timing = TimingMode::kAfap) {
    ReplayOptions o;
    o.target = target;
    o.scratch = scratch;
    o.timing = timing;
    o.progress = false;
    o.output = base + "/out" + std::to_string(++results_) + ".result";
    return o;
  }

  // Every record of a trace (Event) or result (OpRecord) file, as stored
  // (the writer quantises a trace's timings).
  template <typename T>
  static std::vector<T> read_all(const std::string& path) {
    std::vector<T> all, chunk;
    auto r = TraceReader::open(path);
    EXPECT_TRUE(r.is_ok()) << r.message();
    if (!r.is_ok()) return all;
    while (true) {
      auto more = r.value()->next(chunk);
      if (!more.is_ok() || !more.value()) break;
      all.insert(all.end(), chunk.begin(), chunk.end());
    }
    return all;
  }
  static std::vector<Event> read_events(const std::string& path) { return read_all<Event>(path); }
  static std::vector<OpRecord> read_result(const std::string& path) { return read_all<OpRecord>(path); }

 public:
  static PrestateEntry entry(const std::string& path, PrestateKind kind, uint64_t size = 0,
                             const std::string& link = "") {
    PrestateEntry e;
    e.path = path;
    e.kind = kind;
    e.mode = kind == PrestateKind::kDir ? 040755 : kind == PrestateKind::kFile ? 0100644 : 0120777;
    e.size = size;
    e.target = link;
    return e;
  }

 protected:
  std::string base, target, scratch, sentinel;
  uint64_t sentinel_hash = 0;
  int traces_ = 0, results_ = 0;
};

#ifdef FSR_FSREPLAY_PATH
// Runs `fsreplay ARGS` (the real command), stdout and stderr together;
// `status` gets its exit status (-1 if it did not exit).
inline std::string run_cli(const std::string& args, int& status) {
  const std::string cmd = std::string(FSR_FSREPLAY_PATH) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  for (size_t n; p && (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int st = p ? pclose(p) : -1;
  status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}
#endif

}  // namespace fsr::test

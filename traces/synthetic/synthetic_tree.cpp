// SPDX-License-Identifier: Apache-2.0
#include "traces/synthetic/synthetic_tree.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <random>
#include <vector>

#include "traces/syscalls.h"
#include "traces/trace_writer.h"

namespace fsr {
namespace {

constexpr uint64_t kLeafMax = 200;  // entries in a directory at most (but the deepest)
constexpr uint32_t kMaxDepth = 8;
constexpr size_t kSample = 4096;  // paths kept for the events
constexpr uint64_t kDev = 0x803;

const char* const kDirNames[] = {"src", "lib",      "include", "test",   "docs", "node_modules", "build",
                                 "pkg", "internal", "vendor",  "assets", "util", "core",         "cmd"};
const char* const kExts[] = {".js", ".ts", ".json", ".c", ".h", ".md", ".py", ".go", ".rs", ".txt"};

struct Sampled {
  std::string path;
  uint64_t size = 0, ino = 0;
  uint32_t mode = 0;
};

class TreeGen {
 public:
  TreeGen(TraceWriter& w, const TreeTraceShape& shape) : w_(w), rng_(shape.seed), shape_(shape) {}

  Status run() {
    const uint64_t outside = shape_.entries >= 1000 ? shape_.entries / 100 : 0;
    const uint64_t inside = shape_.entries - outside;
    // The recorded root itself is an entry; its ancestors are not the trace's.
    FSR_RETURN_IF_ERROR(emit_dir(shape_.root, 0));
    if (inside > 1) FSR_RETURN_IF_ERROR(dir(shape_.root, inside - 1, 0));
    if (outside >= 3) {  // /usr, /usr/lib and a library tree beneath it, read by the trace
      FSR_RETURN_IF_ERROR(emit_dir("/usr", 0));
      FSR_RETURN_IF_ERROR(emit_dir("/usr/lib", 0));
      FSR_RETURN_IF_ERROR(emit_dir("/usr/lib/synth", 0));
      FSR_RETURN_IF_ERROR(dir("/usr/lib/synth", outside - 3, 0));
    } else if (outside) {
      FSR_RETURN_IF_ERROR(leaf(shape_.root, outside, 0));
    }
    st_.outside = outside;
    return events();
  }
  const TreeTraceStats& stats() const { return st_; }

 private:
  uint64_t pick(uint64_t n) { return n ? rng_() % n : 0; }

  Status add(PrestateEntry e, uint32_t depth) {
    st_.max_depth = std::max(st_.max_depth, depth);
    ++st_.entries;
    return w_.add_prestate(e);
  }
  Status emit_dir(const std::string& path, uint32_t depth) {
    PrestateEntry e;
    e.path = path;
    e.kind = PrestateKind::kDir;
    e.mode = 040755;
    e.dev = kDev;
    e.ino = ++ino_;
    ++st_.dirs;
    if (dirs_seen_++ < kSample)
      dirs_.push_back(path);
    else if (uint64_t r = pick(dirs_seen_); r < kSample / 8)
      dirs_[r] = path;
    return add(std::move(e), depth);
  }
  // Mostly small: 15% empty, 70% 64 B-4 KiB, 14% 4-16 KiB, 1% 16-128 KiB (log-uniform within).
  uint64_t file_size() {
    const uint64_t r = pick(100);
    auto lg = [&](double lo, double hi) {
      std::uniform_real_distribution<double> u(std::log(lo), std::log(hi));
      return static_cast<uint64_t>(std::exp(u(rng_)));
    };
    if (r < 15) return 0;
    if (r < 85) return lg(64, 4096);
    if (r < 99) return lg(4096, 16384);
    return lg(16384, 131072);
  }
  void sample(const PrestateEntry& e) {
    Sampled s{e.path, e.size, e.ino, e.mode};
    if (files_seen_++ < kSample)
      files_.push_back(std::move(s));
    else if (uint64_t r = pick(files_seen_); r < kSample)
      files_[r] = std::move(s);
  }

  // `budget` entries beneath `path` (at `depth`): some subdirectories that
  // share most of it, the rest files, until a directory can hold what is left.
  Status dir(const std::string& path, uint64_t budget, uint32_t depth) {
    if (budget <= kLeafMax || depth + 1 >= kMaxDepth) return leaf(path, budget, depth);
    uint64_t k = std::min<uint64_t>(budget, 10 + pick(kLeafMax - 9));
    uint64_t subdirs = std::clamp<uint64_t>(budget / 2000, 2, std::max<uint64_t>(2, k / 2));
    subdirs = std::min(subdirs, k);
    const uint64_t files = k - subdirs;
    FSR_RETURN_IF_ERROR(leaf(path, files, depth));
    uint64_t left = budget - files - subdirs;  // beneath the subdirectories
    for (uint64_t i = 0; i < subdirs; ++i) {
      // Even shares with +-50% jitter; the last takes the rest.
      uint64_t share = left / (subdirs - i);
      if (i + 1 < subdirs && share > 1) share = share / 2 + pick(share + 1);
      share = std::min(share, left);
      std::string sub = path + "/" + kDirNames[pick(std::size(kDirNames))] + std::to_string(i);
      FSR_RETURN_IF_ERROR(emit_dir(sub, depth + 1));
      FSR_RETURN_IF_ERROR(dir(sub, share, depth + 1));
      left -= share;
    }
    return Status::ok();
  }

  // `n` entries directly in `path`: files, symlinks (mostly to a sibling),
  // hard-link pairs, a few empty directories.
  Status leaf(const std::string& path, uint64_t n, uint32_t depth) {
    std::string last_file;
    for (uint64_t i = 0; i < n;) {
      const uint64_t r = pick(100);
      const std::string base = path + "/f" + std::to_string(i);
      PrestateEntry e;
      e.dev = kDev;
      e.ino = ++ino_;
      if (r < 2) {  // an empty directory
        FSR_RETURN_IF_ERROR(emit_dir(path + "/d" + std::to_string(i), depth + 1));
        ++i;
        continue;
      }
      if (r < 8) {  // a symlink: to a sibling, up a level, or into the root from elsewhere
        e.path = base + ".lnk";
        e.kind = PrestateKind::kSymlink;
        e.mode = 0120777;
        const uint64_t t = pick(10);
        e.target = t < 7 && !last_file.empty() ? last_file.substr(last_file.rfind('/') + 1)
                   : t < 9                     ? "../" + std::string(kDirNames[pick(std::size(kDirNames))])
                                               : shape_.root + "/package.json";
        e.size = e.target.size();
        ++st_.symlinks;
        FSR_RETURN_IF_ERROR(add(std::move(e), depth + 1));
        ++i;
        continue;
      }
      e.path = base + kExts[pick(std::size(kExts))];
      e.kind = PrestateKind::kFile;
      e.mode = pick(20) ? 0100644 : 0100755;
      e.size = file_size();
      const bool pair = r < 11 && i + 1 < n;  // a hard link: two names, one inode
      e.nlink = pair ? 2 : 1;
      ++st_.files;
      st_.bytes += e.size;
      last_file = e.path;
      sample(e);
      if (pair) {
        PrestateEntry l = e;
        l.path = base + ".hl";
        FSR_RETURN_IF_ERROR(add(std::move(e), depth + 1));
        ++st_.hard_links;
        FSR_RETURN_IF_ERROR(add(std::move(l), depth + 1));
        i += 2;
        continue;
      }
      FSR_RETURN_IF_ERROR(add(std::move(e), depth + 1));
      ++i;
    }
    return Status::ok();
  }

  // One process: stats and reads of sampled files, failed probes, new files
  // and directories in sampled directories.
  Status events() {
    uint64_t ts = 1'000'000, made = 0;
    auto ev = [&](uint16_t nr, int64_t ret, uint64_t dur) {
      Event e;
      e.pid = e.tid = 1000;
      e.nr = nr;
      e.ret = ret;
      ts += 2000 + pick(20000);
      e.ts = ts;
      e.dur = dur + pick(dur);
      ts += e.dur;
      return e;
    };
    auto put = [&](Event e) {
      ++st_.events;
      return w_.append(e);
    };
    auto facts = [&](Event& e, const Sampled& s) {
      e.dev = kDev;
      e.ino = s.ino;
      e.size = s.size;
      e.mode = s.mode;
    };
    while (st_.events < shape_.events && !files_.empty() && !dirs_.empty()) {
      const uint64_t r = pick(10);
      const Sampled& f = files_[pick(files_.size())];
      const std::string& d = dirs_[pick(dirs_.size())];
      if (r < 4) {  // stat
        Event e = ev(SYS_newfstatat, 0, 1500);
        e.args[0] = kAtFdcwdArg;
        e.path[0] = w_.intern(f.path);
        facts(e, f);
        FSR_RETURN_IF_ERROR(put(e));
      } else if (r < 7) {  // open, read it whole, close
        Event o = ev(SYS_openat, 3, 3000);
        o.args[0] = kAtFdcwdArg;
        o.args[2] = O_RDONLY | O_CLOEXEC;
        o.path[0] = w_.intern(f.path);
        facts(o, f);
        FSR_RETURN_IF_ERROR(put(o));
        for (uint64_t off = 0;; off += 65536) {
          Event rd =
              ev(SYS_read, static_cast<int64_t>(std::min<uint64_t>(65536, f.size - std::min(f.size, off))), 1500);
          rd.args[0] = 3;
          rd.args[2] = 65536;
          FSR_RETURN_IF_ERROR(put(rd));
          if (rd.ret == 0) break;
        }
        Event c = ev(SYS_close, 0, 500);
        c.args[0] = 3;
        FSR_RETURN_IF_ERROR(put(c));
      } else if (r < 8) {  // a probe that fails
        Event e = ev(SYS_newfstatat, -ENOENT, 1200);
        e.args[0] = kAtFdcwdArg;
        e.path[0] = w_.intern(d + "/missing" + std::to_string(pick(50)) + ".js");
        FSR_RETURN_IF_ERROR(put(e));
      } else if (r < 9) {  // a new file
        Event o = ev(SYS_openat, 3, 6000);
        o.args[0] = kAtFdcwdArg;
        o.args[2] = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
        o.args[3] = 0644;
        o.path[0] = w_.intern(d + "/out" + std::to_string(made++) + ".o");
        FSR_RETURN_IF_ERROR(put(o));
        Event wr = ev(SYS_write, 4096, 4000);
        wr.args[0] = 3;
        wr.args[2] = 4096;
        FSR_RETURN_IF_ERROR(put(wr));
        Event c = ev(SYS_close, 0, 800);
        c.args[0] = 3;
        FSR_RETURN_IF_ERROR(put(c));
      } else {  // a new directory
        Event m = ev(SYS_mkdir, 0, 8000);
        m.args[1] = 0755;
        m.path[0] = w_.intern(d + "/made" + std::to_string(made++));
        FSR_RETURN_IF_ERROR(put(m));
      }
    }
    return Status::ok();
  }

  TraceWriter& w_;
  std::mt19937_64 rng_;
  TreeTraceShape shape_;
  TreeTraceStats st_;
  uint64_t ino_ = 1000;
  uint64_t files_seen_ = 0, dirs_seen_ = 0;
  std::vector<Sampled> files_;
  std::vector<std::string> dirs_;
};

}  // namespace

Result<TreeTraceStats> write_tree_trace(const std::string& path, const TreeTraceShape& shape) {
  TraceHeader h;
  h.command = {"synthetic-tree"};
  h.root = shape.root;
  h.initial.cwd = shape.root;
  h.initial.pid = 1000;
  FSR_ASSIGN_OR_RETURN(std::unique_ptr<TraceWriter> w, TraceWriter::create(path, h));
  TreeGen gen(*w, shape);
  if (Status st = gen.run(); !st) return Status::error(path + ": " + st.message());
  TraceFooter f;
  f.end_ns = 0;
  FSR_RETURN_IF_ERROR(w->finish(f));
  return gen.stats();
}

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
#include "probe/probe_cases.h"

#include <fcntl.h>

#include <iterator>
#include <string>

namespace fsr {
namespace {

constexpr uint32_t kDepths[] = {2, 3, 5, 7, 9};
constexpr uint64_t kDirEntries[] = {0, 16, 128, 1024};
constexpr uint64_t kReadSizes[] = {0, 128, 4096, 65536};
constexpr uint64_t kWriteSizes[] = {128, 4096, 65536};
constexpr uint64_t kLarge = 1u << 20;
constexpr size_t kStalePerDelay = 12;
// Idle gaps before a stat of a just-written file (kStatWritten's parameter):
// back to back, a short think time, a process start.
constexpr uint32_t kIdleUs[] = {0, 250, 2000};

// The file at depth d (d >= 2) below the probed directory, relative to P.
std::string at_depth(uint32_t d, const std::string& leaf) {
  if (d <= 2) return leaf;
  std::string p = "fix/";
  for (uint32_t i = 3; i < d; ++i) p += "a/";
  return p + leaf;
}

std::string name_of(const std::string& dir, const char* stem, uint64_t a, uint32_t j) {
  return dir + "/" + stem + std::to_string(a) + "_" + std::to_string(j);
}

// The first touch of an object in a round: cold after a cache drop, else
// untimed (it makes the object warm for the second touch).
ProbeTag first_touch(const RoundSpec& r, ProbeKind k, uint64_t param = 0) {
  return r.cold ? timed(k, Temp::kCold, param) : untimed();
}

// Lookups: existing, missing (a fresh name is cold in every round), at depth.
void measure_lookups(ProbeScript& s, const RoundSpec& r, const std::string& d, uint32_t j) {
  const std::string rd = std::to_string(r.round);
  // A file written in setup: a mount that drops its attributes on a write
  // asks again (after a cache drop it would be a cold lookup instead).
  if (!r.cold)
    for (uint64_t k = 0; k < std::size(kIdleUs); ++k)
      s.stat(name_of(d, "ws", k, j), true, timed_after_idle(ProbeKind::kStatWritten, kIdleUs[k]));
  s.stat(name_of(d, "s", 0, j), true, first_touch(r, ProbeKind::kStat, kProbeRefDepth));
  s.stat(name_of(d, "s", 0, j), true, timed(ProbeKind::kStat, Temp::kWarm, kProbeRefDepth));
  for (const auto& [name, depth] : {std::pair{name_of(d, "x", 0, j), kProbeRefDepth},
                                    std::pair{at_depth(9, "x" + rd + "_" + std::to_string(j)), 9u}}) {
    s.stat(name, false, timed(ProbeKind::kStatMissing, Temp::kCold, depth));
    s.stat(name, false, timed(ProbeKind::kStatMissing, Temp::kWarm, depth));
  }
  if (j < 2)
    for (uint32_t depth : kDepths) {
      const std::string f = at_depth(depth, depth == 2 ? "f2" : "f");
      s.stat(f, true, first_touch(r, ProbeKind::kStat, depth));
      s.stat(f, true, timed(ProbeKind::kStat, Temp::kWarm, depth));
    }
}

// Opens, whole-file reads and writes of one sample's files.
void measure_file_io(ProbeScript& s, const RoundSpec& r, const std::string& d, uint32_t j) {
  // Opens: existing (then fstat, lseek, close of a file only read), missing.
  int fd = s.open(name_of(d, "o", 0, j), O_RDONLY, first_touch(r, ProbeKind::kOpenFile));
  s.close(fd, untimed());
  fd = s.open(name_of(d, "o", 0, j), O_RDONLY, timed(ProbeKind::kOpenFile));
  s.fstat(fd, timed(ProbeKind::kFstat));
  s.lseek(fd, timed(ProbeKind::kFd));
  s.close(fd, timed(ProbeKind::kCloseClean));
  s.open(name_of(d, "y", 0, j), O_RDONLY, timed(ProbeKind::kOpenMissing, Temp::kCold), false);
  s.open(name_of(d, "y", 0, j), O_RDONLY, timed(ProbeKind::kOpenMissing, Temp::kWarm), false);
  // Reads of whole small files: the first after open.
  for (uint64_t size : kReadSizes) {
    for (bool warm : {false, true}) {
      fd = s.open(name_of(d, "d", size, j), O_RDONLY, untimed());
      s.read(fd, size, warm ? timed(ProbeKind::kRead, Temp::kWarm, size) : first_touch(r, ProbeKind::kRead, size));
      s.close(fd, untimed());
    }
  }
  // Writes: create, write, close after write.
  for (uint64_t size : kWriteSizes) {
    fd = s.open(name_of(d, "w", size, j), O_WRONLY | O_CREAT | O_EXCL, timed(ProbeKind::kOpenCreate));
    s.write(fd, size, timed(ProbeKind::kWrite, Temp::kWarm, size));
    s.close(fd, timed(ProbeKind::kCloseWrite));
  }
}

// Name space and attributes.
void measure_names(ProbeScript& s, const std::string& d, uint32_t j) {
  s.mkdir(name_of(d, "m", 0, j), timed(ProbeKind::kMkdir));
  s.rmdir(name_of(d, "m", 0, j), timed(ProbeKind::kRmdir));
  s.unlink(name_of(d, "u", 0, j), timed(ProbeKind::kUnlink));
  s.rename(name_of(d, "n", 0, j), name_of(d, "n", 1, j), timed(ProbeKind::kRename));
  s.link(name_of(d, "n", 1, j), name_of(d, "l", 0, j), timed(ProbeKind::kLink));
  s.symlink("n1_" + std::to_string(j), name_of(d, "sl", 0, j), timed(ProbeKind::kSymlink));
  s.chmod(name_of(d, "n", 1, j), timed(ProbeKind::kAttr));
  s.getxattr(name_of(d, "n", 1, j), timed(ProbeKind::kXattr));
  const int fd = s.open(name_of(d, "n", 1, j), O_WRONLY, untimed());
  s.ftruncate(fd, 0, timed(ProbeKind::kAttrFd));
  s.close(fd, untimed());
}

// 1 MiB reads and writes.
void measure_large(ProbeScript& s, const RoundSpec& r, const std::string& d) {
  for (uint32_t j = 0; j < r.large_samples; ++j) {
    for (bool warm : {false, true}) {
      int fd = s.open(name_of(d, "d", kLarge, j), O_RDONLY, untimed());
      s.read(fd, kLarge,
             warm ? timed(ProbeKind::kRead, Temp::kWarm, kLarge) : first_touch(r, ProbeKind::kRead, kLarge));
      s.close(fd, untimed());
    }
    int fd = s.open(name_of(d, "w", kLarge, j), O_WRONLY | O_CREAT | O_EXCL, timed(ProbeKind::kOpenCreate));
    s.write(fd, kLarge, timed(ProbeKind::kWrite, Temp::kWarm, kLarge));
    s.close(fd, timed(ProbeKind::kCloseWrite));
  }
}

// Directories by entry count: the listing and the call that finds its end.
void measure_dirs(ProbeScript& s, const RoundSpec& r) {
  for (uint64_t n : kDirEntries) {
    const std::string g = "fix/g" + std::to_string(n);
    for (bool warm : {false, true}) {
      const ProbeTag open_tag = warm ? timed(ProbeKind::kOpenDir) : first_touch(r, ProbeKind::kOpenDir);
      int fd = s.open(g, O_RDONLY | O_DIRECTORY, open_tag);
      for (int call = 0; call < 2; ++call)
        s.getdents(fd, warm ? timed(ProbeKind::kReaddir) : first_touch(r, ProbeKind::kReaddir));
      s.close(fd, warm ? timed(ProbeKind::kCloseClean) : untimed());
    }
  }
}

// A file read in pieces: 4 KiB pieces over its first 256 KiB, then 64 KiB ones.
void measure_sequential(ProbeScript& s, const RoundSpec& r) {
  for (bool warm : {false, true}) {
    int fd = s.open("fix/seq", O_RDONLY, untimed());
    for (int k = 0; k < 64; ++k) {
      const ProbeKind kind = k == 0 ? ProbeKind::kRead : ProbeKind::kReadSeq;
      s.read(fd, 4096, warm ? timed(kind, Temp::kWarm, 4096) : first_touch(r, kind, 4096));
    }
    for (int k = 0; k < 12; ++k)
      s.read(fd, 65536,
             warm ? timed(ProbeKind::kReadSeq, Temp::kWarm, 65536) : first_touch(r, ProbeKind::kReadSeq, 65536));
    s.close(fd, untimed());
  }
}

// A mapping's first touches, one per fault-around window (64 KiB).
void measure_mapping(ProbeScript& s, const RoundSpec& r) {
  int fd = s.open("fix/map", O_RDONLY, untimed());
  for (bool warm : {false, true}) {
    const uint64_t addr = s.mmap(fd, kLarge, timed(ProbeKind::kMmap));
    for (uint64_t off = 0; off < kLarge; off += 65536)
      s.fault(addr, off, warm ? timed(ProbeKind::kPageFault) : first_touch(r, ProbeKind::kPageFault));
    s.munmap(addr, kLarge, timed(ProbeKind::kMunmap));
  }
  s.close(fd, untimed());
}

}  // namespace

std::string round_dir(const RoundSpec& r) { return "r" + std::to_string(r.round); }

void fixture_setup(ProbeScript& s) {
  s.mkdir("fix", untimed());
  std::string d = "fix";
  for (uint32_t i = 3; i + 1 <= 9; ++i) s.mkdir(d += "/a", untimed());
  for (uint32_t depth : kDepths) s.make_file(at_depth(depth, depth == 2 ? "f2" : "f"), 0);
  for (uint64_t n : kDirEntries) {
    const std::string g = "fix/g" + std::to_string(n);
    s.mkdir(g, untimed());
    for (uint64_t i = 0; i < n; ++i) s.make_file(g + "/e" + std::to_string(i), 0);
  }
  s.make_file("fix/map", kLarge);
  s.make_file("fix/seq", kLarge);
}

void round_setup(ProbeScript& s, const RoundSpec& r) {
  const std::string d = round_dir(r);
  s.mkdir(d, untimed());
  for (uint32_t j = 0; j < r.samples; ++j) {
    s.make_file(name_of(d, "s", 0, j), 0);
    s.make_file(name_of(d, "o", 0, j), 0);
    s.make_file(name_of(d, "n", 0, j), 0);
    s.make_file(name_of(d, "u", 0, j), 0);
    for (uint64_t k = 0; k < std::size(kIdleUs); ++k)
      s.make_file(name_of(d, "ws", k, j), 128);  // written and closed: its next stat (kStatWritten)
    for (uint64_t size : kReadSizes) s.make_file(name_of(d, "d", size, j), size);
  }
  for (uint32_t j = 0; j < r.large_samples; ++j) s.make_file(name_of(d, "d", kLarge, j), kLarge);
}

std::vector<std::string> round_data_files(const RoundSpec& r) {
  std::vector<std::string> v{"fix/map", "fix/seq"};
  const std::string d = round_dir(r);
  for (uint32_t j = 0; j < r.samples; ++j)
    for (uint64_t size : kReadSizes) v.push_back(name_of(d, "d", size, j));
  for (uint32_t j = 0; j < r.large_samples; ++j) v.push_back(name_of(d, "d", kLarge, j));
  return v;
}

void round_measure(ProbeScript& s, const RoundSpec& r) {
  const std::string d = round_dir(r);
  for (uint32_t j = 0; j < r.samples; ++j) {
    measure_lookups(s, r, d, j);
    measure_file_io(s, r, d, j);
    measure_names(s, d, j);
  }
  measure_large(s, r, d);
  measure_dirs(s, r);
  measure_sequential(s, r);
  measure_mapping(s, r);
  // fsync last: the journal commit it starts slows the name-space ops and
  // writes measured after it (on bindfs over ext4), which a trace without
  // fsync never sees.
  for (uint32_t j = 0; j < r.samples; ++j) {
    const int wfd = s.open(name_of(d, "fs", 0, j), O_WRONLY | O_CREAT | O_EXCL, untimed());
    s.write(wfd, 128, untimed());
    s.fsync(wfd, timed(ProbeKind::kFsync));
    s.close(wfd, timed(ProbeKind::kCloseWrite));
  }
}

void stale_setup(ProbeScript& s) {
  s.mkdir("stale", untimed());
  for (uint64_t ms : kStaleDelaysMs)
    for (size_t j = 0; j < kStalePerDelay; ++j)
      s.make_file("stale/t" + std::to_string(ms) + "_" + std::to_string(j), 0);
  for (uint64_t ms : kStaleDelaysMs)
    for (size_t j = 0; j < kStalePerDelay; ++j)
      s.stat("stale/t" + std::to_string(ms) + "_" + std::to_string(j), true, untimed());
}

void stale_measure(ProbeScript& s, size_t k) {
  const uint64_t ms = kStaleDelaysMs[k];
  for (size_t j = 0; j < kStalePerDelay; ++j)
    s.stat("stale/t" + std::to_string(ms) + "_" + std::to_string(j), true, timed(ProbeKind::kStat, Temp::kStale, ms));
}

}  // namespace fsr

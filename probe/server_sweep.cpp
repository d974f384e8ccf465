// SPDX-License-Identifier: Apache-2.0
#include "probe/server_sweep.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <latch>
#include <memory>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "probe/server_fit.h"
#include "base/clock.h"
#include "base/unique_fd.h"

namespace fsr {
namespace {

constexpr int kSmallFiles = 32;
constexpr uint64_t kSmall = 4096;
constexpr uint64_t kBig = 1ull << 20;
constexpr uint64_t kDataBytes = 4 * kBig;  // each stream's data file: random and sequential reads

enum class Op { kStat, kOpen, kReadSmall, kCreate, kUnlink, kRandRead, kSeqRead, kSeqWrite };
struct Case {
  Op op;
  ProbeKind kind;
  uint64_t param;
  bool direct;
};
constexpr Case kCases[] = {
    {Op::kStat, ProbeKind::kStat, 0, false},
    {Op::kOpen, ProbeKind::kOpenFile, 0, false},
    {Op::kReadSmall, ProbeKind::kRead, kSmall, false},
    {Op::kCreate, ProbeKind::kOpenCreate, 0, false},
    {Op::kUnlink, ProbeKind::kUnlink, 0, false},  // the files the create case made, right before
    {Op::kRandRead, ProbeKind::kReadSeq, kSmall, false},
    {Op::kRandRead, ProbeKind::kReadSeq, kSmall, true},
    {Op::kSeqRead, ProbeKind::kReadSeq, kBig, false},
    {Op::kSeqRead, ProbeKind::kReadSeq, kBig, true},
    {Op::kSeqWrite, ProbeKind::kWrite, kBig, false},
    {Op::kSeqWrite, ProbeKind::kWrite, kBig, true},
};

struct FreeDeleter {
  void operator()(char* p) const { free(p); }
};

// One thread's files, kept from point to point.
struct Stream {
  UniqueFd dir;
  uint64_t created = 0, unlinked = 0;      // c<n> files
  std::unique_ptr<char, FreeDeleter> buf;  // kBig, aligned for O_DIRECT
};

struct Thread {
  uint64_t ops = 0, t_ns = 0;
  int err = 0;  // errno of the call that stopped it
  std::vector<uint64_t> lat;
};

std::string small_name(uint64_t n) { return "m" + std::to_string(n % kSmallFiles); }

// One call (or open-read-close, open-close) of the case; <0: -errno;
// 1: nothing left to do (unlink found no file created before).
int one_op(const Case& c, Stream& s, int data_fd, uint64_t n, std::mt19937& rng) {
  char* buf = s.buf.get();
  struct stat st;
  switch (c.op) {
    case Op::kStat:
      return fstatat(s.dir.get(), small_name(n).c_str(), &st, 0) == 0 ? 0 : -errno;
    case Op::kOpen:
    case Op::kReadSmall: {
      const int fd = openat(s.dir.get(), small_name(n).c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) return -errno;
      const ssize_t r = c.op == Op::kReadSmall ? ::read(fd, buf, kSmall) : 0;
      const int err = r < 0 ? -errno : 0;
      close(fd);
      return err;
    }
    case Op::kCreate: {
      const std::string name = "c" + std::to_string(s.created);
      const int fd = openat(s.dir.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      if (fd < 0) return -errno;
      close(fd);
      ++s.created;
      return 0;
    }
    case Op::kUnlink: {
      if (s.unlinked >= s.created) return 1;
      const std::string name = "c" + std::to_string(s.unlinked++);
      return unlinkat(s.dir.get(), name.c_str(), 0) == 0 ? 0 : -errno;
    }
    case Op::kRandRead: {
      const off_t off = static_cast<off_t>(rng() % (kDataBytes / kSmall) * kSmall);
      const ssize_t r = pread(data_fd, buf, kSmall, off);
      return r == static_cast<ssize_t>(kSmall) ? 0 : r < 0 ? -errno : -EIO;
    }
    case Op::kSeqRead:
    case Op::kSeqWrite: {
      const off_t off = static_cast<off_t>(n % (kDataBytes / kBig) * kBig);
      const ssize_t r = c.op == Op::kSeqRead ? pread(data_fd, buf, kBig, off) : pwrite(data_fd, buf, kBig, off);
      return r == static_cast<ssize_t>(kBig) ? 0 : r < 0 ? -errno : -EIO;
    }
  }
  return -EINVAL;
}

void run_thread(const Case& c, Stream& s, double window_s, const std::atomic<bool>* stop, std::latch& go, Thread& t) {
  UniqueFd data;
  const bool needs_fd = c.op == Op::kRandRead || c.op == Op::kSeqRead || c.op == Op::kSeqWrite;
  if (needs_fd) {
    const int direct = c.direct ? O_DIRECT : 0;
    const int fd = c.op == Op::kSeqWrite ? openat(s.dir.get(), "out", O_WRONLY | O_CREAT | O_CLOEXEC | direct, 0644)
                                         : openat(s.dir.get(), "data", O_RDONLY | O_CLOEXEC | direct);
    if (fd < 0) t.err = errno;
    data.reset(fd);
  }
  std::mt19937 rng(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(&t)));
  t.lat.reserve(4096);
  go.arrive_and_wait();
  const uint64_t start = now_ns();
  const uint64_t deadline = start + static_cast<uint64_t>(window_s * 1e9);
  uint64_t now = start;
  for (uint64_t n = 0; !t.err && now < deadline; ++n) {
    if (stop && stop->load(std::memory_order_relaxed)) break;
    const int r = one_op(c, s, data.get(), n, rng);
    const uint64_t end = now_ns();
    if (r < 0) t.err = -r;
    if (r != 0) break;
    t.lat.push_back(end - now);
    ++t.ops;
    now = end;
  }
  t.t_ns = now - start;
}

// One point: `streams` threads on the case for the window. Returns errno of
// a failed call (the point then is not kept).
int run_point(const Case& c, std::vector<Stream>& streams, uint32_t n, const SweepOptions& o, ConcurrencyPoint& p) {
  std::vector<Thread> th(n);
  std::latch go(n);
  std::vector<std::thread> threads;
  for (uint32_t i = 0; i < n; ++i)
    threads.emplace_back(run_thread, std::cref(c), std::ref(streams[i]), o.point_s, o.stop, std::ref(go),
                         std::ref(th[i]));
  for (std::thread& t : threads) t.join();
  double rate = 0;  // ops per ns, each thread over its own time
  std::vector<uint64_t> lat;
  p = ConcurrencyPoint{c.kind, n, 0, 0, 0, c.param, c.direct};
  for (const Thread& t : th) {
    if (t.err) return t.err;
    p.ops += t.ops;
    if (t.t_ns) rate += double(t.ops) / double(t.t_ns);
    lat.insert(lat.end(), t.lat.begin(), t.lat.end());
  }
  if (!p.ops || rate <= 0) return 0;
  p.wall_ns = static_cast<uint64_t>(double(p.ops) / rate + 0.5);
  std::nth_element(lat.begin(), lat.begin() + lat.size() / 2, lat.end());
  p.median_ns = lat[lat.size() / 2];
  return 0;
}

Status write_all(int dir, const char* name, const char* buf, uint64_t bytes) {
  UniqueFd fd(openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  for (uint64_t off = 0; fd.valid() && off < bytes;) {
    const uint64_t n = std::min<uint64_t>(kBig, bytes - off);
    const ssize_t w = pwrite(fd.get(), buf, n, static_cast<off_t>(off));
    if (w <= 0) return Status::error(fmt::format("cannot write {}: {}", name, std::strerror(errno)));
    off += static_cast<uint64_t>(w);
  }
  if (!fd.valid()) return Status::error(fmt::format("cannot create {}: {}", name, std::strerror(errno)));
  return Status::ok();
}

Status setup_streams(const SweepOptions& o, std::vector<Stream>& streams) {
  for (size_t i = 0; i < streams.size(); ++i) {
    Stream& s = streams[i];
    void* mem = nullptr;
    if (posix_memalign(&mem, 4096, kBig) != 0) return Status::error("out of memory for the sweep's buffers");
    s.buf.reset(static_cast<char*>(mem));
    std::memset(s.buf.get(), 'f', kBig);
    const std::string name = "s" + std::to_string(i);
    if (mkdirat(o.dir_fd, name.c_str(), 0700) != 0 && errno != EEXIST)
      return Status::error(
          fmt::format("{}/{}: cannot create the sweep's directory: {}", o.where, name, std::strerror(errno)));
    s.dir.reset(openat(o.dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!s.dir.valid()) return Status::error(fmt::format("{}/{}: {}", o.where, name, std::strerror(errno)));
    for (int k = 0; k < kSmallFiles; ++k)
      FSR_RETURN_IF_ERROR(write_all(s.dir.get(), small_name(k).c_str(), s.buf.get(), kSmall));
    FSR_RETURN_IF_ERROR(write_all(s.dir.get(), "data", s.buf.get(), kDataBytes));
  }
  return Status::ok();
}

}  // namespace

size_t sweep_case_count() { return std::size(kCases); }

double sweep_point_window_s(uint64_t now_ns, uint64_t deadline_ns, size_t points_left) {
  const double left_s = deadline_ns > now_ns ? double(deadline_ns - now_ns) / 1e9 : 0;
  return std::clamp(left_s / double(std::max<size_t>(points_left, 1)), kMinPointS, 1.0);
}

Status run_sweep(const SweepOptions& o, ServerModel& out, std::vector<std::string>& notes) {
  std::vector<Stream> streams(*std::max_element(std::begin(kSweepStreams), std::end(kSweepStreams)));
  if (Status st = setup_streams(o, streams); !st)
    return Status::error("concurrency sweep: " + st.message() + " (the probe needs write access to the mount)");
  std::vector<bool> dropped(std::size(kCases), false);
  bool direct_refused = false;
  size_t points_left = std::size(kCases) * std::size(kSweepStreams);
  SweepOptions po = o;
  for (uint32_t n : kSweepStreams) {
    for (size_t k = 0; k < std::size(kCases); ++k, --points_left) {
      const Case& c = kCases[k];
      if (dropped[k] || (c.direct && direct_refused)) continue;
      if (o.stop && o.stop->load()) return Status::error("interrupted");
      if (o.deadline_ns) po.point_s = sweep_point_window_s(now_ns(), o.deadline_ns, points_left);
      ConcurrencyPoint p;
      const int err = run_point(c, streams, n, po, p);
      if (err == EINVAL && c.direct) {
        direct_refused = true;
        notes.push_back("O_DIRECT refused (EINVAL) on this mount: direct cases of the concurrency sweep not measured");
      } else if (err) {
        dropped[k] = true;
        notes.push_back(fmt::format("concurrency sweep: {} at {} stream{}: {}; not measured",
                                    sweep_kind_label(c.kind, c.param, c.direct), n, n == 1 ? "" : "s",
                                    std::strerror(err)));
      } else if (p.ops) {
        out.sweep.push_back(p);
      }
    }
  }
  return Status::ok();
}

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
#include "probe/server_bandwidth.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "base/clock.h"
#include "base/unique_fd.h"

namespace fsr {
namespace {

constexpr uint64_t kChunk = 1ull << 20;

struct FreeDeleter {
  void operator()(char* p) const { free(p); }
};

struct Run {
  uint64_t bytes = 0, ns = 0;
  int err = 0;
  uint64_t bps() const { return ns ? static_cast<uint64_t>(double(bytes) * 1e9 / double(ns)) : 0; }
};

// Writes (or reads back) `name` in 1 MiB calls until `limit` bytes, or the
// time is up once `floor` bytes are done; a buffered write ends with fdatasync.
// A read that reaches the end of the file with time left starts over at 0
// (a buffered one first drops the file's pages, so that it asks the mount
// again): reads are faster than writes, and a read that stopped at the end
// of what the write managed would be timed over a fraction of its share.
Run transfer(const BandwidthOptions& o, const char* name, bool write, bool direct, uint64_t limit, uint64_t floor,
             double phase_s, char* buf) {
  Run r;
  const int flags = (write ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY) | O_CLOEXEC | (direct ? O_DIRECT : 0);
  UniqueFd fd(openat(o.dir_fd, name, flags, 0644));
  if (!fd.valid()) {
    r.err = errno;
    return r;
  }
  const uint64_t start = now_ns();
  const uint64_t until = start + static_cast<uint64_t>(phase_s * 1e9);
  uint64_t off = 0;
  while (r.bytes < limit && (r.bytes < floor || now_ns() < until)) {
    if (o.stop && o.stop->load(std::memory_order_relaxed)) break;
    const ssize_t n = write ? pwrite(fd.get(), buf, kChunk, static_cast<off_t>(off))
                            : pread(fd.get(), buf, kChunk, static_cast<off_t>(off));
    if (n < 0) {
      r.err = errno;
      return r;
    }
    if (n == 0) {  // the end of a file read back
      if (off == 0) break;
      if (!direct) (void)posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
      off = 0;
      continue;
    }
    r.bytes += static_cast<uint64_t>(n);
    off += static_cast<uint64_t>(n);
  }
  if (write && !direct && fdatasync(fd.get()) != 0) r.err = errno;
  r.ns = now_ns() - start;
  return r;
}

}  // namespace

Status run_bandwidth(const BandwidthOptions& o, ServerModel& out, std::vector<std::string>& notes) {
  void* mem = nullptr;
  if (posix_memalign(&mem, 4096, kChunk) != 0) return Status::error("out of memory for the bandwidth buffer");
  std::unique_ptr<char, FreeDeleter> buf(static_cast<char*>(mem));
  std::memset(buf.get(), 'b', kChunk);
  const double phase = o.budget_s / 4;
  auto failed = [&](const char* what, int err) {
    notes.push_back(fmt::format("bandwidth: {} in {}: {}; not measured", what, o.where, std::strerror(err)));
  };
  for (bool direct : {true, false}) {
    const char* name = direct ? "bw-direct" : "bw-buffered";
    const Run w = transfer(o, name, true, direct, o.max_bytes, o.min_bytes, phase, buf.get());
    if (w.err == EINVAL && direct) {
      notes.push_back("O_DIRECT refused (EINVAL) on this mount: direct bandwidths not measured");
    } else if (w.err) {
      failed(direct ? "O_DIRECT write" : "buffered write", w.err);
    } else {
      (direct ? out.write_bw_direct : out.write_bw_buffered) = w.bps();
      if (!direct) {
        // The pages just written are clean after fdatasync: drop them, so the read asks the mount.
        const UniqueFd fd(openat(o.dir_fd, name, O_RDONLY | O_CLOEXEC));
        if (!fd.valid() || posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED) != 0)
          notes.push_back("bandwidth: could not drop the buffered file's pages: its read may come from memory");
      }
      const Run r = transfer(o, name, false, direct, o.max_bytes, std::min(w.bytes, o.min_bytes), phase, buf.get());
      if (r.err)
        failed(direct ? "O_DIRECT read" : "buffered read", r.err);
      else
        (direct ? out.read_bw_direct : out.read_bw_buffered) = r.bps();
    }
    unlinkat(o.dir_fd, name, 0);
    if (o.stop && o.stop->load()) return Status::error("interrupted");
  }
  return Status::ok();
}

}  // namespace fsr

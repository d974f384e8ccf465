// SPDX-License-Identifier: Apache-2.0
// slowfs_server: the emulated server behind the mount — at most N requests in
// service at once (the rest wait in FIFO order for a slot) and one byte pipe
// that reads and writes share at a configured bandwidth, paced as a link
// (pace_pipe), with the counters that let tests check both without timing
// (peak in service, waits, bytes, overlapped pauses).
//
// Without slots or bandwidth it takes no lock: a request only bumps two
// relaxed atomics. Never touches the file system.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include "emulators/slowfs/slowfs_latency.h"

namespace fsr {

// Bytes per second of the shared pipe per direction; 0 = unlimited.
struct Bandwidth {
  double read_bps = 0;
  double write_bps = 0;
  bool operator==(const Bandwidth&) const = default;
};

// Parses "read=40MB,write=20MB" into `out` (items override; `all=` sets both).
// A rate is a positive number with an optional unit: B, KB, MB (the default),
// GB (powers of 1000) or KiB, MiB, GiB, each optionally followed by "/s";
// "none" removes the limit. Returns "" or a one-line error.
std::string apply_bandwidth_list(std::string_view list, Bandwidth& out);
std::string format_bandwidth(const Bandwidth& bw);  // "read 40 MB/s, write 20 MB/s"
// "1" .. "4096", or "0"/"none" for unlimited; nullopt-like -1 on garbage.
long parse_server_slots(std::string_view text);
int64_t mono_ns();  // CLOCK_MONOTONIC in ns

// The pipe's pacing clock: a transfer that occupies the link `busy_ns`
// (bytes / rate), arriving at `arrival_ns` on a link that is free from
// `free_at_ns`. A busy link serves it next (start = free_at). A link idle for
// a pause no longer than the transfer itself (the client's turnaround between
// two requests of one stream: FUSE's round trip, the request's own latency)
// counts as busy: the transfer starts where the link went idle, so a stream
// of back-to-back requests gets the configured rate however much each
// request costs below its transfer time, as on a real link that overlaps the
// next request with the data. The credit shrinks linearly to nothing at a
// pause of twice the transfer (so the rate falls smoothly with longer
// pauses); after that the transfer starts on arrival and takes its full
// busy_ns. The link is never busy twice at once: start >= free_at always.
struct PipeBooking {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t waited_ns = 0;      // start - arrival when the link was busy
  int64_t overlapped_ns = 0;  // arrival - start when a pause was credited
};
PipeBooking pace_pipe(int64_t free_at_ns, int64_t arrival_ns, int64_t busy_ns);

struct ServerCounters {
  uint64_t requests = 0;  // requests that went through enter()
  uint64_t peak_in_service = 0;
  uint64_t waited = 0;      // requests that found every slot busy
  uint64_t wait_ns = 0;     // their total time queued for a slot
  uint64_t read_bytes = 0;  // bytes through the pipe, by direction
  uint64_t write_bytes = 0;
  uint64_t pipe_waited = 0;      // transfers that queued behind another
  uint64_t pipe_wait_ns = 0;     // their total time queued for the pipe
  uint64_t pipe_busy_ns = 0;     // sum of B/bandwidth over all transfers
  uint64_t pipe_overlapped = 0;  // transfers that started in the pause before them
  uint64_t pipe_overlap_ns = 0;  // the pauses so credited (pace_pipe)
};

class ServerModel {
 public:
  // slots 0 = unlimited. Call before the first request.
  void configure(unsigned slots, Bandwidth bw);
  // Waits for a slot (FIFO) and takes it; leave() gives it back.
  void enter();
  void leave();
  // Books `bytes` on the pipe (pace_pipe) for a request that arrived at
  // `since` (CLOCK_MONOTONIC ns; 0 = now), and returns when the transfer
  // ends (0 if unlimited). Counts the bytes.
  int64_t reserve(uint64_t bytes, bool write, int64_t since = 0);
  // reserve(), then sleeps until the transfer ends. A caller with real work
  // to do (the backing write) reserves, works, then sleeps, so the work is
  // part of the transfer's time rather than added to it.
  void transfer(uint64_t bytes, bool write) { sleep_until_ns(reserve(bytes, write)); }
  ServerCounters counters() const;
  // For --server-stats: a "counter value" header, then "slots 1",
  // "peak_in_service 1", "waited 7", ... one per line (units in the names).
  std::string format() const;

 private:
  unsigned slots_ = 0;
  Bandwidth bw_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  uint64_t next_ticket_ = 0;  // FIFO: tickets are admitted in order
  uint64_t next_admit_ = 0;
  uint64_t busy_ = 0;  // requests in service (under mu_ when slots_ > 0)
  std::atomic<uint64_t> in_service_{0};
  std::atomic<uint64_t> peak_{0};
  std::atomic<uint64_t> requests_{0};
  uint64_t waited_ = 0, wait_ns_ = 0;
  mutable std::mutex pipe_mu_;
  int64_t pipe_free_at_ns_ = 0;
  std::atomic<uint64_t> read_bytes_{0}, write_bytes_{0};
  uint64_t pipe_waited_ = 0, pipe_wait_ns_ = 0, pipe_busy_ns_ = 0;
  uint64_t pipe_overlapped_ = 0, pipe_overlap_ns_ = 0;
};

// Holds a slot for its lifetime: a request's latency (and transfer) is its service.
class ServerSlot {
 public:
  explicit ServerSlot(ServerModel& m) : m_(m) { m_.enter(); }
  ~ServerSlot() { m_.leave(); }
  ServerSlot(const ServerSlot&) = delete;
  ServerSlot& operator=(const ServerSlot&) = delete;

 private:
  ServerModel& m_;
};

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
#include "emulators/slowfs/slowfs_server.h"

#include <time.h>

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace fsr {

int64_t mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000LL + ts.tv_nsec;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "40", "40MB", "2.5GiB/s" -> bytes per second; 0 for "none"; -1 if bad.
double parse_rate(std::string_view text) {
  text = trim(text);
  if (text == "none" || text == "unlimited") return 0;
  if (text.size() > 2 && text.substr(text.size() - 2) == "/s") text.remove_suffix(2);
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || !(v > 0)) return -1;
  std::string_view unit = text.substr(static_cast<size_t>(p - text.data()));
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"", 1e6},   {"B", 1},        {"KB", 1e3},        {"MB", 1e6},
      {"GB", 1e9}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}};
  for (const auto& [name, scale] : kUnits)
    if (unit == name) return v * scale;
  return -1;
}

std::string rate_text(double bps) {
  if (bps <= 0) return "unlimited";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%g MB/s", bps / 1e6);
  return buf;
}

void bump_peak(std::atomic<uint64_t>& peak, uint64_t now) {
  uint64_t seen = peak.load(std::memory_order_relaxed);
  while (now > seen && !peak.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {}
}

}  // namespace

std::string apply_bandwidth_list(std::string_view list, Bandwidth& out) {
  if (trim(list).empty()) return "--bandwidth needs read=RATE,write=RATE (e.g. read=40MB,write=20MB)";
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view item = trim(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    size_t eq = item.find('=');
    std::string_view key = eq == std::string_view::npos ? item : trim(item.substr(0, eq));
    if (eq == std::string_view::npos || (key != "read" && key != "write" && key != "all"))
      return "bandwidth item '" + std::string(item) + "' is not read=RATE, write=RATE or all=RATE";
    double bps = parse_rate(item.substr(eq + 1));
    if (bps < 0)
      return "bandwidth '" + std::string(item) +
             "' is not a positive rate: use e.g. 40MB, 40MB/s, 38MiB (MB = 10^6 bytes) or none";
    if (key != "write") out.read_bps = bps;
    if (key != "read") out.write_bps = bps;
  }
  return {};
}

std::string format_bandwidth(const Bandwidth& bw) {
  return "read " + rate_text(bw.read_bps) + ", write " + rate_text(bw.write_bps);
}

long parse_server_slots(std::string_view text) {
  text = trim(text);
  if (text == "none" || text == "unlimited") return 0;
  long n = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || p != text.data() + text.size() || n < 1 || n > 4096) return -1;
  return n;
}

void ServerModel::configure(unsigned slots, Bandwidth bw) {
  slots_ = slots;
  bw_ = bw;
}

void ServerModel::enter() {
  requests_.fetch_add(1, std::memory_order_relaxed);
  if (slots_ == 0) {
    bump_peak(peak_, in_service_.fetch_add(1, std::memory_order_relaxed) + 1);
    return;
  }
  std::unique_lock lock(mu_);
  const uint64_t ticket = next_ticket_++;
  auto admissible = [&] { return ticket == next_admit_ && busy_ < slots_; };
  if (!admissible()) {
    const int64_t start = mono_ns();
    cv_.wait(lock, admissible);
    ++waited_;
    wait_ns_ += static_cast<uint64_t>(mono_ns() - start);
  }
  ++next_admit_;
  ++busy_;
  bump_peak(peak_, busy_);
  // The next ticket may be admissible too (another slot is free).
  if (next_ticket_ > next_admit_ && busy_ < slots_) cv_.notify_all();
}

void ServerModel::leave() {
  if (slots_ == 0) {
    in_service_.fetch_sub(1, std::memory_order_relaxed);
    return;
  }
  {
    std::lock_guard lock(mu_);
    --busy_;
  }
  cv_.notify_all();
}

PipeBooking pace_pipe(int64_t free_at_ns, int64_t arrival_ns, int64_t busy_ns) {
  PipeBooking b;
  b.start_ns = arrival_ns;
  if (free_at_ns >= arrival_ns) {
    b.start_ns = free_at_ns;
    b.waited_ns = free_at_ns - arrival_ns;
  } else {
    const int64_t pause = arrival_ns - free_at_ns;
    b.overlapped_ns = pause <= busy_ns ? pause : std::max<int64_t>(0, 2 * busy_ns - pause);
    b.start_ns = arrival_ns - b.overlapped_ns;
  }
  b.end_ns = b.start_ns + busy_ns;
  return b;
}

int64_t ServerModel::reserve(uint64_t bytes, bool write, int64_t since) {
  (write ? write_bytes_ : read_bytes_).fetch_add(bytes, std::memory_order_relaxed);
  const double bps = write ? bw_.write_bps : bw_.read_bps;
  if (bps <= 0 || bytes == 0) return 0;
  const auto busy = static_cast<int64_t>(static_cast<double>(bytes) * 1e9 / bps);
  const int64_t now = since ? since : mono_ns();
  std::lock_guard lock(pipe_mu_);
  const PipeBooking b = pace_pipe(pipe_free_at_ns_, now, busy);
  if (b.waited_ns > 0) ++pipe_waited_, pipe_wait_ns_ += static_cast<uint64_t>(b.waited_ns);
  if (b.overlapped_ns > 0) ++pipe_overlapped_, pipe_overlap_ns_ += static_cast<uint64_t>(b.overlapped_ns);
  pipe_free_at_ns_ = b.end_ns;
  pipe_busy_ns_ += static_cast<uint64_t>(busy);
  return b.end_ns;
}

ServerCounters ServerModel::counters() const {
  ServerCounters c;
  c.requests = requests_.load(std::memory_order_relaxed);
  c.peak_in_service = peak_.load(std::memory_order_relaxed);
  c.read_bytes = read_bytes_.load(std::memory_order_relaxed);
  c.write_bytes = write_bytes_.load(std::memory_order_relaxed);
  {
    std::lock_guard lock(mu_);
    c.waited = waited_;
    c.wait_ns = wait_ns_;
  }
  std::lock_guard pipe_lock(pipe_mu_);
  c.pipe_waited = pipe_waited_;
  c.pipe_wait_ns = pipe_wait_ns_;
  c.pipe_busy_ns = pipe_busy_ns_;
  c.pipe_overlapped = pipe_overlapped_;
  c.pipe_overlap_ns = pipe_overlap_ns_;
  return c;
}

std::string ServerModel::format() const {
  const ServerCounters c = counters();
  std::string out = "counter value\n";
  auto line = [&](const char* name, uint64_t v) { out += std::string(name) + " " + std::to_string(v) + "\n"; };
  line("slots", slots_);
  line("read_bps", static_cast<uint64_t>(bw_.read_bps));
  line("write_bps", static_cast<uint64_t>(bw_.write_bps));
  line("requests", c.requests);
  line("peak_in_service", c.peak_in_service);
  line("waited", c.waited);
  line("wait_us", c.wait_ns / 1000);
  line("read_bytes", c.read_bytes);
  line("write_bytes", c.write_bytes);
  line("pipe_waited", c.pipe_waited);
  line("pipe_wait_us", c.pipe_wait_ns / 1000);
  line("pipe_busy_us", c.pipe_busy_ns / 1000);
  line("pipe_overlapped", c.pipe_overlapped);
  line("pipe_overlap_us", c.pipe_overlap_ns / 1000);
  return out;
}

}  // namespace fsr

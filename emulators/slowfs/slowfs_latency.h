// SPDX-License-Identifier: Apache-2.0
// slowfs_latency: operation classes, per-class latency specs (fixed + jitter),
// named profiles, and the precise sleep that injects the latency.
//
// Parsing returns an error string instead of throwing: a bad `--lat` item is
// user input. Never allocates or locks in `inject()` — it runs once per FUSE
// request on every worker thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fsr {

// Classes aligned with fsreplay's syscall classes, plus `lookup`: one path
// component resolved by the server (a 9p walk, a FUSE LOOKUP). A stat() of an
// uncached path costs lookup + stat; a path walk through N uncached
// directories costs N lookups. Profiles set lookup ≈ stat, as on 9p.
enum class OpClass : uint8_t {
  kLookup,
  kStat,
  kOpen,
  kClose,
  kRead,
  kWrite,
  kReaddir,
  kMkdir,
  kRmdir,
  kUnlink,
  kRename,
  kLink,
  kAttr,
  kXattr,
  kSync,
  kCount
};
constexpr size_t kOpClassCount = static_cast<size_t>(OpClass::kCount);

std::string_view op_class_name(OpClass c);
std::optional<OpClass> op_class_from_name(std::string_view name);

enum class Jitter : uint8_t { kNone, kUniform, kExponential };

// Latency of one class: base_ns plus, for kUniform, a uniform value in
// [-jitter_ns, +jitter_ns] (clamped at 0); for kExponential an exponentially
// distributed extra with mean jitter_ns.
struct LatencySpec {
  int64_t base_ns = 0;
  Jitter jitter = Jitter::kNone;
  int64_t jitter_ns = 0;
  bool operator==(const LatencySpec&) const = default;
};

// Parses "1500us", "2ms", "0", "300ns", "0.5ms", "1s" into nanoseconds.
std::optional<int64_t> parse_duration_ns(std::string_view text);
// Parses "1ms", "1ms+-200us" (uniform ±), "1ms+exp200us" (exponential mean).
std::optional<LatencySpec> parse_latency_spec(std::string_view text);
std::string format_latency_spec(const LatencySpec& spec);

struct LatencyTable {
  std::array<LatencySpec, kOpClassCount> spec{};
  LatencySpec& operator[](OpClass c) { return spec[static_cast<size_t>(c)]; }
  const LatencySpec& operator[](OpClass c) const { return spec[static_cast<size_t>(c)]; }
  bool operator==(const LatencyTable&) const = default;
};

// Applies "stat=1ms,open=800us+-100us,all=0" to `table`. Returns an empty
// string on success, otherwise a one-line error naming the bad item.
std::string apply_latency_list(std::string_view list, LatencyTable& table);

// A named profile: latencies plus the caching behaviour of the emulated mount.
struct Profile {
  std::string_view name;
  std::string_view latencies;  // apply_latency_list() syntax
  double attr_timeout;         // seconds; 0 = no attribute caching
  double entry_timeout;
  bool readdirplus;
  unsigned server_slots;  // requests served at once; 0 = unlimited
  std::string_view note;
};

// wsl2-9p, wsl2-virtiofs, wsl1-drvfs, wsl2-9p-lab, wsl2-virtiofs-lab, none.
const Profile* find_profile(std::string_view name);
std::string profile_names();  // "wsl2-9p|wsl2-virtiofs|wsl1-drvfs|none"

// Sleeps for the class's latency: clock_nanosleep to just before the deadline,
// then spins on CLOCK_MONOTONIC for the tail so short latencies stay precise.
// Thread-safe; each thread keeps its own random engine.
// Returns the time actually spent (ns).
uint64_t inject_latency(const LatencySpec& spec);
// The same precise sleep, to an absolute CLOCK_MONOTONIC deadline (ns).
void sleep_until_ns(int64_t deadline_ns);
// Per-class request counters and slept time, for --stats. Relaxed atomics:
// one increment per request, read once at exit.
struct ClassCounters {
  std::array<std::atomic<uint64_t>, kOpClassCount> count{};
  std::array<std::atomic<uint64_t>, kOpClassCount> slept_ns{};
  void add(OpClass c, uint64_t ns) {
    count[static_cast<size_t>(c)].fetch_add(1, std::memory_order_relaxed);
    slept_ns[static_cast<size_t>(c)].fetch_add(ns, std::memory_order_relaxed);
  }
  std::string format() const;  // "class count slept_ms" lines
};

// Draws one latency value (ns) from the spec; exposed for tests.
int64_t draw_latency_ns(const LatencySpec& spec, uint64_t& rng_state);

}  // namespace fsr

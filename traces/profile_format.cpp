// SPDX-License-Identifier: Apache-2.0
// Text and JSON views of a profile (`fsreplay inspect PROFILE`).
#include <algorithm>
#include <ctime>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "traces/profile.h"
#include "base/text_safe.h"

namespace fsr {
namespace {

// Latencies in microseconds with two decimals: one unit keeps the column
// comparable from ext4's ~1 us to 9p's tens of ms.
std::string us(double ns) { return fmt::format("{:.2f}", ns / 1000.0); }

uint64_t bin_at(const ProfileCase& c, double q) {
  if (c.bins.empty()) return 0;
  size_t i = static_cast<size_t>(q * double(c.bins.size()));
  return c.bins[std::min(i, c.bins.size() - 1)];
}

std::string when(uint64_t wall_ns) {
  if (!wall_ns) return "?";
  const time_t t = static_cast<time_t>(wall_ns / 1'000'000'000ull);
  struct tm tm {};
  gmtime_r(&t, &tm);
  char b[32];
  strftime(b, sizeof b, "%Y-%m-%d %H:%M UTC", &tm);
  return b;
}

std::string lifetime(uint64_t ns) {
  if (ns == kNoExpiry) return "no expiry seen during the probe (or nothing cached)";
  return fmt::format("metadata re-fetched {:.1f} s after a touch", double(ns) / 1e9);
}

}  // namespace

std::string profile_to_text(const Profile& p) {
  auto env = nlohmann::json::parse(p.environment_json, nullptr, false);
  auto field = [&](const char* k) {
    return env.is_object() && env.contains(k) && env[k].is_string() ? env[k].get<std::string>() : std::string("?");
  };
  std::string o = fmt::format("fsreplay profile {} (profile version {})\n", p.name.empty() ? "?" : p.name, p.version);
  o += fmt::format("  target     {} ({})\n", p.target, p.mount_kind().empty() ? "mount kind unknown" : p.mount_kind());
  o += fmt::format("  host       {}, kernel {}\n", field("hostname"), field("kernel_release"));
  o += fmt::format("  probed     {}, {:.1f} s, {} rounds, files at depth {}\n", when(p.started_wall_ns),
                   double(p.duration_ns) / 1e9, p.rounds, p.ref_depth);
  o += fmt::format("  cold       {}\n", p.cold_measured ? "measured (caches dropped before each cold round)"
                                                        : "not measured (needs root to drop caches)");
  o += fmt::format("  caching    {}\n", lifetime(p.cache_lifetime_ns));
  o += fmt::format("  syscall    {} us round trip (getppid)\n", us(double(p.syscall_overhead_ns)));
  if (p.busy_cpus)
    o += fmt::format("  cpus       {} other{} kept busy by spinners at nice 19 while measuring (--busy-cpus)\n",
                     p.busy_cpus, p.busy_cpus == 1 ? "" : "s");
  for (const std::string& n : p.notes) o += "  note: " + n + "\n";
  o += fmt::format("\n{:<13} {:<5} {:>14} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "kind", "temp", "param", "count",
                   "mean us", "p50 us", "p90 us", "p99 us", "max us");
  for (const ProfileCase& c : p.cases) {
    std::string_view pn = probe_param_name(c.kind, c.temp);
    std::string param = pn.empty() ? "" : fmt::format("{} {}", pn, c.param);
    o += fmt::format("{:<13} {:<5} {:>14} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10}\n", probe_kind_name(c.kind),
                     temp_name(c.temp), param, c.count, us(c.mean()), us(double(bin_at(c, 0.5))),
                     us(double(bin_at(c, 0.9))), us(double(bin_at(c, 0.99))), us(double(c.max_ns)));
  }
  return o;
}

std::string profile_to_json(const Profile& p) {
  nlohmann::ordered_json j;
  j["schema"] = "fsreplay.profile/1";
  j["profile_version"] = p.version;
  j["name"] = p.name;
  j["target"] = p.target;
  j["mount_kind"] = p.mount_kind();
  auto env = nlohmann::ordered_json::parse(p.environment_json, nullptr, false);
  j["environment"] = env.is_discarded() ? nlohmann::ordered_json(nullptr) : env;
  j["started_wall_ns"] = p.started_wall_ns;
  j["duration_ns"] = p.duration_ns;
  j["rounds"] = p.rounds;
  j["ref_depth"] = p.ref_depth;
  j["cold_measured"] = p.cold_measured;
  j["cache_lifetime_ns"] =
      p.cache_lifetime_ns == kNoExpiry ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(p.cache_lifetime_ns);
  j["syscall_overhead_ns"] = p.syscall_overhead_ns;
  j["busy_cpus"] = p.busy_cpus;
  j["notes"] = p.notes;
  auto cases = nlohmann::ordered_json::array();
  for (const ProfileCase& c : p.cases) {
    nlohmann::ordered_json r;
    r["kind"] = std::string(probe_kind_name(c.kind));
    r["temp"] = std::string(temp_name(c.temp));
    r["param"] = c.param;
    r["count"] = c.count;
    r["mean_ns"] = static_cast<uint64_t>(c.mean() + 0.5);
    r["p50_ns"] = bin_at(c, 0.5);
    r["p90_ns"] = bin_at(c, 0.9);
    r["p99_ns"] = bin_at(c, 0.99);
    r["min_ns"] = c.min_ns;
    r["max_ns"] = c.max_ns;
    cases.push_back(std::move(r));
  }
  j["cases"] = cases;
  return json_text(j, 2) + "\n";
}

}  // namespace fsr

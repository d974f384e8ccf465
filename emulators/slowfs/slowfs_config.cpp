// SPDX-License-Identifier: Apache-2.0
#include "emulators/slowfs/slowfs_config.h"

#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>

namespace fsr {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::optional<double> parse_seconds(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  // Accept a plain number of seconds or a duration with a unit.
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc() && p == text.data() + text.size() && v >= 0) return v;
  if (auto ns = parse_duration_ns(text)) return static_cast<double>(*ns) / 1e9;
  return std::nullopt;
}

std::optional<bool> parse_bool(std::string_view text) {
  text = trim(text);
  if (text == "1" || text == "true" || text == "yes" || text == "on") return true;
  if (text == "0" || text == "false" || text == "no" || text == "off") return false;
  return std::nullopt;
}

std::string apply_profile(std::string_view name, SlowfsOptions& out) {
  const Profile* p = find_profile(name);
  if (!p) return "unknown profile '" + std::string(name) + "': use one of " + profile_names();
  out.profile = std::string(p->name);
  out.latency = LatencyTable{};
  if (auto err = apply_latency_list(p->latencies, out.latency); !err.empty())
    return "built-in profile " + out.profile + ": " + err;  // a bug, caught by tests
  out.attr_timeout = p->attr_timeout;
  out.entry_timeout = p->entry_timeout;
  out.readdirplus = p->readdirplus;
  out.server_slots = p->server_slots;
  return {};
}

// Applies one `key=value` setting shared by the config file and switches.
std::string apply_setting(std::string_view key, std::string_view value, SlowfsOptions& out) {
  if (key == "profile") return apply_profile(trim(value), out);
  if (key == "attr-timeout" || key == "entry-timeout" || key == "negative-timeout") {
    auto s = parse_seconds(value);
    if (!s) return std::string(key) + " '" + std::string(value) + "' is not a number of seconds";
    (key == "attr-timeout" ? out.attr_timeout : key == "entry-timeout" ? out.entry_timeout : out.negative_timeout) = *s;
    return {};
  }
  if (key == "server-slots") {
    long n = parse_server_slots(value);
    if (n < 0) return "server-slots '" + std::string(value) + "' is not a number of slots in 1..4096 (or none)";
    out.server_slots = static_cast<unsigned>(n);
    return {};
  }
  if (key == "bandwidth") return apply_bandwidth_list(value, out.bandwidth);
  if (key == "direct-io" || key == "writeback-cache" || key == "readdirplus" || key == "statfs") {
    auto b = parse_bool(value);
    if (!b) return std::string(key) + " '" + std::string(value) + "' is not true/false";
    (key == "direct-io"         ? out.direct_io
     : key == "writeback-cache" ? out.writeback_cache
     : key == "statfs"          ? out.statfs
                                : out.readdirplus) = *b;
    return {};
  }
  return apply_latency_list(std::string(key) + "=" + std::string(value), out.latency);
}

}  // namespace

std::string apply_config_file(const std::string& path, SlowfsOptions& out) {
  std::ifstream in(path);
  if (!in) return "cannot read config file " + path + ": check the path and permissions";
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::string_view l = line;
    if (auto hash = l.find('#'); hash != std::string_view::npos) l = l.substr(0, hash);
    l = trim(l);
    if (l.empty()) continue;
    auto eq = l.find('=');
    if (eq == std::string_view::npos) return path + ":" + std::to_string(lineno) + ": expected 'key = value'";
    if (auto err = apply_setting(trim(l.substr(0, eq)), trim(l.substr(eq + 1)), out); !err.empty())
      return path + ":" + std::to_string(lineno) + ": " + err;
  }
  return {};
}

namespace {

// A flag that takes no value: set in `out`, or queued in `settings` to
// apply after the profile and config files. False if `a` is no such flag.
bool take_plain_flag(const std::string& a, SlowfsOptions& out,
                     std::vector<std::pair<std::string, std::string>>& settings) {
  if (a == "-h" || a == "--help") {
    out.show_help = true;
    return true;
  }
  if (a == "--profiles") {
    out.show_profiles = true;
    return true;
  }
  if (a == "-f" || a == "--foreground") {
    out.foreground = true;
    return true;
  }
  if (a == "-d" || a == "--debug") {
    out.debug = out.foreground = true;
    return true;
  }
  if (a == "-s") {
    out.single_thread = true;
    return true;
  }
  if (a == "--realtime") {
    out.realtime = true;
    return true;
  }
  if (a == "--direct-io") {
    settings.emplace_back("direct-io", "true");
    return true;
  }
  if (a == "--writeback-cache") {
    settings.emplace_back("writeback-cache", "true");
    return true;
  }
  if (a == "--no-readdirplus") {
    settings.emplace_back("readdirplus", "false");
    return true;
  }
  if (a == "--no-statfs") {
    settings.emplace_back("statfs", "false");
    return true;
  }
  return false;
}

// The profile, then the config files, the --lat lists and the single
// settings, in that order: each later one overrides the earlier.
std::string apply_in_order(const std::string& profile, const std::vector<std::string>& config_files,
                           const std::vector<std::string>& lat_lists,
                           const std::vector<std::pair<std::string, std::string>>& settings, SlowfsOptions& out) {
  if (!profile.empty())
    if (auto err = apply_profile(profile, out); !err.empty()) return err;
  for (const auto& f : config_files)
    if (auto err = apply_config_file(f, out); !err.empty()) return err;
  for (const auto& l : lat_lists)
    if (auto err = apply_latency_list(l, out.latency); !err.empty()) return err;
  for (const auto& [k, val] : settings)
    if (auto err = apply_setting(k, val, out); !err.empty()) return err;
  return {};
}
}  // namespace

std::string parse_slowfs_args(const std::vector<std::string>& args, SlowfsOptions& out) {
  std::vector<std::string> positional, lat_lists, config_files;
  std::vector<std::pair<std::string, std::string>> settings;
  std::string profile;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string_view name, std::string& dst) -> std::string {
      std::string prefix = std::string(name) + "=";
      if (a.rfind(prefix, 0) == 0) {
        dst = a.substr(prefix.size());
        return {};
      }
      if (i + 1 >= args.size()) return std::string(name) + " needs a value (see --help)";
      dst = args[++i];
      return {};
    };
    auto is = [&](std::string_view name) { return a == name || a.rfind(std::string(name) + "=", 0) == 0; };
    std::string v, err;
    if (take_plain_flag(a, out, settings)) continue;
    if (a == "-o") {
      if (i + 1 >= args.size()) return "-o needs a value, e.g. -o allow_other";
      out.mount_options.push_back(args[++i]);
      continue;
    }
    if (a.rfind("-o", 0) == 0 && a.size() > 2) {
      out.mount_options.push_back(a.substr(2));
      continue;
    }
    if (is("--lat")) {
      if (!(err = value("--lat", v)).empty()) return err;
      lat_lists.push_back(v);
      continue;
    }
    if (is("--config")) {
      if (!(err = value("--config", v)).empty()) return err;
      config_files.push_back(v);
      continue;
    }
    if (is("--profile")) {
      if (!(err = value("--profile", profile)).empty()) return err;
      continue;
    }
    if (is("--nice")) {
      if (!(err = value("--nice", v)).empty()) return err;
      int n = 0;
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc() || p != v.data() + v.size() || n < -20 || n > 19)
        return "--nice '" + v + "' is not in -20..19";
      out.nice = n;
      continue;
    }
    if (is("--op-stats")) {
      if (!(err = value("--op-stats", out.op_stats_file)).empty()) return err;
      continue;
    }
    if (is("--server-stats")) {
      if (!(err = value("--server-stats", out.server_stats_file)).empty()) return err;
      continue;
    }
    if (is("--stats")) {
      if (!(err = value("--stats", out.stats_file)).empty()) return err;
      continue;
    }
    if (is("--pid-file")) {
      if (!(err = value("--pid-file", out.pid_file)).empty()) return err;
      continue;
    }
    if (is("--max-threads")) {
      if (!(err = value("--max-threads", v)).empty()) return err;
      unsigned n = 0;
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc() || p != v.data() + v.size() || n == 0)
        return "--max-threads '" + v + "' is not a positive number";
      out.max_threads = n;
      continue;
    }
    bool matched = false;
    for (const char* key :
         {"--attr-timeout", "--entry-timeout", "--negative-timeout", "--server-slots", "--bandwidth"}) {
      if (is(key)) {
        if (!(err = value(key, v)).empty()) return err;
        settings.emplace_back(std::string(key + 2), v);
        matched = true;
        break;
      }
    }
    if (matched) continue;
    if (a.size() > 1 && a[0] == '-') return "unknown option '" + a + "' (see slowfs --help)";
    positional.push_back(a);
  }
  if (out.show_help || out.show_profiles) return {};
  if (auto err = apply_in_order(profile, config_files, lat_lists, settings, out); !err.empty()) return err;
  if (positional.size() != 2)
    return "expected BACKING and MOUNTPOINT, got " + std::to_string(positional.size()) +
           " path(s): slowfs BACKING MOUNTPOINT [options] (see --help)";
  out.backing = positional[0];
  out.mountpoint = positional[1];
  return {};
}

std::string slowfs_usage() {
  std::ostringstream o;
  o << "usage: slowfs BACKING MOUNTPOINT [options]\n"
       "\n"
       "A pass-through FUSE file system over BACKING that adds latency per operation\n"
       "class, to emulate slow mounts (WSL2 /mnt/c over 9p or virtiofs, WSL1 drvfs).\n"
       "\n"
       "Latency:\n"
       "  --profile NAME          "
    << profile_names()
    << " (default none)\n"
       "  --lat LIST              CLASS=DURATION[,...]; DURATION is 800us, 1ms,\n"
       "                          1ms+-200us (uniform jitter) or 1ms+exp300us\n"
       "                          (exponential extra with that mean). CLASS is one of\n"
       "                          lookup stat open close read write readdir mkdir\n"
       "                          rmdir unlink rename link attr xattr sync, or all\n"
       "  --config FILE           'key = value' lines: classes, profile, attr-timeout,\n"
       "                          entry-timeout, negative-timeout, direct-io,\n"
       "                          writeback-cache, readdirplus, server-slots, bandwidth\n"
       "  --profiles              print the built-in profiles and exit\n"
       "  Order of application: --profile, --config, --lat, then the switches below.\n"
       "\n"
       "The server (how it serializes; see README 'Serializing'):\n"
       "  --server-slots N        serve at most N requests at once, the rest wait in\n"
       "                          FIFO order; a request's latency (and transfer) is\n"
       "                          its service. 1 = a server under one global lock\n"
       "                          (wsl2-9p sets 1). Default: unlimited\n"
       "  --bandwidth LIST        read=RATE,write=RATE (or all=RATE): READ and WRITE\n"
       "                          share one byte pipe, paced as a link: B bytes occupy\n"
       "                          it B/RATE, queued behind earlier transfers; a pause\n"
       "                          shorter than that (FUSE's round trip, the latency)\n"
       "                          overlaps it, so a stream of requests (dd bs=1M) gets\n"
       "                          RATE. RATE: 40MB, 40MB/s, 38MiB, a bare number is\n"
       "                          MB/s (10^6 bytes); none = no limit\n"
       "  --server-stats FILE     slots, peak_in_service, waited, wait_us, read_bytes,\n"
       "                          write_bytes, pipe_* ('counter value' lines), written\n"
       "                          like --op-stats: at unmount and on SIGUSR1\n"
       "\n"
       "Caching and I/O:\n"
       "  --attr-timeout SECS     kernel attribute cache timeout (0 = none, like 9p)\n"
       "  --entry-timeout SECS    kernel dentry cache timeout (0 = none)\n"
       "  --negative-timeout SECS cache of failed lookups (default 0)\n"
       "  --direct-io             bypass the page cache (FOPEN_DIRECT_IO)\n"
       "  --writeback-cache       let the kernel buffer writes (FUSE_CAP_WRITEBACK_CACHE)\n"
       "  --no-readdirplus        plain readdir (9p has no readdirplus)\n"
       "  --no-statfs             statfs reports 0 blocks, as a FUSE file system without it does\n"
       "\n"
       "Process:\n"
       "  -f, --foreground        stay in the foreground (default: daemonize)\n"
       "  -d, --debug             foreground with libfuse debug output\n"
       "  -s                      single-threaded request loop\n"
       "  --max-threads N         worker threads (default 64)\n"
       "  --nice N                priority of the request threads (default -10 when\n"
       "                          root, so injected latency does not grow with load)\n"
       "  --pid-file FILE         write the serving pid to FILE\n"
       "  --realtime              SCHED_FIFO request threads (root): injected latency\n"
       "                          stays precise on a loaded machine\n"
       "  --stats FILE            at unmount, write per-class request counts and\n"
       "                          the latency actually slept to FILE\n"
       "  --op-stats FILE         per-FUSE-opcode request counts ('opcode count' header,\n"
       "                          then 'LOOKUP 12' lines), written to FILE at unmount and\n"
       "                          rewritten on SIGUSR1 while mounted (atomically: delete\n"
       "                          FILE, send SIGUSR1, wait for FILE to appear). Reading\n"
       "                          it sends no request; keep FILE off the mount\n"
       "  -o OPTS                 FUSE mount options, e.g. -o default_permissions,allow_other\n"
       "  -h, --help              this text\n"
       "\n"
       "Prints 'slowfs: pid N serving BACKING on MOUNTPOINT' once mounted.\n"
       "Unmount with: fusermount3 -u MOUNTPOINT (or umount MOUNTPOINT as root).\n"
       "As non-root, mounting needs fusermount3, the setuid helper of the fuse3\n"
       "package (Debian, Ubuntu: apt install fuse3), even for the static slowfs.\n";
  return o.str();
}

std::string describe_options(const SlowfsOptions& opts) {
  std::ostringstream o;
  o << "profile " << opts.profile << ", attr-timeout " << opts.attr_timeout << "s, entry-timeout " << opts.entry_timeout
    << "s, readdirplus " << (opts.readdirplus ? "on" : "off") << ", direct-io " << (opts.direct_io ? "on" : "off")
    << ", writeback-cache " << (opts.writeback_cache ? "on" : "off") << "\n  server slots "
    << (opts.server_slots ? std::to_string(opts.server_slots) : std::string("unlimited")) << ", bandwidth "
    << format_bandwidth(opts.bandwidth) << "\n";
  for (size_t i = 0; i < kOpClassCount; ++i) {
    auto c = static_cast<OpClass>(i);
    o << "  " << op_class_name(c) << std::string(9 - op_class_name(c).size(), ' ')
      << format_latency_spec(opts.latency[c]) << "\n";
  }
  return o.str();
}

}  // namespace fsr

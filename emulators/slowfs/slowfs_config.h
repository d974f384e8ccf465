// SPDX-License-Identifier: Apache-2.0
// slowfs_config: the slowfs command line and config file, parsed into options.
//
// Kept apart from main so tests can check parsing without mounting. Never
// touches the file system except to read a --config file.
#pragma once

#include <string>
#include <vector>

#include "emulators/slowfs/slowfs_latency.h"
#include "emulators/slowfs/slowfs_server.h"

namespace fsr {

struct SlowfsOptions {
  std::string backing;
  std::string mountpoint;
  std::string profile = "none";
  LatencyTable latency;
  double attr_timeout = 1.0;  // seconds; 0 = no caching (9p cache=mmap)
  double entry_timeout = 1.0;
  double negative_timeout = 0.0;
  bool readdirplus = true;
  // false: statfs answers as a FUSE file system without the operation does
  // (libfuse's default: 0 blocks, 0 files), to test callers of a mount of unknown size.
  bool statfs = true;
  bool direct_io = false;
  bool writeback_cache = false;
  bool foreground = false;
  bool debug = false;
  bool single_thread = false;
  unsigned max_threads = 64;
  // Scheduling priority of the request threads. An emulated remote server's
  // latency must not grow with local CPU load, so by default (-10, root only)
  // its wake-ups preempt ordinary processes.
  int nice = -10;
  bool realtime = false;
  // The emulated server: requests served at once (0 = unlimited; the rest
  // queue FIFO) and the byte pipe that READ and WRITE share.
  unsigned server_slots = 0;
  Bandwidth bandwidth;  // SCHED_FIFO request threads: precise under heavy load
  std::string pid_file;
  std::string stats_file;                  // per-class counts written here at unmount
  std::string op_stats_file;               // per-opcode counts: at unmount and on SIGUSR1
  std::string server_stats_file;           // slots, waits, bytes: at unmount and on SIGUSR1
  std::vector<std::string> mount_options;  // the -o values, passed to libfuse
  bool show_help = false;
  bool show_profiles = false;
  // Slots or a bandwidth limit: requests may queue in slowfs.
  bool models_server() const { return server_slots > 0 || bandwidth != Bandwidth{}; }
};

// Parses argv (without argv[0]). The profile is applied first, then the
// config file, then --lat and the explicit switches, whatever their order on
// the command line. Returns "" or a one-line error.
std::string parse_slowfs_args(const std::vector<std::string>& args, SlowfsOptions& out);

// Reads a config file: one `key = value` per line, `#` comments. Keys are the
// operation classes (value: a latency), `profile`, `attr-timeout`,
// `entry-timeout`, `negative-timeout`, `direct-io`, `writeback-cache`,
// `readdirplus` (value: true/false), `server-slots`, `bandwidth`.
std::string apply_config_file(const std::string& path, SlowfsOptions& out);

std::string slowfs_usage();
// One line per class: "stat  1000us" — printed at start-up and by --profiles.
std::string describe_options(const SlowfsOptions& opts);

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// Environment detection: where does a path live, and on what? Classifies the
// platform (WSL1 / WSL2 / plain Linux) and the mount that holds a path (9p
// with aname=drvfs, virtiofs, WSL1 drvfs, ext4, xfs, btrfs, tmpfs, overlay,
// fuse, nfs, ...), from /proc/self/mountinfo, /proc/sys/kernel/osrelease and
// statfs. Pure parsing functions take their inputs as text so that fixtures
// can test every case without the real environment. Never writes anything.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "traces/mountinfo.h"  // parse_mountinfo, mount_for_path (used with these)
#include "base/status.h"
#include "traces/trace_model.h"

namespace fsr {

enum class Platform { kLinux, kWsl1, kWsl2 };
std::string_view platform_name(Platform p);  // "linux", "wsl1", "wsl2"

// Mount kinds the reports name. "9p-drvfs" is WSL2's /mnt/c over 9p.
struct MountClass {
  std::string kind;                            // "9p-drvfs", "virtiofs", "drvfs", "ext4", "tmpfs", "fuse", ...
  std::string fuse_subtype;                    // for fuse.*: "sshfs", "bindfs", "slowfs"
  std::map<std::string, std::string> options;  // parsed mount + super options (cache, msize, trans, case, ...)
  std::string windows_path;                    // "C:\\" where known (9p path=, drvfs source, virtiofs tag)
  bool wsl_share = false;                      // a Windows drive shared by WSL (9p-drvfs, drvfs, WSL virtiofs tag)
};

struct Environment {
  Platform platform = Platform::kLinux;
  std::string kernel_release;
  std::string hostname;
  uint32_t cpu_count = 0;
  std::string path;  // the path asked about (absolute)
  MountEntry mount;  // the mount entry that holds it
  MountClass mount_class;
  uint64_t statfs_type = 0;
  std::string wsl_distro;             // WSL_DISTRO_NAME when set
  std::string wsl_automount_options;  // [automount] options= from /etc/wsl.conf (the drvfs options under virtiofs)
};

// Pure functions over fixture text.
Platform classify_platform(std::string_view osrelease, bool has_wsl_interop);
MountClass classify_mount(const MountEntry& m, uint64_t statfs_type, Platform platform);

// Mount options split on ',' and ';' (WSL puts ';' inside aname=): "a=1,b" -> {a:1, b:""}.
// Later keys win.
std::map<std::string, std::string> parse_mount_options(std::string_view text);
// Name of a statfs f_type magic ("ext4", "v9fs", "fuse", ...), or "" when unknown.
std::string_view statfs_type_name(uint64_t magic);
// The `options` value of the [automount] section of a wsl.conf text, "" when absent.
std::string wsl_conf_automount_options(std::string_view wsl_conf);
// Under WSL virtiofs, /run/wsl/virtiofs/<tag> links to the Windows path; "" when absent.
std::string virtiofs_windows_path(std::string_view tag, const std::string& dir = "/run/wsl/virtiofs");

// The real thing: reads /proc and statfs for `path`.
Result<Environment> detect_environment(const std::string& path);

// Stable JSON text (keys: platform, kernel_release, hostname, cpu_count, path,
// mount{mount_point, fs_type, source, options, kind, fuse_subtype, windows_path,
// wsl_share, root, mount_options, super_options}, statfs_type (number),
// statfs_type_hex, statfs_type_name, wsl_distro, wsl_automount_options), in
// that order; options sorted by key. Golden: tests/detect/fixtures/*_env.json.
std::string environment_to_json(const Environment& env);
// environment_to_json of detect_environment(path), or {"error": why} when
// detection fails: the fingerprint a replay stores in its result.
std::string detect_environment_json(const std::string& path);
// Human-readable report for `fsreplay detect` (one "label: value" per line).
std::string environment_to_text(const Environment& env);

}  // namespace fsr

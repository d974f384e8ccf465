// SPDX-License-Identifier: Apache-2.0
// Environment as stable JSON (keys documented in detect.h) and as the
// human-readable text of `fsreplay detect`.
#include <fmt/core.h>

#include <array>
#include <nlohmann/json.hpp>

#include "detect/detect.h"
#include "base/text_safe.h"

namespace fsr {
namespace {

// The options a slowdown report should carry (WSL's mount options and wsl.conf).
constexpr std::array<std::string_view, 16> kKeyOptions = {"aname",  "cache", "msize",       "trans", "rfd", "wfd",
                                                          "access", "case",  "metadata",    "uid",   "gid", "umask",
                                                          "fmask",  "dmask", "symlinkroot", "ro"};

std::string hex(uint64_t v) { return fmt::format("{:#010x}", v); }

}  // namespace

std::string environment_to_json(const Environment& env) {
  nlohmann::ordered_json j;
  j["platform"] = platform_name(env.platform);
  j["kernel_release"] = env.kernel_release;
  j["hostname"] = env.hostname;
  j["cpu_count"] = env.cpu_count;
  j["path"] = env.path;
  nlohmann::ordered_json m;
  m["mount_point"] = env.mount.mount_point;
  m["fs_type"] = env.mount.fs_type;
  m["source"] = env.mount.source;
  nlohmann::ordered_json opts = nlohmann::ordered_json::object();
  for (const auto& [k, v] : env.mount_class.options) opts[k] = v;  // std::map: sorted, stable
  m["options"] = std::move(opts);
  m["kind"] = env.mount_class.kind;
  m["fuse_subtype"] = env.mount_class.fuse_subtype;
  m["windows_path"] = env.mount_class.windows_path;
  m["wsl_share"] = env.mount_class.wsl_share;
  m["root"] = env.mount.root;
  m["mount_options"] = env.mount.mount_options;
  m["super_options"] = env.mount.super_options;
  j["mount"] = std::move(m);
  j["statfs_type"] = env.statfs_type;
  j["statfs_type_hex"] = hex(env.statfs_type);
  j["statfs_type_name"] = statfs_type_name(env.statfs_type);
  j["wsl_distro"] = env.wsl_distro;
  j["wsl_automount_options"] = env.wsl_automount_options;
  // replace: a mount point or source need not be valid UTF-8.
  return json_text(j, 2);
}

std::string detect_environment_json(const std::string& path) {
  Result<Environment> env = detect_environment(path);
  return env ? environment_to_json(env.value()) : json_text(nlohmann::json{{"error", env.message()}});
}

std::string environment_to_text(const Environment& env) {
  const MountClass& c = env.mount_class;
  std::string key;
  for (std::string_view k : kKeyOptions) {
    auto it = c.options.find(std::string(k));
    if (it == c.options.end()) continue;
    if (!key.empty()) key += ' ';
    key += it->second.empty() ? std::string(k) : fmt::format("{}={}", k, it->second);
  }
  std::string_view sname = statfs_type_name(env.statfs_type);
  std::string out;
  auto line = [&out](std::string_view label, std::string_view value) {
    out += fmt::format("{:<15}{}\n", fmt::format("{}:", label), value.empty() ? "-" : value);
  };
  line("platform", platform_name(env.platform));
  line("kernel", env.kernel_release);
  line("hostname", env.hostname);
  line("cpus", std::to_string(env.cpu_count));
  line("path", env.path);
  line("mount point", env.mount.mount_point);
  line("fs type", env.mount.fs_type);
  line("kind", c.fuse_subtype.empty() ? c.kind : fmt::format("{} ({})", c.kind, c.fuse_subtype));
  line("source", env.mount.source);
  line("mount options", env.mount.mount_options);
  line("fs options", env.mount.super_options);
  line("key options", key);
  line("statfs type", sname.empty() ? hex(env.statfs_type) : fmt::format("{} ({})", hex(env.statfs_type), sname));
  line("windows path", c.windows_path);
  if (!env.wsl_distro.empty()) line("wsl distro", env.wsl_distro);
  if (!env.wsl_automount_options.empty()) line("wsl automount", env.wsl_automount_options);
  return out;
}

}  // namespace fsr

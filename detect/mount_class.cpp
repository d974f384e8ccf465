// SPDX-License-Identifier: Apache-2.0
// Platform and mount classification from text already read (see
// WSL's documentation, "Telling the environment apart" and "How /mnt/c is
// mounted"). Pure functions: no I/O here, so fixtures cover every case.
#include <cctype>
#include <string>

#include "detect/detect.h"

namespace fsr {
namespace {

bool looks_like_drive(std::string_view s) {
  return s.size() >= 2 && std::isalpha(static_cast<unsigned char>(s[0])) && s[1] == ':';
}

// 8-4-4-4-12 hex digits, braces allowed: WSL names virtiofs shares by GUID.
bool looks_like_guid(std::string_view s) {
  if (s.size() == 38 && s.front() == '{' && s.back() == '}') s = s.substr(1, 36);
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string_view platform_name(Platform p) {
  switch (p) {
    case Platform::kWsl1:
      return "wsl1";
    case Platform::kWsl2:
      return "wsl2";
    case Platform::kLinux:
      break;
  }
  return "linux";
}

Platform classify_platform(std::string_view osrelease, bool has_wsl_interop) {
  // WSL's own init tests the capital M (src/linux/init/util.cpp).
  if (osrelease.find("Microsoft") != std::string_view::npos) return Platform::kWsl1;
  if (osrelease.find("microsoft") != std::string_view::npos || osrelease.find("WSL") != std::string_view::npos)
    return Platform::kWsl2;
  // A custom WSL2 kernel may drop the string; interop still gives it away.
  return has_wsl_interop ? Platform::kWsl2 : Platform::kLinux;
}

std::map<std::string, std::string> parse_mount_options(std::string_view text) {
  std::map<std::string, std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find_first_of(",;", start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = text.substr(start, end - start);
    if (!item.empty()) {
      size_t eq = item.find('=');
      if (eq == std::string_view::npos)
        out[std::string(item)] = "";
      else
        out[std::string(item.substr(0, eq))] = std::string(item.substr(eq + 1));
    }
    start = end + 1;
  }
  return out;
}

std::string_view statfs_type_name(uint64_t magic) {
  switch (magic) {
    case 0xEF53:
      return "ext4";
    case 0x58465342:
      return "xfs";
    case 0x9123683E:
      return "btrfs";
    case 0x01021994:
      return "tmpfs";
    case 0x794C7630:
      return "overlay";
    case 0x6969:
      return "nfs";
    case 0x65735546:
      return "fuse";
    case 0x01021997:
      return "v9fs";
    case 0xFF534D42:
      return "cifs";
    case 0xFE534D42:
      return "smb2";
    case 0x53464846:
      return "wslfs";  // WSL1: drvfs and the root fs alike
    case 0x9FA0:
      return "proc";
    case 0x62656572:
      return "sysfs";
    case 0x2FC12FC1:
      return "zfs";
    case 0xF15F:
      return "ecryptfs";
    case 0x5346544E:
      return "ntfs";
    case 0x4D44:
      return "vfat";
    case 0x858458F6:
      return "ramfs";
  }
  return "";
}

MountClass classify_mount(const MountEntry& m, uint64_t statfs_type, Platform platform) {
  MountClass c;
  c.options = parse_mount_options(m.mount_options);
  for (auto& [k, v] : parse_mount_options(m.super_options)) c.options[k] = v;

  const std::string& t = m.fs_type;
  if (t.empty()) {
    // No mountinfo entry type (should not happen); fall back to the magic.
    std::string_view name = statfs_type_name(statfs_type);
    c.kind = name.empty() ? "unknown" : std::string(name);
  } else if (t == "9p") {
    auto aname = c.options.find("aname");
    bool drvfs = aname != c.options.end() && aname->second.starts_with("drvfs");
    c.kind = drvfs ? "9p-drvfs" : "9p";
    c.wsl_share = drvfs;
    if (drvfs) {
      auto p = c.options.find("path");
      if (p != c.options.end())
        c.windows_path = p->second;
      else if (looks_like_drive(m.source))
        c.windows_path = m.source;
    }
  } else if (t == "virtiofs") {
    c.kind = "virtiofs";
    c.wsl_share = m.source.starts_with("drvfs") || (platform == Platform::kWsl2 && looks_like_guid(m.source));
  } else if (t == "drvfs") {
    c.kind = "drvfs";
    c.wsl_share = true;
    if (looks_like_drive(m.source)) c.windows_path = m.source;
  } else if (t.starts_with("fuse.")) {
    c.kind = "fuse";
    c.fuse_subtype = t.substr(5);
  } else if (t == "fuseblk") {
    c.kind = "fuse";
    c.fuse_subtype = "fuseblk";
  } else if (t == "fuse") {
    c.kind = "fuse";
  } else {
    c.kind = t;  // ext4, xfs, btrfs, tmpfs, overlay, nfs, nfs4, cifs, ...
  }
  return c;
}

std::string wsl_conf_automount_options(std::string_view text) {
  std::string section;
  std::string result;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    std::string_view line =
        trim(text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    start = nl == std::string_view::npos ? text.size() : nl + 1;
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[') {
      size_t close = line.find(']');
      section = std::string(trim(line.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1)));
      continue;
    }
    size_t eq = line.find('=');
    if (section != "automount" || eq == std::string_view::npos) continue;
    if (trim(line.substr(0, eq)) != "options") continue;
    std::string_view v = trim(line.substr(eq + 1));
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    result = std::string(v);  // last one wins
  }
  return result;
}

}  // namespace fsr

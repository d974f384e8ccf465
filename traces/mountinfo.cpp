// SPDX-License-Identifier: Apache-2.0
// /proc/self/mountinfo parsing and path-to-mount lookup (proc(5)):
//   36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue
// Fields are separated by single spaces; the kernel escapes space, tab,
// newline and backslash as \ooo octal. Never touches the file system.
#include <sys/sysmacros.h>

#include <algorithm>
#include <charconv>
#include <string>
#include <vector>

#include "traces/mountinfo.h"
#include "base/paths.h"

namespace fsr {
namespace {

constexpr std::string_view kGrammar =
    "expected '<id> <parent> <major:minor> <root> <mount point> <options> [optional...] - "
    "<type> <source> <super options>'";

bool is_octal(char c) { return c >= '0' && c <= '7'; }

// Splits on single spaces, keeping empty fields (an empty source prints as two spaces).
std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t sp = line.find(' ', start);
    if (sp == std::string_view::npos) {
      out.push_back(line.substr(start));
      return out;
    }
    out.push_back(line.substr(start, sp - start));
    start = sp + 1;
  }
}

template <typename T>
bool parse_uint(std::string_view s, T& out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

Status line_error(size_t line_no, std::string_view what) {
  return Status::error("mountinfo line " + std::to_string(line_no) + ": " + std::string(what) + "; " +
                       std::string(kGrammar));
}

Result<MountEntry> parse_line(std::string_view line, size_t line_no) {
  if (line.find('\0') != std::string_view::npos) return line_error(line_no, "contains a NUL byte");
  std::vector<std::string_view> f = split_fields(line);
  size_t sep = 0;
  for (size_t i = 6; i < f.size(); ++i) {
    if (f[i] == "-") {
      sep = i;
      break;
    }
  }
  if (f.size() < 6) return line_error(line_no, "has " + std::to_string(f.size()) + " fields, too few");
  if (sep == 0) return line_error(line_no, "has no ' - ' separator after the optional fields");
  // After the separator: type, source, super options. Super options are the
  // rest of the line: 9p prints aname= unescaped, so it may hold a space.
  if (f.size() < sep + 4) return line_error(line_no, "is missing fields after ' - '");
  for (size_t i = 6; i < sep; ++i) {
    if (f[i].empty() || f[i].find(':') == std::string_view::npos)
      return line_error(line_no, "optional field '" + std::string(f[i]) + "' is not tag:value");
  }
  MountEntry m;
  if (!parse_uint(f[0], m.mount_id)) return line_error(line_no, "mount id '" + std::string(f[0]) + "' is not a number");
  if (!parse_uint(f[1], m.parent_id))
    return line_error(line_no, "parent id '" + std::string(f[1]) + "' is not a number");
  size_t colon = f[2].find(':');
  uint32_t major = 0, minor = 0;
  if (colon == std::string_view::npos || !parse_uint(f[2].substr(0, colon), major) ||
      !parse_uint(f[2].substr(colon + 1), minor))
    return line_error(line_no, "device '" + std::string(f[2]) + "' is not major:minor");
  m.dev = makedev(major, minor);
  if (f[3].empty() || f[4].empty()) return line_error(line_no, "root or mount point is empty");
  if (f[sep + 1].empty()) return line_error(line_no, "file-system type is empty");
  m.root = unescape_mountinfo(f[3]);
  m.mount_point = unescape_mountinfo(f[4]);
  m.mount_options = unescape_mountinfo(f[5]);
  m.fs_type = unescape_mountinfo(f[sep + 1]);
  m.source = unescape_mountinfo(f[sep + 2]);
  size_t super_start = static_cast<size_t>(f[sep + 3].data() - line.data());
  m.super_options = unescape_mountinfo(line.substr(super_start));
  return m;
}

}  // namespace

std::string unescape_mountinfo(std::string_view field) {
  std::string out;
  out.reserve(field.size());
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size() && is_octal(field[i + 1]) && is_octal(field[i + 2]) &&
        is_octal(field[i + 3])) {
      int v = (field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 + (field[i + 3] - '0');
      if (v <= 0xff) {
        out.push_back(static_cast<char>(v));
        i += 3;
        continue;
      }
    }
    out.push_back(field[i]);
  }
  return out;
}

Result<std::vector<MountEntry>> parse_mountinfo(std::string_view text) {
  std::vector<MountEntry> out;
  size_t line_no = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    std::string_view line = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    start = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    if (line.empty()) continue;
    FSR_ASSIGN_OR_RETURN(MountEntry m, parse_line(line, line_no));
    out.push_back(std::move(m));
  }
  return out;
}

namespace {

std::string_view strip_slash(std::string_view mp) {
  while (mp.size() > 1 && mp.back() == '/') mp.remove_suffix(1);
  return mp;
}

// True when mount point `mp` holds `path` (equal, or an ancestor on a component boundary).
bool holds(std::string_view mp, std::string_view path) { return is_beneath(path, mp); }

bool is_descendant(const std::vector<MountEntry>& mounts, size_t child, uint32_t ancestor_id) {
  uint32_t id = mounts[child].parent_id;
  for (size_t hops = 0; hops < mounts.size(); ++hops) {  // bounded: mountinfo may be hostile
    if (id == ancestor_id) return true;
    auto it = std::find_if(mounts.begin(), mounts.end(), [id](const MountEntry& m) { return m.mount_id == id; });
    if (it == mounts.end() || it->parent_id == id) return false;
    id = it->parent_id;
  }
  return false;
}

// A mount made later on an ancestor-or-equal mount point hides an earlier one,
// unless the earlier one sits on top of it (moved mounts keep their place).
bool hidden(const std::vector<MountEntry>& mounts, size_t i) {
  std::string_view mp = strip_slash(mounts[i].mount_point);
  for (size_t j = i + 1; j < mounts.size(); ++j) {
    if (holds(strip_slash(mounts[j].mount_point), mp) && !is_descendant(mounts, i, mounts[j].mount_id)) return true;
  }
  return false;
}

}  // namespace

const MountEntry* mount_for_path(const std::vector<MountEntry>& mounts, std::string_view abs_path) {
  const MountEntry* best = nullptr;
  size_t best_len = 0;
  for (size_t i = 0; i < mounts.size(); ++i) {
    std::string_view mp = strip_slash(mounts[i].mount_point);
    // >=: on equal mount points the later one is on top.
    if (!holds(mp, abs_path) || (best != nullptr && mp.size() < best_len)) continue;
    if (hidden(mounts, i)) continue;
    best = &mounts[i];
    best_len = mp.size();
  }
  return best;
}

}  // namespace fsr

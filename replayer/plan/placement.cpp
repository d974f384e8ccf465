// SPDX-License-Identifier: Apache-2.0
#include "replayer/plan/placement.h"

#include <fmt/format.h>

namespace fsr {

bool rel_within(std::string_view rel, std::string_view dir) {
  if (dir.empty() || dir == ".") return true;
  if (rel.size() < dir.size() || rel.substr(0, dir.size()) != dir) return false;
  return rel.size() == dir.size() || rel[dir.size()] == '/';
}

int Placement::match(std::string_view rel) const {
  for (size_t k = 0; k < rules.size(); ++k)
    if (rel_within(rel, rules[k].subdir)) return static_cast<int>(k);
  return -1;
}

std::string Placement::describe() const {
  std::string out;
  for (const PlaceRule& r : rules) out += fmt::format("{}{}={}", out.empty() ? "" : ", ", r.subdir, r.where);
  if (!rest.empty()) out += fmt::format("{}rest={}", out.empty() ? "" : ", ", rest);
  return out;
}

Result<PlaceRule> parse_place(std::string_view arg) {
  const size_t eq = arg.rfind('=');
  if (eq == std::string_view::npos || eq + 1 == arg.size())
    return Status::error(
        fmt::format("--place '{}': give SUBDIR=WHERE (a directory beneath the recorded root, '=', "
                    "then a profile or mount)",
                    arg));
  const std::string_view dir = arg.substr(0, eq);
  if (!dir.empty() && dir[0] == '/')
    return Status::error(
        fmt::format("--place '{}': SUBDIR must be relative to the recorded root (no leading '/')", arg));
  std::string norm;
  size_t at = 0;
  while (at <= dir.size()) {
    size_t end = dir.find('/', at);
    if (end == std::string_view::npos) end = dir.size();
    const std::string_view c = dir.substr(at, end - at);
    if (c == "..")
      return Status::error(
          fmt::format("--place '{}': SUBDIR may not climb with '..': name it from the recorded root", arg));
    if (!c.empty() && c != ".") norm += (norm.empty() ? "" : "/") + std::string(c);
    at = end + 1;
  }
  return PlaceRule{norm.empty() ? "." : norm, std::string(arg.substr(eq + 1))};
}

Placement make_placement(const std::vector<PlaceRule>& rules, std::vector<std::string>& problems) {
  Placement p;
  for (const PlaceRule& r : rules) {
    if (r.subdir == ".") {
      p.rest = r.where;
      continue;
    }
    bool overlaps = false;
    for (const PlaceRule& q : p.rules) {
      if (!rel_within(r.subdir, q.subdir) && !rel_within(q.subdir, r.subdir)) continue;
      problems.push_back(
          fmt::format("--place {}={}: overlaps --place {}={} (a path would land on two mounts): "
                      "left out, give directories that do not nest",
                      r.subdir, r.where, q.subdir, q.where));
      overlaps = true;
      break;
    }
    if (!overlaps) p.rules.push_back(r);
  }
  return p;
}

}  // namespace fsr

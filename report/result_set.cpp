// SPDX-License-Identifier: Apache-2.0
#include "report/result_set.h"

#include <algorithm>
#include <numeric>

#include <nlohmann/json.hpp>

namespace fsr {

std::string_view ResultSet::str(StrId id) const {
  if (id == kNoStr) return {};
  auto it = strings.find(id);
  return it == strings.end() ? std::string_view{} : std::string_view{it->second};
}

uint64_t ResultMeta::wall_ns_with(uint64_t last_end) const {
  return footer ? std::max(footer->wall_ns, last_end) : last_end;
}

uint64_t ResultSet::wall_ns() const {
  uint64_t end = 0;
  for (const OpRecord& op : ops) end = std::max(end, op.start + op.latency);
  return wall_ns_with(end);
}

std::string ResultMeta::mount_kind() const {
  if (recording) {  // the file system type of the mount its root was on
    const MountEntry* best = nullptr;
    const std::string& root = header.root;
    for (const MountEntry& m : header.mounts) {
      const std::string& mp = m.mount_point;
      const bool holds = root == mp || mp == "/" ||
                         (root.size() > mp.size() && root.compare(0, mp.size(), mp) == 0 && root[mp.size()] == '/');
      if (holds && (!best || mp.size() >= best->mount_point.size())) best = &m;
    }
    return best ? best->fs_type : std::string{};
  }
  if (header.environment_json.empty()) return {};
  auto j = nlohmann::json::parse(header.environment_json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return {};
  auto m = j.find("mount");
  if (m == j.end() || !m->is_object()) return {};
  auto k = m->find("kind");
  return (k != m->end() && k->is_string()) ? k->get<std::string>() : std::string{};
}

std::string ResultMeta::label() const {
  std::string base = !header.target.empty() ? header.target : file;
  if (base.empty()) base = "(unnamed)";
  const std::string kind = mount_kind();
  if (recording) return base + " (recording" + (kind.empty() ? "" : ", " + kind) + ")";
  return kind.empty() ? base : base + " (" + kind + ")";
}

std::string ResultMeta::short_label() const {
  std::string kind = mount_kind();
  if (!kind.empty()) return kind;
  std::string t = !header.target.empty() ? header.target : file;
  while (t.size() > 1 && t.back() == '/') t.pop_back();
  const size_t slash = t.rfind('/');
  if (slash != std::string::npos && slash + 1 < t.size()) t = t.substr(slash + 1);
  return t.empty() ? "?" : t;
}

std::vector<size_t> event_order(const std::vector<OpRecord>& ops) {
  std::vector<size_t> order(ops.size());
  std::iota(order.begin(), order.end(), size_t{0});
  const auto by_event = [&](size_t a, size_t b) { return ops[a].event_index < ops[b].event_index; };
  if (!std::is_sorted(order.begin(), order.end(), by_event)) std::stable_sort(order.begin(), order.end(), by_event);
  return order;
}

}  // namespace fsr

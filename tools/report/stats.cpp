#include "tools/report/stats.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

namespace fsr {
namespace {

std::string_view basename_of(std::string_view p) {
  while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);
  const size_t slash = p.rfind('/');
  return slash == std::string_view::npos ? p : p.substr(slash + 1);
}

std::vector<std::string_view> components(std::string_view p) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < p.size()) {
    while (i < p.size() && p[i] == '/') ++i;
    size_t j = i;
    while (j < p.size() && p[j] != '/') ++j;
    if (j > i) out.push_back(p.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

std::string dir_key(std::string_view path, std::string_view root, int depth) {
  if (path.empty()) return "(no path)";
  const auto pc = components(path);
  const auto rc = components(root);
  if (pc == rc) return ".";  // the root itself
  const size_t dir_len = pc.empty() ? 0 : pc.size() - 1;  // drop the leaf
  const bool inside = rc.size() <= dir_len && std::equal(rc.begin(), rc.end(), pc.begin());
  const size_t first = inside ? rc.size() : 0;
  const size_t last = std::min(dir_len, first + static_cast<size_t>(std::max(depth, 1)));
  std::string out = inside ? "" : "/";
  for (size_t i = first; i < last; ++i) {
    if (i > first) out += '/';
    out += pc[i];
  }
  return out.empty() ? "." : out;
}

std::vector<std::string> process_names(const ResultSet& rs) {
  std::vector<size_t> order(rs.ops.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return rs.ops[a].event_index < rs.ops[b].event_index;
  });
  std::unordered_map<uint32_t, std::string> name_of;
  if (!rs.header.command.empty())
    name_of[rs.header.initial.pid] = std::string(basename_of(rs.header.command[0]));
  std::vector<std::string> out(rs.ops.size());
  for (size_t i : order) {
    const OpRecord& op = rs.ops[i];
    if (op.nr == kEvProcExec) {
      std::string_view file = rs.str(op.path);
      if (!file.empty()) name_of[op.pid] = std::string(basename_of(file));
    }
    auto it = name_of.find(op.pid);
    out[i] = it == name_of.end() ? "(unknown)" : it->second;
  }
  return out;
}

ResultStats compute_stats(const ResultSet& rs, const StatsOptions& opt) {
  ResultStats st;
  const std::vector<std::string> names = process_names(rs);
  const std::string root = rs.header.root.empty() ? "/" : rs.header.root;
  std::unordered_map<StrId, std::string> dir_cache;
  for (size_t i = 0; i < rs.ops.size(); ++i) {
    const OpRecord& op = rs.ops[i];
    ++st.ops;
    if (op.flags & kOfDivergent) ++st.divergent;
    if (op.flags & kOfSkipped) {
      ++st.skipped;
      continue;
    }
    st.by_class[static_cast<size_t>(class_of(op.nr))].record(op.latency);
    st.by_process[names[i]].record(op.latency);
    auto it = dir_cache.find(op.path);
    if (it == dir_cache.end())
      it = dir_cache.emplace(op.path, dir_key(rs.str(op.path), root, opt.dir_depth)).first;
    st.by_dir[it->second].record(op.latency);
  }
  return st;
}

}  // namespace fsr

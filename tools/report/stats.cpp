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

ProcessNaming name_processes(const ResultSet& rs) {
  std::vector<size_t> order(rs.ops.size());
  std::iota(order.begin(), order.end(), size_t{0});
  auto before = [&](size_t a, size_t b) { return rs.ops[a].event_index < rs.ops[b].event_index; };
  if (!std::is_sorted(order.begin(), order.end(), before)) std::stable_sort(order.begin(), order.end(), before);
  ProcessNaming pn;
  std::unordered_map<std::string, uint32_t> index;
  auto intern = [&](std::string_view name) {
    auto [it, fresh] = index.emplace(std::string(name), static_cast<uint32_t>(pn.names.size()));
    if (fresh) pn.names.emplace_back(name);
    return it->second;
  };
  const uint32_t unknown = intern("(unknown)");
  std::unordered_map<uint32_t, uint32_t> name_of;  // pid -> name index
  if (!rs.header.command.empty()) name_of[rs.header.initial.pid] = intern(basename_of(rs.header.command[0]));
  pn.op_name.assign(rs.ops.size(), unknown);
  for (size_t i : order) {
    const OpRecord& op = rs.ops[i];
    if (op.nr == kEvProcExec) {
      std::string_view file = rs.str(op.path);
      if (!file.empty()) name_of[op.pid] = intern(basename_of(file));
    }
    auto it = name_of.find(op.pid);
    if (it != name_of.end()) pn.op_name[i] = it->second;
  }
  return pn;
}

std::vector<std::string> process_names(const ResultSet& rs) {
  const ProcessNaming pn = name_processes(rs);
  std::vector<std::string> out;
  out.reserve(pn.op_name.size());
  for (uint32_t n : pn.op_name) out.push_back(pn.names[n]);
  return out;
}

ResultStats compute_stats(const ResultSet& rs, const StatsOptions& opt) {
  ResultStats st;
  const ProcessNaming pn = name_processes(rs);
  const std::string root = rs.header.root.empty() ? "/" : rs.header.root;
  // Histograms by index while scanning; into the maps once at the end.
  std::vector<LogHistogram> by_name(pn.names.size());
  std::vector<std::string> dir_names;
  std::vector<LogHistogram> by_dir;
  std::unordered_map<std::string, uint32_t> dir_index;
  std::unordered_map<StrId, uint32_t> dir_of_path;
  for (size_t i = 0; i < rs.ops.size(); ++i) {
    const OpRecord& op = rs.ops[i];
    ++st.ops;
    if (op.flags & kOfDivergent) {
      ++st.divergent;
      st.divergence.add(op);
    }
    if (op.flags & kOfSkipped) {
      ++st.skipped;
      continue;
    }
    st.by_class[static_cast<size_t>(class_of(op.nr))].record(op.latency);
    by_name[pn.op_name[i]].record(op.latency);
    auto it = dir_of_path.find(op.path);
    if (it == dir_of_path.end()) {
      std::string key = dir_key(rs.str(op.path), root, opt.dir_depth);
      auto [d, fresh] = dir_index.emplace(key, static_cast<uint32_t>(dir_names.size()));
      if (fresh) {
        dir_names.push_back(std::move(key));
        by_dir.emplace_back();
      }
      it = dir_of_path.emplace(op.path, d->second).first;
    }
    by_dir[it->second].record(op.latency);
  }
  for (size_t n = 0; n < by_name.size(); ++n)
    if (by_name[n].count()) st.by_process[pn.names[n]] = std::move(by_name[n]);
  for (size_t d = 0; d < by_dir.size(); ++d) st.by_dir[dir_names[d]] = std::move(by_dir[d]);
  return st;
}

}  // namespace fsr

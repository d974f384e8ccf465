// SPDX-License-Identifier: Apache-2.0
#include "report/stats.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "base/paths.h"

namespace fsr {
namespace {

std::string_view basename_of(std::string_view p) {
  while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);
  const size_t slash = p.rfind('/');
  return slash == std::string_view::npos ? p : p.substr(slash + 1);
}

std::vector<std::string_view> components(std::string_view p) {
  std::vector<std::string_view> out;
  split_path(p, out);
  return out;
}

}  // namespace

std::string dir_key(std::string_view path, std::string_view root, int depth) {
  if (path.empty()) return "(no path)";
  const auto pc = components(path);
  const auto rc = components(root);
  if (pc == rc) return ".";                               // the root itself
  const size_t dir_len = pc.empty() ? 0 : pc.size() - 1;  // drop the leaf
  const bool inside = rc.size() <= dir_len && std::equal(rc.begin(), rc.end(), pc.begin());
  const size_t first = inside ? rc.size() : 0;
  const size_t last = std::min(dir_len, first + static_cast<size_t>(std::max(depth, 1)));
  std::string out = inside ? "" : "/";
  for (size_t i = first; i < last; ++i) {
    if (i > first) out += '/';
    // A process's own /proc directory is one key whatever its pid: two runs
    // of a workload differ in pids, not in what they ask of /proc.
    const bool pid_dir =
        !inside && i == 1 && pc[0] == "proc" && pc[i].find_first_not_of("0123456789") == std::string_view::npos;
    if (pid_dir)
      out += "<pid>";
    else
      out += pc[i];
  }
  return out.empty() ? "." : out;
}

ProcessNamer::ProcessNamer(const TraceHeader& header) {
  intern("(unknown)");
  if (!header.command.empty()) of_pid_[header.initial.pid] = intern(basename_of(header.command[0]));
}

uint32_t ProcessNamer::intern(std::string_view name) {
  auto [it, fresh] = index_.emplace(std::string(name), static_cast<uint32_t>(names_.size()));
  if (fresh) names_.emplace_back(name);
  return it->second;
}

uint32_t ProcessNamer::name(const OpRecord& op, std::string_view path) {
  if (op.nr == kEvProcExec && !path.empty()) {
    last_pid_ = op.pid;
    return last_name_ = of_pid_[op.pid] = intern(basename_of(path));
  }
  if (op.pid == last_pid_ && last_name_ != UINT32_MAX) return last_name_;
  auto it = of_pid_.find(op.pid);
  last_pid_ = op.pid;
  return last_name_ = it == of_pid_.end() ? 0 : it->second;
}

ProcessNaming name_processes(const ResultSet& rs) {
  ProcessNaming pn;
  ProcessNamer namer(rs.header);
  pn.op_name.assign(rs.ops.size(), 0);
  for (size_t i : event_order(rs.ops)) pn.op_name[i] = namer.name(rs.ops[i], rs.str(rs.ops[i].path));
  pn.names = namer.names();
  return pn;
}

std::vector<std::string> process_names(const ResultSet& rs) {
  const ProcessNaming pn = name_processes(rs);
  std::vector<std::string> out;
  out.reserve(pn.op_name.size());
  for (uint32_t n : pn.op_name) out.push_back(pn.names[n]);
  return out;
}

StatsAccumulator::StatsAccumulator(const TraceHeader& header, const StatsOptions& opt)
    : namer_(header), root_(header.root.empty() ? "/" : header.root), depth_(opt.dir_depth) {}

uint32_t& StatsAccumulator::dir_slot(StrId path) {
  if (path >= kDenseIds) return dir_of_far_path_.try_emplace(path, kNoDir).first->second;
  if (path >= dir_of_path_.size())
    dir_of_path_.resize(std::max<size_t>(size_t{path} + 1, 2 * dir_of_path_.size()), kNoDir);
  return dir_of_path_[path];
}

template <typename PathOf>
void StatsAccumulator::add_op(const OpRecord& op, const PathOf& path_of) {
  const uint32_t name = namer_.name(op, op.nr == kEvProcExec ? path_of(op.path) : std::string_view());
  ++st_.ops;
  if (op.flags & kOfDivergent) {
    ++st_.divergent;
    st_.divergence.add(op);
  }
  if (op.flags & kOfSkipped) {
    ++st_.skipped;
    return;
  }
  st_.by_class[static_cast<size_t>(class_of(op.nr))].record(op.latency);
  if (name >= by_name_.size()) by_name_.resize(name + 1);
  by_name_[name].record(op.latency);
  // Histograms by index while scanning; into the maps once at the end.
  uint32_t& dir = dir_slot(op.path);
  if (dir == kNoDir) {
    std::string key = dir_key(path_of(op.path), root_, depth_);
    auto [d, fresh] = dir_index_.emplace(key, static_cast<uint32_t>(dir_names_.size()));
    if (fresh) {
      dir_names_.push_back(std::move(key));
      by_dir_.emplace_back();
    }
    dir = d->second;
  }
  by_dir_[dir].record(op.latency);
}

void StatsAccumulator::add(const OpRecord& op, std::string_view path) {
  add_op(op, [path](StrId) { return path; });
}

void StatsAccumulator::add(const OpRecord& op, const std::function<std::string_view(StrId)>& path_of) {
  add_op(op, path_of);
}

ResultStats StatsAccumulator::finish() {
  for (size_t n = 0; n < by_name_.size(); ++n)
    if (by_name_[n].count()) st_.by_process[namer_.names()[n]] = std::move(by_name_[n]);
  for (size_t d = 0; d < by_dir_.size(); ++d) st_.by_dir[dir_names_[d]] = std::move(by_dir_[d]);
  return std::move(st_);
}

ResultStats compute_stats(const ResultSet& rs, const StatsOptions& opt) {
  StatsAccumulator acc(rs.header, opt);
  for (size_t i : event_order(rs.ops)) acc.add(rs.ops[i], rs.str(rs.ops[i].path));
  return acc.finish();
}

}  // namespace fsr

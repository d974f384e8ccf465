// SPDX-License-Identifier: Apache-2.0
#include "replayer/plan/survey.h"

#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <algorithm>

#include "traces/syscalls.h"

namespace fsr {

namespace {
constexpr uint64_t kMaxBuf = 16ull << 20;
}

SurveyBuilder::SurveyBuilder(const PlanInputs& in, StringLookup str, uint64_t window, SurveyTree tree)
    : ps_(std::make_unique<PlanStream>(in, std::move(str), nullptr, window, window / 4, nullptr)),
      tree_(tree == SurveyTree::kBuild
                ? std::make_unique<TreeSpecBuilder>(PathMap(in.recorded_root.empty() ? "/" : in.recorded_root),
                                                    in.target_dir, in.scratch_dir)
                : nullptr),
      lookahead_(window / 4),
      issued_(kMaxSyscallNr, 0) {
  s_.base_ts = UINT64_MAX;
}

SurveyBuilder::SurveyBuilder(const PlanInputs& in, StringLookup str, uint64_t window,
                             const std::vector<PrestateEntry>& prestate)
    : SurveyBuilder(in, std::move(str), window) {
  add_prestate(prestate);
}

void SurveyBuilder::add_prestate(std::span<const PrestateEntry> block) {
  if (tree_) tree_->add_prestate(block);
}
void SurveyBuilder::reserve_prestate(uint64_t entries) {
  if (tree_) tree_->reserve(entries);
}

SurveyBuilder::~SurveyBuilder() = default;

void SurveyBuilder::tree_op(uint64_t i) {
  if (!tree_) return;
  if (i == 0) tree_->add_initial(ps_->plan());
  tree_->add_op(ps_->plan(), i);
}

void SurveyBuilder::add(const Event& e) {
  const uint64_t i = s_.events++;
  if (i == 0) s_.first_ts = e.ts;
  s_.base_ts = std::min(s_.base_ts, e.ts);
  s_.last_ts = std::max(s_.last_ts, e.ts);
  s_.last_end = std::max(s_.last_end, e.ts + e.dur);
  ps_->add(e);
  Plan& plan = ps_->plan();
  const PlanOp& op = plan.op(i);
  if (op.flags & kPfDevice) {
    if (s_.device.size() < plan.paths.size()) s_.device.resize(plan.paths.size());
    s_.device[op.path[0]] = 1;
  }
  if (op.action == OpAction::kIssue) {
    if (e.nr < kMaxSyscallNr && !issued_[e.nr]) {
      issued_[e.nr] = 1;
      s_.issued.push_back(e.nr);
    }
    const SyscallClass k = class_of(e.nr);
    if (k == SyscallClass::kRead || k == SyscallClass::kWrite || k == SyscallClass::kCopy ||
        k == SyscallClass::kReaddir)
      s_.max_io = std::max<uint64_t>(s_.max_io, e.ret > 0 ? static_cast<uint64_t>(e.ret) : 0);
    // (copy_file_range and splice write to their second fd, sendfile to its first)
    const uint32_t out = (e.nr == SYS_copy_file_range || e.nr == SYS_splice) ? op.ofd2 : op.ofd;
    if ((k == SyscallClass::kWrite || k == SyscallClass::kCopy) && e.ret > 0 && out < plan.ofds.size() &&
        plan.ofds[out].path < plan.paths.size())
      s_.written[static_cast<int>(plan.paths[plan.ofds[out].path].mapped.root)] += static_cast<uint64_t>(e.ret);
  }
  // The smallest lag between a process's exit and its parent's wait (deps.cpp's held exits).
  // (The trace is in completion order, or nearly: the wait may come before the exit.)
  if ((e.nr == SYS_wait4 || e.nr == SYS_waitid) && e.ret >= 0) {
    const uint32_t child =
        e.nr == SYS_wait4 ? static_cast<uint32_t>(e.ret) : (e.args[0] == P_PID ? static_cast<uint32_t>(e.args[1]) : 0);
    auto it = last_of_pid_.find(child);
    if (child && it != last_of_pid_.end() && it->second.exit && e.ts + e.dur >= it->second.end)
      s_.exit_floor = std::min(s_.exit_floor, e.ts + e.dur - it->second.end);
    if (child) reaped_[child] = e.ts + e.dur;
  }
  if (e.nr == kEvProcExit)
    if (auto it = reaped_.find(e.pid); it != reaped_.end() && it->second >= e.ts + e.dur)
      s_.exit_floor = std::min(s_.exit_floor, it->second - e.ts - e.dur);
  Last& l = last_of_pid_[e.pid];
  if (l.end <= e.ts + e.dur) l = {e.ts + e.dur, e.nr == kEvProcExit};
  if (i >= lookahead_) tree_op(i - lookahead_), treed_ = i - lookahead_ + 1;
}

PlanSurvey SurveyBuilder::finish() {
  ps_->finish();
  Plan& plan = ps_->plan();
  for (uint64_t i = treed_; i < s_.events; ++i) tree_op(i);
  if (s_.events == 0) {
    s_.base_ts = 0;
    if (tree_) tree_->add_initial(plan);
  }
  s_.device.resize(plan.paths.size());
  if (tree_) s_.spec = tree_->finish([this](uint32_t p) { return p < s_.device.size() && s_.device[p]; });
  s_.threads = plan.threads;
  s_.workers = assign_workers(s_.threads);
  s_.paths = plan.paths.size();
  s_.ofds = plan.ofds.size();
  s_.maps = plan.maps.size();
  for (const PlanSpace& sp : plan.spaces) s_.space_threads.push_back(sp.threads);
  s_.peak_mappings = plan.peak_mappings;
  s_.peak_spaces = plan.peak_spaces;
  s_.max_io = std::min(s_.max_io, kMaxBuf);
  return std::move(s_);
}

}  // namespace fsr

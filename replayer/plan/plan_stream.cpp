// SPDX-License-Identifier: Apache-2.0
#include "replayer/plan/plan_stream.h"

#include <sys/stat.h>
#include <sys/syscall.h>

#include <algorithm>
#include <stdexcept>

#include "replayer/plan/survey.h"

namespace fsr {
namespace {

uint32_t pow2_mask(uint64_t n) {
  uint64_t c = 1;
  while (c < n) c <<= 1;
  return static_cast<uint32_t>(c - 1);
}

}  // namespace

uint64_t plan_window(uint64_t requested) {
  constexpr uint64_t kMinWindow = 1u << 10;
  const uint64_t want = requested ? std::min<uint64_t>(std::max(requested, kMinWindow), 1ull << 31) : kDefaultWindow;
  return pow2_mask(want) + 1ull;
}

uint64_t fit_window(uint64_t window, uint64_t events) {
  const uint64_t need = plan_window(std::min<uint64_t>(events, 1ull << 29) * 4 + 4);
  return std::min(window, need);
}

WindowSync::WindowSync(uint64_t n, bool records)
    : slots(n),
      done(new std::atomic<uint64_t>[n]),
      done_ns(new std::atomic<uint64_t>[n]),
      ready(new std::atomic<uint64_t>[n]),
      worker(new std::atomic<uint32_t>[n]),
      rec(records ? n : 0) {
  for (uint64_t i = 0; i < n; ++i) {
    done[i].store(0, std::memory_order_relaxed);
    done_ns[i].store(0, std::memory_order_relaxed);
    ready[i].store(0, std::memory_order_relaxed);
    worker[i].store(0, std::memory_order_relaxed);
  }
}

PlanStream::PlanStream(const PlanInputs& in, StringLookup str, const PlanSurvey* survey, uint64_t window,
                       uint64_t lookahead, WindowSync* sync)
    : in_(in),
      str_(std::move(str)),
      survey_(survey),
      sync_(sync),
      lookahead_(lookahead),
      procs_(plan_, in_, str_, window),
      maps_(plan_) {
  plan_.op_mask = pow2_mask(window);
  plan_.ops.resize(uint64_t{plan_.op_mask} + 1);
  plan_.ev.resize(plan_.ops.size());
  facts_.resize(plan_.ops.size());
  plan_.serial_dirs = in.serial_dirs;
  plan_.walks_as_passed = in.walks_as_passed;
  if (sync_) {  // a window that runs while it is planned: the arenas are rings too
    plan_.dep_mask = pow2_mask(window * 8 + kMaxEdgesPerOp);
    plan_.deps.resize(uint64_t{plan_.dep_mask} + 1);
    plan_.dep_kinds.resize(plan_.deps.size());
    plan_.close_mask = pow2_mask(window * 2 + 65536);
    plan_.closes.resize(uint64_t{plan_.close_mask} + 1);
    plan_.unmap_mask = pow2_mask(window * 2 + 65536);
    plan_.unmaps.resize(uint64_t{plan_.unmap_mask} + 1);
  }
  if (survey_) {
    plan_.base_ts = survey_->base_ts;
    plan_.enter_span = survey_->last_ts > survey_->base_ts ? survey_->last_ts - survey_->base_ts : 0;
    plan_.threads = survey_->threads;
    // The survey counted every thread's ops: this pass counts them again
    // (a thread's first op is the one planned while its count is 0).
    for (RecordedThread& t : plan_.threads) t.n_ops = 0;
    plan_.worker_count = survey_->workers;
    plan_.paths.reserve(survey_->paths);
    plan_.ofds.reserve(survey_->ofds);
    plan_.maps.reserve(survey_->maps);
    plan_.spaces.reserve(survey_->space_threads.size());
    plan_.fixed_tables = true;
    deps_ = std::make_unique<DepTracker>(plan_, facts_, window, survey_->exit_floor);
  }
}

PlanStream::~PlanStream() = default;

bool PlanStream::room() const {
  if (!sync_) return true;
  const uint64_t base = sync_->base.load(std::memory_order_acquire);
  if (plan_.size >= base + plan_.ops.size()) return false;
  if (base == plan_.size) return true;
  const PlanOp& b = plan_.op(base);
  return plan_.dep_pos - b.dep_begin + kMaxEdgesPerOp + 1 < plan_.deps.size() &&
         plan_.close_pos - b.close_begin + 65536 < plan_.closes.size() &&
         plan_.unmap_pos - b.unmap_begin + 65536 < plan_.unmaps.size();
}

void PlanStream::set_closes(PlanOp& op, const std::vector<uint32_t>& closed) {
  op.close_begin = plan_.close_pos;
  for (uint32_t c : closed) arena_push(plan_.closes, plan_.close_mask, plan_.close_pos, c);
  op.close_end = plan_.close_pos;
}

bool PlanStream::is_file(uint32_t ofd) const {
  return ofd != kNoOfd && (plan_.ofds[ofd].kind == OfdKind::kFile || plan_.ofds[ofd].kind == OfdKind::kDir);
}

void PlanStream::fd_op_action(PlanOp& op) const {
  if (op.ofd == kNoOfd)
    op.action = OpAction::kSkip;
  else
    op.action = is_file(op.ofd) ? OpAction::kIssue : OpAction::kEmulate;
}

bool PlanStream::delayed(uint64_t i) const {
  return deps_ && (deps_->final_later(i) || plan_.event(i).nr == kEvProcExit);
}

void PlanStream::make_final(uint64_t i) {
  if (sync_) {
    std::atomic<uint64_t>& r = sync_->ready[i & plan_.op_mask];
    r.store(i + 1, std::memory_order_release);
    if (sync_->waiters) unwoken_.push_back(i);
  }
}

void PlanStream::wake() {
  if (!sync_ || !sync_->waiters || (unwoken_.empty() && !planned_unwoken_)) return;
  std::atomic_thread_fence(std::memory_order_seq_cst);  // the stores before the parked counts' loads
  if (planned_unwoken_ && sync_->planned_lot.anyone_parked()) sync_->planned_lot.unpark(0);
  if (sync_->ready_lot.anyone_parked())
    for (uint64_t k : unwoken_) sync_->ready_lot.unpark(k);
  unwoken_.clear();
  planned_unwoken_ = 0;
}

void PlanStream::add(const Event& e) {
  const uint64_t i = plan_.size;
  if (i >= kNoOp - 1) throw std::length_error("more than 4G events");
  const size_t slot = i & plan_.op_mask;
  plan_.ev[slot] = e;
  plan_.ops[slot] = PlanOp{};
  facts_[slot] = OpFacts{};
  PlanOp& op = plan_.ops[slot];
  // (Slots are reused: the lists of the op that had it are gone.)
  op.dep_begin = op.dep_end = plan_.dep_pos;
  op.close_begin = op.close_end = plan_.close_pos;
  op.unmap_begin = op.unmap_end = plan_.unmap_pos;
  plan_syscall(i);
  plan_.threads[op.thread].end = std::max(plan_.threads[op.thread].end, e.ts + e.dur);
  // Paths any event showed to be a character device (the survey knows them
  // all): their ops use a stand-in (device_standin) and change no name
  // space. /dev/tty is one whatever its recorded result (plan.h).
  const uint32_t p = op.path[0];
  bool dev = false;
  if (p != kNoPath) {
    if (survey_)
      dev = p < survey_->device.size() && survey_->device[p];
    else
      dev = (e.ret >= 0 && !(e.flags & kEfNoInode) && S_ISCHR(e.mode)) || procs_.is_tty(p);
  }
  if (dev) {
    op.flags = static_cast<uint8_t>((op.flags | kPfDevice) & ~(kPfNs0 | kPfNs1));
    facts_[slot].ns_mask = 0;
  }
  plan_.size = i + 1;
  if (deps_) deps_->add(i);
  if (sync_) {
    sync_->worker[slot].store(plan_.threads[op.thread].worker, std::memory_order_relaxed);
    sync_->planned.store(i + 1, std::memory_order_release);
    if (sync_->waiters) ++planned_unwoken_;
  }
  if (delayed(i))
    delayed_.push_back(i);
  else
    make_final(i);
  while (!delayed_.empty() && delayed_.front() + lookahead_ <= i) {
    deps_->finalize(delayed_.front());
    make_final(delayed_.front());
    delayed_.pop_front();
  }
  if (planned_unwoken_ >= kWakeEvery || unwoken_.size() >= kWakeEvery) wake();
}

void PlanStream::finish() {
  while (!delayed_.empty()) {
    deps_->finalize(delayed_.front());
    make_final(delayed_.front());
    delayed_.pop_front();
  }
  if (sync_) {
    sync_->planned.store(plan_.size | kPlannedEnd, std::memory_order_release);
    if (sync_->waiters) ++planned_unwoken_;
  }
  wake();
}

}  // namespace fsr

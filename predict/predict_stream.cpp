// SPDX-License-Identifier: Apache-2.0
#include "predict/predict_stream.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "replayer/plan/plan_stream.h"
#include "replayer/plan/survey.h"
#include "predict/window_view.h"
#include "base/clock.h"
#include "traces/in_flight.h"

namespace fsr {
namespace {

constexpr int kPlanBatch = 4096;  // events planned between the simulators' turns

Status too_long() { return Status::error("more than 4G events: split the trace"); }

// The survey: the workers and table sizes the planner needs before its first
// op (its own window goes before the plan's comes). Counts st.events.
Result<PlanSurvey> survey_trace(const PlanInputs& in, const StringLookup& str, const EventChunks& survey_pass,
                                StreamStats& st) {
  std::vector<Event> chunk;
  SurveyBuilder sb(in, str, st.window, SurveyTree::kNone);  // predict prepares nothing
  while (true) {
    FSR_ASSIGN_OR_RETURN(const bool more, survey_pass(chunk));
    if (!more) break;
    if (st.events + chunk.size() >= kNoOp - 1) return too_long();
    for (const Event& e : chunk) sb.add(e);
    st.events += chunk.size();
  }
  return sb.finish();
}

// The plan pass into the planner, a batch a turn, no further than the
// survey saw (a trace still being written: the tables are sized by it).
class PlanFeeder {
 public:
  PlanFeeder(const EventChunks& pass, PlanStream& ps, WindowView& view, uint64_t survey_events)
      : pass_(pass), ps_(ps), view_(view), plan_(ps.plan()), survey_events_(survey_events) {}

  // Plans up to kPlanBatch events while the window has room; true if it
  // planned an op or finished the plan.
  Result<bool> turn() {
    bool moved = false;
    for (int n = 0; n < kPlanBatch && more_ && ps_.room();) {
      if (at_ == chunk_.size()) {
        FSR_ASSIGN_OR_RETURN(bool got, pass_(chunk_));
        at_ = 0;
        if (got && plan_.size >= survey_events_) got = false;
        if (got && plan_.size + chunk_.size() > survey_events_) chunk_.resize(survey_events_ - plan_.size);
        if (!got) {
          more_ = false;
          chunk_.clear();
          ps_.finish();
          moved = true;
        }
        continue;
      }
      ps_.add(chunk_[at_++]);
      view_.publish(plan_.size - 1);
      moved = true;
      ++n;
    }
    return moved;
  }

  bool more() const { return more_; }

 private:
  const EventChunks& pass_;
  PlanStream& ps_;
  WindowView& view_;
  const Plan& plan_;
  const uint64_t survey_events_;
  std::vector<Event> chunk_;
  size_t at_ = 0;
  bool more_ = true;
};

// One simulator per column, each with its own cost model, over the one view.
class ColumnSims {
 public:
  ColumnSims(const WindowView& view, const std::vector<StreamColumn>& cols, const StreamOptions& opt, uint64_t window) {
    for (const StreamColumn& c : cols) {
      const uint64_t seed = c.seed ? c.seed : opt.seed;
      costs_.push_back(c.placed ? std::make_unique<OpCost>(view, c.placed, seed, opt.cold_start)
                                : std::make_unique<OpCost>(view, c.model, seed, opt.cold_start));
      sims_.push_back(std::make_unique<Simulator>(view, *costs_.back(), opt.sim, window));
    }
  }

  // Every simulator takes a step: true if any moved.
  bool step() {
    bool moved = false;
    for (const auto& s : sims_) moved = s->step() || moved;
    return moved;
  }

  // Every simulator runs one op past a missing dependency: true if any could.
  bool force_one() {
    bool forced = false;
    for (const auto& s : sims_) forced = s->force_one() || forced;
    return forced;
  }

  bool all_done(uint64_t i) const {
    for (const auto& s : sims_)
      if (!s->done(i)) return false;
    return true;
  }

  // Op i's record to each column's sink.
  void emit(uint64_t i, const Event& e, const PlanOp& op, std::vector<StreamColumn>& cols) const {
    for (size_t c = 0; c < cols.size(); ++c)
      if (cols[c].sink) cols[c].sink(sims_[c]->record(i), e, op);
  }

  // The view's FIFOs below every simulator's position, and the slots below `base`, given back.
  void release(uint64_t base, WindowView& view) {
    for (uint32_t w = 0; w < view.worker_count(); ++w) {
      uint64_t low = UINT64_MAX;
      for (const auto& s : sims_) low = std::min(low, s->pos(w));
      view.drop_below(w, low);
    }
    for (const auto& s : sims_) s->release(base);
  }

  void results(std::vector<StreamColumn>& cols) const {
    for (size_t c = 0; c < cols.size(); ++c) {
      cols[c].sim = sims_[c]->stats();
      cols[c].notes = costs_[c]->notes();
      cols[c].placed_counts = costs_[c]->placed_counts();
      cols[c].server = costs_[c]->server().totals();
    }
  }

 private:
  std::vector<std::unique_ptr<OpCost>> costs_;
  std::vector<std::unique_ptr<Simulator>> sims_;
};

}  // namespace

EventChunks chunks_of(const std::vector<Event>& events, size_t chunk) {
  auto at = std::make_shared<size_t>(0);
  return [&events, chunk, at](std::vector<Event>& out) -> Result<bool> {
    if (*at >= events.size()) return false;
    const size_t n = std::min(chunk, events.size() - *at);
    out.assign(events.begin() + static_cast<std::ptrdiff_t>(*at),
               events.begin() + static_cast<std::ptrdiff_t>(*at + n));
    *at += n;
    return true;
  };
}

Result<StreamStats> simulate_stream(const PlanInputs& in, const StringLookup& str, const EventChunks& survey_pass,
                                    const EventChunks& plan_pass, std::vector<StreamColumn>& cols,
                                    const StreamOptions& opt) try {
  StreamStats st;
  st.window = plan_window(opt.window);
  st.lookahead = st.window / 4;
  // Phases in this thread's CPU time: on a shared machine the wall clock counts the others' work too.
  uint64_t t = now_ns(CLOCK_THREAD_CPUTIME_ID);
  auto lap = [&t](uint64_t& into) {
    const uint64_t now = now_ns(CLOCK_THREAD_CPUTIME_ID);
    into += now - t;
    t = now;
  };

  FSR_ASSIGN_OR_RETURN(const PlanSurvey survey, survey_trace(in, str, survey_pass, st));
  lap(st.survey_ns);
  st.window = fit_window(st.window, st.events);  // (the same plan, less memory for a short trace)
  st.lookahead = st.window / 4;

  WindowSync sync(st.window, /*records=*/false);  // (each simulator keeps its own)
  sync.waiters = false;                           // the simulators run in this thread
  PlanStream ps(in, str, &survey, st.window, st.lookahead, &sync);
  const Plan& plan = ps.plan();
  WindowView view(plan, sync, survey);
  ColumnSims sims(view, cols, opt, st.window);
  PlanFeeder feeder(plan_pass, ps, view, survey.events);
  InFlightMeter overlap;
  uint64_t base = 0;
  while (true) {
    FSR_ASSIGN_OR_RETURN(bool moved, feeder.turn());
    lap(st.plan_ns);
    moved = sims.step() || moved;
    lap(st.simulate_ns);
    // Records leave in event order once every column has simulated the op.
    const uint64_t from = base;
    while (base < plan.size && sims.all_done(base)) {
      const Event& e = plan.event(base);
      const PlanOp& op = plan.op(base);
      if (op.action == OpAction::kIssue) overlap.add(e.ts, e.ts + e.dur);
      sims.emit(base, e, op, cols);
      ++base;
    }
    if (base != from) {
      moved = true;
      sync.base.store(base, std::memory_order_release);
      sims.release(base, view);
      st.view_bytes = std::max(st.view_bytes, view.bytes());
    }
    lap(st.sink_ns);
    if (!feeder.more() && base == plan.size) break;
    // Nothing runs, nothing plans: a plan that would deadlock the replay.
    if (!moved && !sims.force_one())
      return Status::error("predict: the simulation stopped at op " + std::to_string(base) + " of " +
                           std::to_string(plan.size) + " (a bug: please report it with the trace)");
  }
  sims.results(cols);
  st.recorded_overlap = overlap.finish();
  st.approx_deps = plan.approx_deps;
  st.beyond_window = plan.beyond_window;
  st.moves_beyond_window = plan.moves_beyond_window;
  return st;
} catch (const std::exception& ex) {  // the planner's: more events or tables than the survey found
  return Status::error(std::string("predict: ") + ex.what() + " (did the trace change while it was read?)");
}

}  // namespace fsr

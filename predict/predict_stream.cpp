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

}  // namespace

EventChunks chunks_of(const std::vector<Event>& events, size_t chunk) {
  auto at = std::make_shared<size_t>(0);
  return [&events, chunk, at](std::vector<Event>& out) -> Result<bool> {
    if (*at >= events.size()) return false;
    const size_t n = std::min(chunk, events.size() - *at);
    out.assign(events.begin() + static_cast<std::ptrdiff_t>(*at), events.begin() + static_cast<std::ptrdiff_t>(*at + n));
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

  // The survey: the workers and table sizes the planner needs before its first op.
  std::vector<Event> chunk;
  PlanSurvey survey;
  {  // (its own window goes before the plan's comes)
    SurveyBuilder sb(in, str, st.window, SurveyTree::kNone);  // predict prepares nothing
    while (true) {
      FSR_ASSIGN_OR_RETURN(const bool more, survey_pass(chunk));
      if (!more) break;
      if (st.events + chunk.size() >= kNoOp - 1) return too_long();
      for (const Event& e : chunk) sb.add(e);
      st.events += chunk.size();
    }
    survey = sb.finish();
  }
  lap(st.survey_ns);
  st.window = fit_window(st.window, st.events);  // (the same plan, less memory for a short trace)
  st.lookahead = st.window / 4;

  WindowSync sync(st.window, /*records=*/false);  // (each simulator keeps its own)
  sync.waiters = false;  // the simulators run in this thread
  PlanStream ps(in, str, &survey, st.window, st.lookahead, &sync);
  const Plan& plan = ps.plan();
  WindowView view(plan, sync, survey);
  std::vector<std::unique_ptr<OpCost>> costs;
  std::vector<std::unique_ptr<Simulator>> sims;
  for (StreamColumn& c : cols) {
    costs.push_back(std::make_unique<OpCost>(view, c.model, c.seed ? c.seed : opt.seed, opt.cold_start));
    sims.push_back(std::make_unique<Simulator>(view, *costs.back(), opt.sim, st.window));
  }
  auto all_done = [&](uint64_t i) {
    for (const auto& s : sims)
      if (!s->done(i)) return false;
    return true;
  };
  InFlightMeter overlap;
  chunk.clear();
  size_t at = 0;
  bool more = true;
  uint64_t base = 0;
  while (true) {
    bool moved = false;
    for (int n = 0; n < kPlanBatch && more && ps.room();) {
      if (at == chunk.size()) {
        FSR_ASSIGN_OR_RETURN(bool got, plan_pass(chunk));
        at = 0;
        // No more than the survey saw (a trace still being written): its tables are sized by it.
        if (got && plan.size >= survey.events) got = false;
        if (got && plan.size + chunk.size() > survey.events) chunk.resize(survey.events - plan.size);
        if (!got) {
          more = false;
          chunk.clear();
          ps.finish();
          moved = true;
        }
        continue;
      }
      ps.add(chunk[at++]);
      view.publish(plan.size - 1);
      moved = true;
      ++n;
    }
    lap(st.plan_ns);
    for (const auto& s : sims) moved = s->step() || moved;
    lap(st.simulate_ns);
    // Records leave in event order once every column has simulated the op.
    const uint64_t from = base;
    while (base < plan.size && all_done(base)) {
      const Event& e = plan.event(base);
      const PlanOp& op = plan.op(base);
      if (op.action == OpAction::kIssue) overlap.add(e.ts, e.ts + e.dur);
      for (size_t c = 0; c < cols.size(); ++c)
        if (cols[c].sink) cols[c].sink(sims[c]->record(base), e, op);
      ++base;
    }
    if (base != from) {
      moved = true;
      sync.base.store(base, std::memory_order_release);
      for (uint32_t w = 0; w < view.worker_count(); ++w) {
        uint64_t low = UINT64_MAX;
        for (const auto& s : sims) low = std::min(low, s->pos(w));
        view.drop_below(w, low);
      }
      for (const auto& s : sims) s->release(base);
      st.view_bytes = std::max(st.view_bytes, view.bytes());
    }
    lap(st.sink_ns);
    if (!more && base == plan.size) break;
    if (!moved) {  // nothing runs, nothing plans: a plan that would deadlock the replay
      bool forced = false;
      for (const auto& s : sims) forced = s->force_one() || forced;
      if (!forced)
        return Status::error("predict: the simulation stopped at op " + std::to_string(base) + " of " +
                             std::to_string(plan.size) + " (a bug: please report it with the trace)");
    }
  }
  for (size_t c = 0; c < cols.size(); ++c) {
    cols[c].sim = sims[c]->stats();
    cols[c].notes = costs[c]->notes();
  }
  st.recorded_overlap = overlap.finish();
  st.approx_deps = plan.approx_deps;
  st.beyond_window = plan.beyond_window;
  st.moves_beyond_window = plan.moves_beyond_window;
  return st;
} catch (const std::exception& ex) {  // the planner's: more events or tables than the survey found
  return Status::error(std::string("predict: ") + ex.what() + " (did the trace change while it was read?)");
}

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
#include "replayer/plan/plan.h"

#include <algorithm>

#include "replayer/plan/plan_stream.h"
#include "replayer/plan/survey.h"

namespace fsr {

const char* device_standin(const std::string& p) {
  for (const char* d : {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"})
    if (p == d) return d;
  return "/dev/null";
}

Plan build_plan(const std::vector<Event>& events, const StringLookup& str, const PlanInputs& in) {
  uint64_t window = 16;
  while (window < events.size() + 1) window <<= 1;
  SurveyBuilder sb(in, str, window);
  for (const Event& e : events) sb.add(e);
  PlanSurvey s = sb.finish();
  PlanStream ps(in, str, &s, window, window, nullptr);  // looks ahead to the end
  for (const Event& e : events) ps.add(e);
  ps.finish();
  Plan p = std::move(ps.plan());
  p.peak_mappings = s.peak_mappings;
  p.peak_spaces = s.peak_spaces;
  return p;
}

}  // namespace fsr

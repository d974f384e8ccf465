// The last passes of build_plan (plan.cpp), over the finished ops: which
// paths are character devices (their ops use a stand-in, device_standin), and
// which replay worker runs each recorded thread (threads whose lifetimes do
// not overlap share one). Internal to the plan.
#pragma once

#include <vector>

#include "replayer/deps.h"
#include "replayer/plan.h"
#include "traces/event.h"

namespace fsr {

void mark_devices(const std::vector<Event>& events, std::vector<OpFacts>& facts, Plan& plan);
void assign_workers(Plan& plan);

}  // namespace fsr

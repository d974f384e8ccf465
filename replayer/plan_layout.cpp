// The last passes of build_plan (plan_layout.h).
#include "replayer/plan_layout.h"

#include <sys/stat.h>

#include <algorithm>
#include <queue>

namespace fsr {

const char* device_standin(const std::string& p) {
  for (const char* d : {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"})
    if (p == d) return d;
  return "/dev/null";
}

// Paths any event showed to be a character device: their ops use a stand-in
// (device_standin) and change no name space, so the tree neither makes nor
// removes them. /dev/tty is one whatever its recorded result: a shell opens it
// at start, and where it has no controlling terminal (a script, CI, the vm
// lab's guest) that open fails with ENXIO, which carries no inode facts; it
// replays on /dev/tty itself, so the replay's own terminal answers the same.
void mark_devices(const std::vector<Event>& events, std::vector<OpFacts>& facts, Plan& plan) {
  std::vector<bool> dev(plan.paths.size(), false);
  bool any = false;
  for (uint32_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    uint32_t p = plan.ops[i].path[0];
    if (p != kNoPath && ((e.ret >= 0 && !(e.flags & kEfNoInode) && S_ISCHR(e.mode)) || plan.paths[p].abs == "/dev/tty"))
      any = dev[p] = true;
  }
  if (!any) return;
  for (uint32_t i = 0; i < events.size(); ++i) {
    PlanOp& op = plan.ops[i];
    if (op.path[0] == kNoPath || !dev[op.path[0]]) continue;
    op.flags = static_cast<uint8_t>((op.flags | kPfDevice) & ~(kPfNs0 | kPfNs1));
    facts[i].ns_mask = 0;
  }
}

void assign_workers(Plan& plan) {
  std::vector<uint32_t> order(plan.threads.size());
  for (uint32_t t = 0; t < order.size(); ++t) order[t] = t;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return plan.threads[a].start < plan.threads[b].start;
  });
  using Slot = std::pair<uint64_t, uint32_t>;  // (end of its last thread, worker)
  std::priority_queue<Slot, std::vector<Slot>, std::greater<>> free;
  for (uint32_t t : order) {
    RecordedThread& rt = plan.threads[t];
    uint32_t w;
    if (!free.empty() && free.top().first < rt.start) {
      w = free.top().second;
      free.pop();
    } else {
      w = static_cast<uint32_t>(plan.workers.size());
      plan.workers.emplace_back();
    }
    rt.worker = w;
    auto& list = plan.workers[w];
    list.insert(list.end(), rt.ops.begin(), rt.ops.end());
    free.push({rt.end, w});
  }
}

}  // namespace fsr

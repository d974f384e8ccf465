// SPDX-License-Identifier: Apache-2.0
// Worker assignment (survey.h): a thread goes to the worker whose last thread
// ended first, if that was before it started; else to a new worker.
#include <algorithm>
#include <queue>

#include "replayer/plan/survey.h"

namespace fsr {

uint32_t assign_workers(std::vector<RecordedThread>& threads) {
  std::vector<uint32_t> order(threads.size());
  for (uint32_t t = 0; t < order.size(); ++t) order[t] = t;
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return threads[a].start < threads[b].start; });
  using Slot = std::pair<uint64_t, uint32_t>;  // (end of its last thread, worker)
  std::priority_queue<Slot, std::vector<Slot>, std::greater<>> free;
  uint32_t workers = 0;
  for (uint32_t t : order) {
    RecordedThread& rt = threads[t];
    uint32_t w;
    if (!free.empty() && free.top().first < rt.start) {
      w = free.top().second;
      free.pop();
    } else {
      w = workers++;
    }
    rt.worker = w;
    free.push({rt.end, w});
  }
  return workers;
}

}  // namespace fsr

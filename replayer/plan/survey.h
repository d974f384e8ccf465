// SPDX-License-Identifier: Apache-2.0
// The survey: the replay's first pass over the trace, streaming, before
// anything is prepared. It plans every event (the same planner the replay
// pass runs, without dependencies) and keeps only what the replay needs from
// the whole trace: the initial tree to prepare, each recorded thread's life
// (so that workers can be assigned before the first op runs), the paths
// that are character devices, the smallest wait-after-exit lag, the sizes of
// the tables the replay pass fills, and the calls it will issue. Its memory
// is the window plus those tables: paths, threads, address spaces, mappings,
// and the tree (tree_spec.h: bytes an entry, the prestate itself never held).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "replayer/plan/plan_stream.h"
#include "replayer/plan/tree_spec.h"
#include "traces/trace_model.h"

namespace fsr {

struct PlanSurvey {
  uint64_t events = 0;
  uint64_t base_ts = 0;                 // earliest enter time
  uint64_t first_ts = 0, last_end = 0;  // the first event's enter, the latest exit
  uint64_t last_ts = 0;                 // the latest enter
  std::vector<RecordedThread> threads;  // with their workers
  uint32_t workers = 0;
  std::vector<uint8_t> device;  // per plan path: a character device
  uint64_t exit_floor = kWakeNs;
  size_t paths = 0, ofds = 0, maps = 0;
  std::vector<uint32_t> space_threads;  // per address space: the threads that leave it
  uint64_t peak_mappings = 0, peak_spaces = 0;
  uint64_t max_io = 65536;  // largest read/write a worker's buffer holds (capped)
  // Bytes the issued writes and copies wrote, by the root of their file
  // (Root::kTarget, Root::kScratch): at most the space the replay takes.
  uint64_t written[2] = {0, 0};
  std::vector<uint16_t> issued;  // distinct syscalls issued
  TreeSpec spec;
};

enum class SurveyTree { kBuild, kNone };

class SurveyBuilder {
 public:
  SurveyBuilder(const PlanInputs& in, StringLookup str, uint64_t window, const std::vector<PrestateEntry>& prestate);
  // The prestate given afterwards, block by block (TraceReader::for_each_prestate),
  // all of it before the first add(): the builder never holds the entries,
  // only the tree they make (tree_spec.h: ~70 bytes an entry and its path's nodes).
  // SurveyTree::kNone: no TreeSpec (PlanSurvey::spec stays empty) and the
  // prestate is ignored, for a caller that prepares nothing (predict).
  SurveyBuilder(const PlanInputs& in, StringLookup str, uint64_t window, SurveyTree tree = SurveyTree::kBuild);
  void add_prestate(std::span<const PrestateEntry> block);
  void reserve_prestate(uint64_t entries);  // before add_prestate: the total, when known
  ~SurveyBuilder();
  void add(const Event& e);
  PlanSurvey finish();

 private:
  void tree_op(uint64_t i);
  std::unique_ptr<PlanStream> ps_;
  std::unique_ptr<TreeSpecBuilder> tree_;
  PlanSurvey s_;
  uint64_t lookahead_;
  uint64_t treed_ = 0;  // ops given to the tree so far
  struct Last {
    uint64_t end = 0;
    bool exit = false;
  };
  std::unordered_map<uint32_t, Last> last_of_pid_;
  std::unordered_map<uint32_t, uint64_t> reaped_;  // child pid -> its wait's end
  std::vector<uint8_t> issued_;
};

// Which replay worker runs each recorded thread: threads whose lifetimes do
// not overlap share one (worker_assign.cpp). Returns the number of workers.
uint32_t assign_workers(std::vector<RecordedThread>& threads);

}  // namespace fsr

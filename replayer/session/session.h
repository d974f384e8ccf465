// SPDX-License-Identifier: Apache-2.0
// The replay's session (replay.h run_prepare, run_replay): the trace opened
// and surveyed once (the tree, the threads' lives, table sizes, the calls
// that depend on the recorded mount), its roots claimed and checked, and what
// a stop or a refusal undoes. Internal to the replayer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "replayer/exec/features.h"
#include "replayer/plan/plan.h"
#include "replayer/session/placed_dirs.h"
#include "replayer/session/replay.h"
#include "replayer/session/root_policy.h"
#include "replayer/plan/survey.h"
#include "replayer/session/target_guard.h"
#include "traces/trace_model.h"
#include "traces/trace_reader.h"

namespace fsr::replay_session {

uint64_t window_of(const ReplayOptions& o);
Result<std::unique_ptr<TraceReader>> open_trace(const std::string& path);
// The replay's writes against the free space of the directory they land in;
// "" when they fit (see session.cpp).
std::string space_warning(const Roots& roots, const uint64_t (&written)[2]);
ProgressFn phase_progress(const ReplayOptions& o, const char* phase);

struct Session {
  TraceHeader header;
  Roots roots;
  RootClaim claim[2];  // the target's and a given scratch's markers, locked (target_guard.h)
  bool wrote = false;  // something was made in the roots (a claim's marker aside)
  Features features;
  PlanInputs in;
  PlanSurvey survey;
  std::vector<std::string> problems;  // damage found in the trace
  std::vector<std::string> hazards;   // its calls that depend on the recorded mount (speed_hazards.h)
  std::optional<TraceFooter> footer;  // (absent: the recording did not finish)
  uint64_t trace_id = 0;              // the trace's content id (trace_id.h): the markers name it
  PlacedRoots placed;                 // --place: each OTHER claimed and mounted (unmounted first, when destroyed)
  // A refusal before anything was made leaves no marker this run made.
  ~Session() {
    for (auto& p : placed) p->unmount();
    for (int k = 0; k < 2; ++k)
      if (!wrote && claim[k].made_marker && claim[k].was_empty) claim[k].release_and_unmark(roots.fd[k]);
    for (auto& p : placed)
      if (!wrote && p->claim.made_marker && p->claim.was_empty) p->claim.release_and_unmark(p->fd);
  }
};

std::string signal_name(int sig);
// The target, and a scratch the user gave, claimed for this trace; the
// writable and room checks of both; then each --place directory claimed and
// mounted (placed_dirs.h).
Status claim_roots(Session& s, const std::string& trace_path, const ReplayOptions& o);
// What a stop during the prepare undoes; the line that says so.
std::string undo_prepare(Session& s);
// The survey pass: the trace read once, chunk by chunk.
Result<std::unique_ptr<Session>> open_session(const std::string& trace_path, const ReplayOptions& o,
                                              const ProgressFn& progress);

}  // namespace fsr::replay_session

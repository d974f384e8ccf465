// SPDX-License-Identifier: Apache-2.0
// predict's placement columns: `--place SUBDIR=PROFILE` rules resolved to
// the profiles' latency models (placed_models.h), and after the run the
// lines that say what the placement did (ops per mount, renames across
// mounts, a SUBDIR the trace never touched). The rest -- every op on no
// placed SUBDIR -- goes to the profile named by `--place .=PROFILE`, else
// to the last --profile that no rule names.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "replayer/plan/placement.h"
#include "predict/placed_models.h"
#include "base/status.h"

namespace fsr {

struct PlacementRequest {
  std::vector<PlaceRule> rules;  // as given (overlaps are left out with a line)
  std::string label;             // "" : from the rules ("placed: .git=fast, rest=slow")
  bool attribute = false;        // also the priced ns per directory (placed_models.h); rules may be empty
};

struct ProfileRef {  // a readable profile column
  std::string file, name;
  const LatencyModel* model;
};

// The placement's models, or an error line when it cannot be priced (a rule
// or the rest names no readable profile, nothing left to place). Lines for
// rules left out (overlaps, unknown profiles) go to `problems`.
Result<std::unique_ptr<PlacedModels>> resolve_placement(const PlacementRequest& req,
                                                        const std::vector<ProfileRef>& profiles,
                                                        std::vector<std::string>& problems);

// After the run: one line per mount with its op count, the crossing
// renames/links, and a line per rule that priced no op (the trace never
// touched its SUBDIR: a placement that changes nothing).
std::vector<std::string> placement_notes(const PlacedModels& m, const PlacedCounts& c);

}  // namespace fsr

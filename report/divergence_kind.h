// SPDX-License-Identifier: Apache-2.0
// Which divergences are the mount's own behaviour rather than the replay's
// error. A divergent op (its result class differs from the recorded one) is
// either the replayer's fault, to be fixed, or what the mount under test
// really answers where the recording's disk answered otherwise: such an op
// replays faithfully, and the report says so instead of blaming the replay.
// Pure: decides from the op's syscall and its recorded and replayed results;
// it must never excuse a divergence it has no rule for.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "traces/event.h"

namespace fsr {

enum class DivergenceKind : uint8_t { kReplayer, kMountBehaviour };

struct DivergenceVerdict {
  DivergenceKind kind = DivergenceKind::kReplayer;
  std::string_view why;  // for kMountBehaviour: what the mount does ("" otherwise)
};

// The verdict for one op flagged kOfDivergent (any other op: kReplayer, no why).
DivergenceVerdict classify_divergence(const OpRecord& op);

// Divergences of one result by kind; mount behaviour counted per reason.
struct DivergenceCounts {
  uint64_t replayer = 0;
  uint64_t mount = 0;
  std::map<std::string, uint64_t> mount_why;  // why -> ops
  void add(const OpRecord& op);
};

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// What a probe measures, as scripts (probe_script.h) over a fixed layout in
// its private directory P (P is one component below the probed directory):
//   P/f2, P/fix/f, P/fix/a/f, ... files at depths 2..9 (the walk cost)
//   P/fix/g<n>/   directories of n entries (readdir by entry count)
//   P/fix/map, P/fix/seq   1 MiB files (page faults, sequential reads)
//   P/stale/      files touched once, stat'ed again after each delay (how long the mount caches)
//   P/r<k>/       one round's files (depth 3, the profile's reference depth), removed after the round
// A round touches each object twice: the first touch is timed as cold when
// the round follows a cache drop (else untimed: it makes the object warm),
// the second as warm. Names never looked up before are cold in every round.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "probe/probe_script.h"

namespace fsr {

inline constexpr uint32_t kProbeRefDepth = 3;
inline constexpr uint64_t kStaleDelaysMs[] = {250, 500, 1000, 2000, 4000};

struct RoundSpec {
  uint32_t round = 0;
  bool cold = false;           // caches were dropped after round_setup
  uint32_t samples = 8;        // per case
  uint32_t large_samples = 2;  // for 1 MiB reads and writes
};

void fixture_setup(ProbeScript& s);
void round_setup(ProbeScript& s, const RoundSpec& r);
void round_measure(ProbeScript& s, const RoundSpec& r);
// Files of the round whose page cache a cold round drops (relative to P).
std::vector<std::string> round_data_files(const RoundSpec& r);
std::string round_dir(const RoundSpec& r);
void stale_setup(ProbeScript& s);  // makes and touches the stale sets
void stale_measure(ProbeScript& s, size_t delay_index);

}  // namespace fsr

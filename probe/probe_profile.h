// SPDX-License-Identifier: Apache-2.0
// From a probe's raw samples to a profile: one case per (kind, temperature,
// parameter), the mount's metadata cache lifetime read off the stale cases,
// and a line for every case that could not be measured on this mount.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "probe/probe_script.h"
#include "traces/profile.h"

namespace fsr {

struct ProbeSamples {
  std::map<std::tuple<ProbeKind, Temp, uint64_t>, std::vector<uint64_t>> by_case;
  struct Failure {
    uint64_t count = 0;
    int64_t last_error = 0;
  };
  std::map<ProbeKind, Failure> failures;  // timed ops whose result was not the one measured

  void add(ProbeKind k, Temp t, uint64_t param, uint64_t ns) { by_case[{k, t, param}].push_back(ns); }
  void fail(ProbeKind k, int64_t ret) {
    Failure& f = failures[k];
    ++f.count;
    f.last_error = ret;
  }
};

// How long the mount keeps a looked-up file's metadata: the delay between
// the last stale delay whose stat was still as fast as a warm one and the
// first that was as slow as a cold one (kNoExpiry: none was). Uses the
// profile's kStat cases (warm and cold at the reference depth, stale).
uint64_t estimate_cache_lifetime(const Profile& p, uint32_t ref_depth);

// Fills p.cases (from `s`, which it empties), p.cache_lifetime_ns and notes.
// Without cold measurements a finite lifetime lends the first expired stale
// case to the cold stat (noted).
void finish_profile(ProbeSamples& s, uint32_t ref_depth, Profile& p);

}  // namespace fsr

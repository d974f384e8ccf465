// SPDX-License-Identifier: Apache-2.0
// `fsreplay advise TRACE --profile FAST --profile SLOW [--profile ...]` as a
// library: where a recorded workload's directories should live. FAST is the
// mount directories can move to (the Linux disk); every further profile is a
// configuration of the mount where the tree lives (9p, virtiofs, ...). Per
// configuration: the directories at depth 1-3 under the recorded root that
// carry at least 1% of the predicted slowdown (SLOW against FAST, summed op
// latency per directory as report attributes it) are the candidates; the
// placements of up to N of them on FAST are predicted (predict's placement
// columns: each op priced by the mount its path lands on) -- every
// combination when they are few, greedily one move at a time beyond -- and
// ranked by predicted wall. --keep DIR=PROFILE pins a directory: on FAST, it
// is part of every placement; on any other profile, it and what nests with
// it never move. Bad input is normal: an unreadable profile, a --keep on no
// profile or that leaves nothing to move are one line each in `problems`.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "replayer/plan/placement.h"
#include "predict/predict_stream.h"
#include "report/render.h"
#include "base/status.h"

namespace fsr {

struct AdviseOptions {
  std::vector<std::string> profiles;  // FAST first, then the tree's mount configurations
  std::vector<PlaceRule> keep;        // DIR=PROFILE
  unsigned max_moves = 3;
  double min_share = 0.01;                           // of the slowdown, for a candidate
  size_t max_candidates = 12;                        // the largest, beyond: left out (said)
  size_t exact_limit = 64;                           // placements evaluated at once; more: a beam search
  size_t rows = 10;                                  // ranked placements shown per configuration
  StreamOptions stream;                              // window, seed, cold caches
  std::function<void(const std::string&)> progress;  // one line per pass ("" : none)
};

struct Candidate {
  std::string dir;       // beneath the recorded root
  int64_t added_ns = 0;  // summed op latency SLOW less FAST, ops beneath it
  double share = 0;      // of every directory's added time
};

struct Realisation {
  std::string how;      // "bind mount", "symlink", "git --separate-git-dir", "CARGO_TARGET_DIR", ...
  std::string command;  // the line to run or put in a file
};

struct PlacedRow {
  std::vector<std::string> moves;  // the directories on FAST (kept ones included)
  uint64_t wall_ns = 0;
  int64_t saving_ns = 0;             // against all on SLOW
  double saving = 0;                 // saving_ns / all-on-SLOW wall
  double recovered = 0;              // saving_ns / (all on SLOW - all on FAST)
  std::vector<Realisation> realise;  // per move, the ways to make it
  std::string verify;                // the split replay that checks it
};

struct ConfigAdvice {
  std::string name, file;  // the tree's mount configuration (profile)
  uint64_t all_slow_ns = 0, all_fast_ns = 0;
  std::vector<Candidate> candidates;
  bool exact = true;  // every combination of up to max_moves candidates evaluated (else a beam search)
  size_t evaluated = 0;
  std::vector<PlacedRow> ranked;  // best first
};

struct Advice {
  std::string trace, root;
  std::string fast_name, fast_file;
  uint64_t events = 0;
  unsigned max_moves = 0;
  std::vector<std::string> keep;  // "DIR=PROFILE" as honoured
  std::vector<ConfigAdvice> configs;
  std::string verdict;                // which configuration and placement wins
  std::vector<std::string> problems;  // bad input, one line each
  std::vector<std::string> notes;     // what predict assumed (once per line)
};

// Fails only when nothing can be advised (no trace, fewer than two readable profiles).
Result<Advice> run_advise(const std::string& trace, const AdviseOptions& opt);

// The ways to place `dir` (beneath `root`) in $FAST, a directory on the
// fast mount: most specific first, then a bind mount and a symlink.
std::vector<Realisation> realisations(const std::string& dir, const std::string& root);

// text, json ("fsreplay.advise/1", advise/advise.schema.json), markdown or html.
Result<std::string> render_advice(const Advice& a, OutputFormat format);

}  // namespace fsr

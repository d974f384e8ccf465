// SPDX-License-Identifier: Apache-2.0
// A placement of the recorded tree across mounts: directories beneath the
// recorded root (SUBDIR, relative to it) each sent to another mount, named
// by a profile (predict, advise) or a directory (replay's --place, to come),
// the rest staying where the target is. Both predict and the replayer read
// it; it is purely lexical and never touches the file system. A path lands
// on the rule whose SUBDIR is the path itself or one of its ancestors (the
// directory itself is on the placed mount, as a bind mount puts its root
// there); rules never nest (check_rules refuses overlaps), so at most one
// matches. SUBDIR "." names the rest.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace fsr {

struct PlaceRule {
  std::string subdir;  // beneath the recorded root, normalised: "clone/.git"; "." = the rest
  std::string where;   // a profile (file or name) or, for replay, a directory
  bool operator==(const PlaceRule&) const = default;
};

struct Placement {
  std::vector<PlaceRule> rules;  // no "." among them: see rest
  std::string rest;              // where the rest lands ("": the caller's default)

  // Index of the rule whose subdir holds `rel` (a path beneath the recorded
  // root, normalised, "" = the root), or -1: the rest.
  int match(std::string_view rel) const;
  // "clone/.git=fast, rest=slow"
  std::string describe() const;
};

// "SUBDIR=WHERE": SUBDIR relative to the recorded root (an absolute one, or
// one with "..", is refused), normalised ("./a//b/" -> "a/b", "" or "." ->
// "."). One line naming the argument on error.
Result<PlaceRule> parse_place(std::string_view arg);

// The rules into a placement, in order; a rule that repeats or nests in an
// earlier one (an overlap: a path would land on two mounts) is left out with
// one line each in `problems`. "." sets the rest (the last one given wins).
Placement make_placement(const std::vector<PlaceRule>& rules, std::vector<std::string>& problems);

// True when `rel` is `dir` or lies beneath it (both normalised, "" or "." = the root).
bool rel_within(std::string_view rel, std::string_view dir);

}  // namespace fsr

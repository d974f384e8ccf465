// SPDX-License-Identifier: Apache-2.0
// predict's validated error: how far its wall time has landed from the truth
// on mounts where both were measured (predict/validation.tsv, made by the
// benches and compiled in). A column's line names the rows of its profile's
// name, or else of its mount's file-system type, or says none exist: the
// prediction's draws give the profile's sampling noise, this its model error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace fsr {

struct ValidationRow {
  std::string profile;   // the profile's name ("wsl2-9p")
  std::string fs_type;   // the probed mount's type ("9p", "fuse.sshfs")
  std::string workload;  // "git-clone"
  std::string truth;     // "replay" or "untraced"
  double truth_s = 0, predicted_s = 0, error_pct = 0;
  std::string date;    // "2026-12-01"
  std::string source;  // the result file or document the row is copied from
};

struct ValidatedError {
  std::string basis;                // "profile wsl2-9p", "file-system type 9p", "" when no row matches
  std::vector<ValidationRow> rows;  // the rows the figures summarise
  double min_pct = 0, median_pct = 0, max_pct = 0;
  std::string first_date, last_date;
};

// Parses the table; fails naming the line that is malformed, or whose
// error_pct disagrees with its own truth and prediction by more than their
// printed digits allow.
Result<std::vector<ValidationRow>> parse_validation_table(std::string_view tsv);
// The table compiled into this binary (empty if it failed to parse, which a
// test rules out).
const std::vector<ValidationRow>& validation_table();
ValidatedError validated_error(const std::vector<ValidationRow>& table, std::string_view profile_name,
                               std::string_view fs_type);
// "-8.4%..-1.0% (median -2.8%) over 3 workloads against replays on profile
// wsl2-9p, 2026-12-01 (predict/validation.tsv)", or what is missing.
std::string validated_error_line(const ValidatedError& v);

}  // namespace fsr

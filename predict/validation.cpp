// SPDX-License-Identifier: Apache-2.0
#include "predict/validation.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "report/run_spread.h"

namespace fsr {

extern const char* const kValidationTsv;  // validation_data.cpp, generated from predict/validation.tsv

namespace {

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> f;
  size_t at = 0;
  for (size_t tab; (tab = line.find('\t', at)) != std::string_view::npos; at = tab + 1)
    f.push_back(line.substr(at, tab - at));
  f.push_back(line.substr(at));
  return f;
}

// Half a unit of the last digit written ("0.312" -> 0.0005): how far the
// printed figure can lie from the one the bench computed its error from.
double half_unit(std::string_view s) {
  const size_t dot = s.find('.');
  const size_t decimals = dot == std::string_view::npos ? 0 : s.size() - dot - 1;
  return 0.5 * std::pow(10.0, -static_cast<double>(decimals));
}

bool to_double(std::string_view s, double& out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && std::isfinite(out);
}

}  // namespace

Result<std::vector<ValidationRow>> parse_validation_table(std::string_view tsv) {
  std::vector<ValidationRow> rows;
  size_t line_no = 0;
  while (!tsv.empty()) {
    const size_t nl = tsv.find('\n');
    std::string_view line = tsv.substr(0, nl);
    tsv = nl == std::string_view::npos ? std::string_view() : tsv.substr(nl + 1);
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    const auto f = split_tabs(line);
    ValidationRow r;
    if (f.size() != 9 || !to_double(f[4], r.truth_s) || !to_double(f[5], r.predicted_s) ||
        !to_double(f[6], r.error_pct) || r.truth_s <= 0 || (f[3] != "replay" && f[3] != "untraced"))
      return Status::error(
          fmt::format("validation table line {}: want 9 tab-separated fields (profile, fs_type, "
                      "workload, replay|untraced, truth s, predicted s, error %, date, source)",
                      line_no));
    // The bench computed its error from unrounded times: allow the rounding
    // of both printed times, and of the printed error itself.
    const double computed = 100.0 * (r.predicted_s / r.truth_s - 1.0);
    const double slack = 100.0 * (r.predicted_s + half_unit(f[5])) / std::max(r.truth_s - half_unit(f[4]), 1e-9) -
                         100.0 * (r.predicted_s - half_unit(f[5])) / (r.truth_s + half_unit(f[4]));
    if (std::fabs(computed - r.error_pct) > slack / 2 + half_unit(f[6]))
      return Status::error(fmt::format("validation table line {}: error {:+.1f}% but {} s against {} s is {:+.1f}%",
                                       line_no, r.error_pct, r.predicted_s, r.truth_s, computed));
    r.profile = f[0];
    r.fs_type = f[1];
    r.workload = f[2];
    r.truth = f[3];
    r.date = f[7];
    r.source = f[8];
    rows.push_back(std::move(r));
  }
  return rows;
}

const std::vector<ValidationRow>& validation_table() {
  static const std::vector<ValidationRow> table = [] {
    auto r = parse_validation_table(kValidationTsv);
    return r.is_ok() ? std::move(*r) : std::vector<ValidationRow>{};
  }();
  return table;
}

ValidatedError validated_error(const std::vector<ValidationRow>& table, std::string_view profile_name,
                               std::string_view fs_type) {
  ValidatedError v;
  auto pick = [&](auto&& match, std::string basis) {
    for (const ValidationRow& r : table)
      if (match(r)) v.rows.push_back(r);
    if (!v.rows.empty()) v.basis = std::move(basis);
  };
  if (!profile_name.empty())
    pick([&](const ValidationRow& r) { return r.profile == profile_name; }, fmt::format("profile {}", profile_name));
  if (v.rows.empty() && !fs_type.empty())
    pick([&](const ValidationRow& r) { return r.fs_type == fs_type; }, fmt::format("file-system type {}", fs_type));
  if (v.rows.empty()) return v;
  std::vector<double> e;
  for (const ValidationRow& r : v.rows) e.push_back(r.error_pct);
  const auto [emin, emax] = std::minmax_element(e.begin(), e.end());
  v.min_pct = *emin;
  v.max_pct = *emax;
  v.median_pct = median_of(std::move(e));
  auto [lo, hi] = std::minmax_element(v.rows.begin(), v.rows.end(),
                                      [](const ValidationRow& a, const ValidationRow& b) { return a.date < b.date; });
  v.first_date = lo->date;
  v.last_date = hi->date;
  return v;
}

std::string validated_error_line(const ValidatedError& v) {
  if (v.rows.empty())
    return "none on record for this profile or its file-system type: the model's error here is unmeasured "
           "(predict/validation.tsv)";
  const bool replays =
      std::all_of(v.rows.begin(), v.rows.end(), [](const ValidationRow& r) { return r.truth == "replay"; });
  const bool untraced =
      std::all_of(v.rows.begin(), v.rows.end(), [](const ValidationRow& r) { return r.truth == "untraced"; });
  const char* against = replays ? "replays" : untraced ? "untraced runs" : "replays and untraced runs";
  const std::string dates = v.first_date == v.last_date ? v.first_date : v.first_date + ".." + v.last_date;
  if (v.rows.size() == 1)
    return fmt::format("{:+.1f}% on 1 workload ({}) against {} on {}, {} (predict/validation.tsv)", v.median_pct,
                       v.rows[0].workload, against, v.basis, dates);
  return fmt::format(
      "{:+.1f}%..{:+.1f}% (median {:+.1f}%) over {} workloads against {} on {}, {} "
      "(predict/validation.tsv)",
      v.min_pct, v.max_pct, v.median_pct, v.rows.size(), against, v.basis, dates);
}

}  // namespace fsr

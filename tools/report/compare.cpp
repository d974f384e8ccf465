#include "tools/report/compare.h"

namespace fsr {

Comparison compare_summaries(const std::vector<const ResultSummary*>& results) {
  Comparison cmp;
  for (const ResultSummary* rs : results) {
    CompareColumn col;
    col.stats = rs->stats;
    col.run = run_info(*rs);
    col.path = rs->path;
    col.dep_wait = rs->dep_wait;
    cmp.columns.push_back(std::move(col));
  }
  for (int c = 0; c < kClassCount; ++c) {
    bool seen = false;
    for (const CompareColumn& col : cmp.columns) seen = seen || col.stats.by_class[c].count() > 0;
    if (seen) cmp.classes.push_back(static_cast<SyscallClass>(c));
  }
  return cmp;
}

Comparison build_comparison(const std::vector<const ResultSet*>& results, const StatsOptions& opt) {
  std::vector<ResultSummary> sums;
  sums.reserve(results.size());
  for (const ResultSet* rs : results) sums.push_back(summarize(*rs, opt));
  std::vector<const ResultSummary*> ptrs;
  for (const ResultSummary& s : sums) ptrs.push_back(&s);
  return compare_summaries(ptrs);
}

}  // namespace fsr

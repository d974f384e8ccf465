#include "tools/report/compare.h"

namespace fsr {

Comparison build_comparison(const std::vector<const ResultSet*>& results, const StatsOptions& opt) {
  Comparison cmp;
  for (const ResultSet* rs : results) {
    CompareColumn col;
    col.stats = compute_stats(*rs, opt);
    col.run = run_info(*rs, col.stats);
    col.path = critical_path(rs->ops, rs->wall_ns());
    col.dep_wait = dep_wait_summary(*rs);
    cmp.columns.push_back(std::move(col));
  }
  for (int c = 0; c < kClassCount; ++c) {
    bool seen = false;
    for (const CompareColumn& col : cmp.columns) seen = seen || col.stats.by_class[c].count() > 0;
    if (seen) cmp.classes.push_back(static_cast<SyscallClass>(c));
  }
  return cmp;
}

}  // namespace fsr

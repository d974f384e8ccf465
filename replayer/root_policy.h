// Where a replay may write: the target and a scratch directory, refused when
// they are '/', a home directory, overlapping each other, or holding the trace
// or the result file; a scratch directory made here is removed on every path.
#pragma once

#include <string>

#include "traces/status.h"

namespace fsr {

struct ReplayOptions;

std::string real(const std::string& p);  // realpath, empty when it fails

struct Roots {
  std::string target, scratch;
  bool scratch_is_ours = false;
  int fd[2] = {-1, -1};
  ~Roots();
};

Status open_roots(const std::string& trace, const ReplayOptions& o, Roots& r);
void remove_scratch(Roots& r);

}  // namespace fsr

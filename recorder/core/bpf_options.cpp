// SPDX-License-Identifier: Apache-2.0
#include "recorder/core/bpf_options.h"

#include <cstdlib>

#include "recorder/core/program_plan.h"

namespace fsr {

Result<BpfOptions> bpf_options_from_env(BpfOptions base) {
  if (std::getenv("FSREPLAY_BPF_DEBUG")) base.libbpf_log = true;
  if (const char* w = std::getenv("FSREPLAY_RECORD_WITHOUT")) {
    FSR_ASSIGN_OR_RETURN(const auto set, parse_feature_list(w));
    base.without.insert(set.begin(), set.end());
  }
  return base;
}

}  // namespace fsr

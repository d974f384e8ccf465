#include "recorder/bpf_options.h"

#include <cstdlib>

#include "recorder/program_plan.h"

namespace fsr {

Result<BpfOptions> bpf_options_from_env(BpfOptions base) {
  if (std::getenv("FSREPLAY_BPF_DEBUG")) base.libbpf_log = true;
  if (const char* w = std::getenv("FSREPLAY_RECORD_WITHOUT")) {
    auto set = parse_feature_list(w);
    if (!set) return set.status();
    base.without.insert(set.value().begin(), set.value().end());
  }
  return base;
}

}  // namespace fsr

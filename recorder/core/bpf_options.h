// SPDX-License-Identifier: Apache-2.0
// The options a BpfSession loads with, and the one place the recorder's
// environment knobs are read.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "base/status.h"

namespace fsr {

// How the session loads. The library reads no environment: the caller
// fills these (bpf_options_from_env for the FSREPLAY_* knobs).
struct BpfOptions {
  uint32_t buffer_mib = 8;        // per CPU
  bool page_faults = true;        // record first faults on file mappings
  bool all_page_faults = false;   // ... also on files outside the recorded root (recorder.cpp)
  bool libbpf_log = false;        // libbpf's and the verifier's messages on stderr
  std::set<std::string> without;  // kernel features to treat as absent (program_plan.h)
};

// BpfOptions with the environment's knobs applied to `base`:
// FSREPLAY_BPF_DEBUG (any value: libbpf_log) and FSREPLAY_RECORD_WITHOUT
// (features, comma-separated, as program_plan.h names them). The one place
// they are read.
Result<BpfOptions> bpf_options_from_env(BpfOptions base = {});

}  // namespace fsr

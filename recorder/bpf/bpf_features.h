// SPDX-License-Identifier: Apache-2.0
// Probes what the running kernel gives the recorder before anything is
// loaded: privilege, kernel BTF, the BTF of each tracepoint the programs
// attach to, and the helpers and map types that an older supported kernel
// may lack (libbpf's feature probes). Never attaches anything and never
// changes the system.
#pragma once

#include <set>
#include <string>

#include "recorder/core/program_plan.h"
#include "base/status.h"

namespace fsr {

// Probes the kernel; `without` marks features as forced off (to exercise a
// fallback on a kernel that has them). Fails, saying what to do, when
// kernel BTF is missing or loading BPF programs is refused.
Result<KernelFeatures> probe_kernel(const std::set<std::string>& without);

}  // namespace fsr

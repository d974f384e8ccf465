// SPDX-License-Identifier: Apache-2.0
// What the kernel side's counters (BpfSession::counters, less the
// calibration's) put in the trace footer, and what they warn the user about.
// No I/O.
#pragma once

#include <string>
#include <vector>

#include "recorder/bpf/bpf_session.h"
#include "traces/trace_model.h"

namespace fsr {

// The footer's counts that come straight from the kernel's counters.
void copy_kernel_counts(const KernelCounters& k, TraceFooter& f);

// Each thing the kernel side counted as going wrong (program runs skipped,
// records refused, damaged lane frames, processes not followed, io_uring
// calls): a line in `warnings` and a note in `f`.
void note_kernel_problems(const KernelCounters& k, std::vector<std::string>& warnings, TraceFooter& f);

}  // namespace fsr

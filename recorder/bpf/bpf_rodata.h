// The recorder programs' rodata, filled before load: the per-syscall tables
// from fsr::syscall_table() (so no syscall number is written in the BPF
// sources), the pseudo-event classes, and the knobs the program plan chose.
// Only the skeleton's rodata is written; nothing is loaded here.
#pragma once

#include "recorder/core/program_plan.h"

struct fsr_bpf;

namespace fsr {

void fill_rodata(fsr_bpf* skel, const ProgramPlan& plan);

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// The recorder programs' rodata, filled before load: the per-syscall tables
// from fsr::syscall_table() (so no syscall number is written in the BPF
// sources), the pseudo-event classes, and the knobs the program plan chose;
// and which maps and programs the plan needs. Only the skeleton is
// configured; nothing is loaded here.
#pragma once

#include "recorder/core/program_plan.h"

struct fsr_bpf;

namespace fsr {

void fill_rodata(fsr_bpf* skel, const ProgramPlan& plan);

// The maps and programs the plan needs; the others are neither created nor
// loaded (their code is dead once the verifier knows the rodata).
void select_programs(fsr_bpf* skel, const ProgramPlan& plan);

}  // namespace fsr

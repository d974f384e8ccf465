// Number of arguments each recorded syscall takes, by name. The kernel side
// saves all six argument registers; the ones past a call's arity hold stale
// values that would cost bytes in the trace and mean nothing, so the decoder
// zeroes them. Keyed by name so that syscall numbers stay in traces/syscalls.
#pragma once

#include <cstdint>
#include <string_view>

namespace fsr {

// 6 for names it does not know (keeps everything).
uint8_t syscall_arity(std::string_view name);

}  // namespace fsr

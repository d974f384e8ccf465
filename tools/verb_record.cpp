#include "tools/cli_util_pending.h"
namespace fsr::cli {
Action add_record_verb(CLI::App& app) { return pending_verb(app, "record", "Record a workload's file-system syscalls (eBPF)"); }
}  // namespace fsr::cli

#include "tools/cli_util_pending.h"
namespace fsr::cli {
Action add_report_verb(CLI::App& app) { return pending_verb(app, "report", "Attribute a replay's time per syscall class"); }
}  // namespace fsr::cli

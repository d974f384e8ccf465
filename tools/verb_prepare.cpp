#include "tools/cli_util_pending.h"
namespace fsr::cli {
Action add_prepare_verb(CLI::App& app) { return pending_verb(app, "prepare", "Materialise a trace's initial tree on a target"); }
}  // namespace fsr::cli

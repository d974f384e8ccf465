#include "tools/cli_util_pending.h"
namespace fsr::cli {
Action add_compare_verb(CLI::App& app) { return pending_verb(app, "compare", "Compare replays across mounts"); }
}  // namespace fsr::cli

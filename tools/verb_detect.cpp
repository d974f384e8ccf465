#include "tools/cli_util_pending.h"
namespace fsr::cli {
Action add_detect_verb(CLI::App& app) { return pending_verb(app, "detect", "Classify the mount and environment of a path"); }
}  // namespace fsr::cli

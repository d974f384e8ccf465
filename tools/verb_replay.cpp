#include "tools/cli_util_pending.h"
namespace fsr::cli {
Action add_replay_verb(CLI::App& app) { return pending_verb(app, "replay", "Replay a trace on a target directory"); }
}  // namespace fsr::cli

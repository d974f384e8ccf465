// SPDX-License-Identifier: Apache-2.0
#include "cli/place_option.h"

#include <fmt/core.h>

#include "cli/cli_util.h"
#include "detect/detect.h"
#include "replayer/session/placed_dirs.h"

namespace fsr::cli {

void add_place_option(CLI::App* sub, std::vector<std::string>& place) {
  sub->add_option("--place", place,
                  "SUBDIR=OTHER (repeatable): the ops under the recorded root's SUBDIR go to directory OTHER on "
                  "another mount, bind-mounted over TARGET/SUBDIR in a private mount namespace (as a bind mount of "
                  "OTHER on TARGET/SUBDIR would place them; needs CAP_SYS_ADMIN). OTHER must exist and be empty or "
                  "prepared by fsreplay (marked by .fsreplay-target), as the target; give the same placement to "
                  "prepare and to the replay of the prepared tree");
}

int setup_placement(const char* verb, const std::vector<std::string>& place, ReplayOptions& o) {
  if (place.empty()) return kExitOk;
  std::vector<std::string> warnings;
  auto dirs = check_placement(place, o.target, warnings);
  if (!dirs) return fail(verb, dirs.message(), kExitUsage);
  for (const std::string& w : warnings) fmt::print(stderr, "fsreplay {}: warning: {}\n", verb, w);
  for (PlacedDir& d : dirs.value()) {
    auto env = detect_environment(d.other);
    d.fs_type = env ? env->mount.fs_type : std::string();
  }
  o.place = std::move(dirs).value();
  if (Status st = enter_private_mounts(); !st)
    return fail(verb, st.message(), st.code() == StatusCode::kNoPrivilege ? kExitNoPrivilege : kExitError);
  return kExitOk;
}

std::string placement_text(const std::vector<PlacedDir>& place) {
  std::string s;
  for (const PlacedDir& d : place)
    s += fmt::format("{}{} -> {} ({}{})", s.empty() ? "" : ", ", d.subdir, d.other, d.fs_type.empty() ? "?" : d.fs_type,
                     d.same_mount ? ", same file system as the target" : "");
  return s;
}

}  // namespace fsr::cli

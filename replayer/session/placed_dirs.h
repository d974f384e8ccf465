// SPDX-License-Identifier: Apache-2.0
// A replay's split placement (replay and prepare --place SUBDIR=OTHER): the
// process enters a private mount namespace (nothing it mounts propagates to
// the host, nothing outlives it, a crash included), and each OTHER is
// bind-mounted over TARGET/SUBDIR before the tree is prepared. The ops under
// SUBDIR then reach OTHER's mount exactly as a user's bind mount would
// deliver them: walks cross it (the resolver never asks RESOLVE_NO_XDEV),
// rename and link across it fail with EXDEV, and the sandbox (walks beneath
// the target) covers it with no code of its own. OTHER is claimed as the
// target is (target_guard.h): empty, or marked by fsreplay, or --force (then
// only the trace's paths in it are touched). Never mounts outside that
// namespace.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "replayer/plan/tree_spec.h"
#include "replayer/session/replay_types.h"
#include "replayer/session/target_guard.h"
#include "base/status.h"

namespace fsr {

// The --place arguments checked before anything starts: each parsed
// (placement.h), an overlap refused, each OTHER an existing directory
// (real path) that is not a system or home directory and does not overlap
// the target; an OTHER on the target's own file system is said in
// `warnings` (the placement changes nothing of the mount the ops meet).
// One line naming the argument on error.
Result<std::vector<PlacedDir>> check_placement(const std::vector<std::string>& args, const std::string& target,
                                               std::vector<std::string>& warnings);

// unshare(CLONE_NEWNS), then every mount made private (MS_REC | MS_PRIVATE
// on "/"). Once per process; only while it has one thread (unshare refuses
// a shared fs_struct). One line saying what to do without CAP_SYS_ADMIN.
Status enter_private_mounts();

// One OTHER in use: open, claimed, and once mounted, the mount point.
struct PlacedRoot {
  PlacedDir dir;
  int fd = -1;
  RootClaim claim;
  std::string mount_point;  // TARGET/SUBDIR while OTHER is mounted there
  PlacedRoot() = default;
  PlacedRoot(const PlacedRoot&) = delete;
  PlacedRoot& operator=(const PlacedRoot&) = delete;
  ~PlacedRoot();  // unmounts, closes (the marker's lock goes with the claim)
  void unmount();
};
using PlacedRoots = std::vector<std::unique_ptr<PlacedRoot>>;

// What mount_placed needs to know of the session.
struct PlaceContext {
  int target_fd = -1;
  std::string target;
  ClaimRequest claim;   // trace_path, recording, force; what and dir are set per OTHER
  bool prepare = true;  // false (--no-prepare): an OTHER prepared for another trace is refused
  std::function<void(const std::string&)> warn;
};

// Claims each OTHER, makes TARGET/SUBDIR (never through a symlink) and
// mounts OTHER there. A SUBDIR the trace never touched is warned about;
// paths the trace creates at SUBDIR or above it are taken out of
// spec.created (a mount point cannot be removed; with OTHER mounted there
// before the workload, the trace's own mkdir fails EEXIST as the user's
// would: warned). `wrote` is set when something was cleared.
Status mount_placed(const std::vector<PlacedDir>& dirs, const PlaceContext& ctx, TreeSpec& spec, PlacedRoots& out,
                    bool& wrote);

// A stop during prepare: unmounts, and empties each OTHER that held only
// fsreplay's files (unmarking it); says what it did ("; ..." per OTHER).
std::string undo_placed(PlacedRoots& placed);

}  // namespace fsr

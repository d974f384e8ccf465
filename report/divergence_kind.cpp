// SPDX-License-Identifier: Apache-2.0
#include "report/divergence_kind.h"

#include <cerrno>

#include "traces/syscalls.h"

namespace fsr {
namespace {

bool is_xattr_call(uint16_t nr) {
  const std::string name = syscall_name(nr);
  return name.find("xattr") != std::string::npos;  // get/set/list/remove, l- and f- forms
}

}  // namespace

DivergenceVerdict classify_divergence(const OpRecord& op) {
  if (!(op.flags & kOfDivergent)) return {};
  // A mount that serves no extended attributes answers EOPNOTSUPP to every
  // xattr call (virtiofsd without -o xattr; drvfs for most names), where the
  // recording's ext4 answered ENODATA (no such attribute) or succeeded.
  // `ls -l` asks for security.selinux and system.posix_acl_access on every
  // file. The replay issued the same call on the same path: only the mount differs.
  if (op.ret == -EOPNOTSUPP && is_xattr_call(op.nr) && (op.recorded_ret >= 0 || op.recorded_ret == -ENODATA))
    return {DivergenceKind::kMountBehaviour, "xattr calls answer EOPNOTSUPP: the mount serves no extended attributes"};
  return {};
}

void DivergenceCounts::add(const OpRecord& op) {
  if (!(op.flags & kOfDivergent)) return;
  const DivergenceVerdict v = classify_divergence(op);
  if (v.kind == DivergenceKind::kMountBehaviour) {
    ++mount;
    ++mount_why[std::string(v.why)];
  } else {
    ++replayer;
  }
}

}  // namespace fsr

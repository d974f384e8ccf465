// SPDX-License-Identifier: Apache-2.0
#include "emulators/wsl1/wsl1_filter.h"

#include <seccomp.h>
#include <string.h>

#include <fmt/core.h>

#include <memory>

#include "emulators/wsl1/wsl1_gaps.h"

namespace fsr {
namespace {

struct CtxDeleter {
  void operator()(scmp_filter_ctx ctx) const { seccomp_release(ctx); }
};
using Ctx = std::unique_ptr<void, CtxDeleter>;

std::string errno_name(int e) {
  const char* n = strerrorname_np(e);
  return n ? n : std::to_string(e);
}

}  // namespace

Status install_wsl1_filter() {
  Ctx ctx(seccomp_init(SCMP_ACT_ALLOW));
  if (!ctx) return Status::error("seccomp_init failed; is libseccomp usable on this kernel?");
  // Calls from another ABI (i386, x32) pass instead of killing the process.
  if (int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW); rc < 0)
    return Status::error(fmt::format("seccomp_attr_set(BADARCH): {}; update libseccomp", strerror(-rc)));
  for (const Wsl1Gap& g : kWsl1Gaps) {
    std::string name(g.syscall);
    int nr = seccomp_syscall_resolve_name(name.c_str());
    if (nr == __NR_SCMP_ERROR) continue;  // not a syscall on this architecture
    int rc = 0;
    uint32_t action = SCMP_ACT_ERRNO(static_cast<uint16_t>(g.err));
    switch (g.cond) {
      case GapArg::kAlways:
        rc = seccomp_rule_add(ctx.get(), action, nr, 0);
        break;
      case GapArg::kNonZero:
        rc = seccomp_rule_add(ctx.get(), action, nr, 1, SCMP_CMP(g.arg, SCMP_CMP_NE, 0));
        break;
      case GapArg::kEquals:
        rc = seccomp_rule_add(ctx.get(), action, nr, 1, SCMP_CMP(g.arg, SCMP_CMP_EQ, g.value));
        break;
      case GapArg::kMaskedAny:
        rc = seccomp_rule_add(ctx.get(), action, nr, 1, SCMP_CMP(g.arg, SCMP_CMP_MASKED_EQ, g.value, g.value));
        break;
    }
    if (rc < 0)
      return Status::error(
          fmt::format("seccomp rule for {} ({}): {}; update libseccomp or drop the row from wsl1_gaps.h", g.syscall,
                      g.condition, strerror(-rc)));
  }
  int rc = seccomp_load(ctx.get());
  if (rc < 0)
    return Status::error(
        fmt::format("loading the WSL1 seccomp filter: {}; a filter that answers seccomp with "
                    "EINVAL (this one) may already be installed",
                    strerror(-rc)));
  return Status::ok();
}

std::string wsl1_gaps_table() {
  std::string out = fmt::format("{:<18} {:<36} {:<11} {}\n", "SYSCALL", "WHEN", "ERRNO", "SOURCE");
  for (const Wsl1Gap& g : kWsl1Gaps)
    out += fmt::format("{:<18} {:<36} {:<11} {}\n", g.syscall, g.condition, errno_name(g.err), g.source);
  return out;
}

}  // namespace fsr

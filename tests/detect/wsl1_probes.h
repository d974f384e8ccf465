// SPDX-License-Identifier: Apache-2.0
// Tiny probes for the WSL1 gap harness tests: each issues one syscall the way
// a workload would and returns 0 on success or the errno it got.
#pragma once

#include <string_view>
#include <vector>

namespace fsr::test {

struct Probe {
  std::string_view name;  // for gap probes: the syscall name in kWsl1Gaps
  int (*run)();
};

const std::vector<Probe>& gap_probes();      // calls that a WSL1 gap row must answer
const std::vector<Probe>& control_probes();  // nearby calls the filter must let through
const Probe* find_probe(std::string_view name);

// Runs `fn` in a forked child, after install_wsl1_filter() when `with_filter`.
// Returns fn's result; kInstallFailed when the filter did not install,
// kChildDied when the child did not report.
inline constexpr int kInstallFailed = -2;
inline constexpr int kChildDied = -3;
int run_in_child(int (*fn)(), bool with_filter);

}  // namespace fsr::test

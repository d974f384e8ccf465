// SPDX-License-Identifier: Apache-2.0
// Golden-file comparison for report tests. FSR_UPDATE_GOLDEN=1 rewrites the
// files instead of comparing (then review the diff and commit it).
#pragma once

#include <string>

namespace fsr::testdata {

// Empty when `actual` equals golden/<name>; else a message with the first
// differing line.
std::string check_golden(const std::string& name, const std::string& actual);

}  // namespace fsr::testdata

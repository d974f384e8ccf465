// SPDX-License-Identifier: Apache-2.0
// /proc/PID/mountinfo parsing and the mount that holds a path: what the
// recorder stores in a trace's header and what environment detection
// classifies. Pure functions over text; never touches the file system.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "traces/trace_model.h"

namespace fsr {

// Every line of a mountinfo text, in order. Octal escapes (\040, \134) are
// decoded. Fails naming the line and what it expected.
Result<std::vector<MountEntry>> parse_mountinfo(std::string_view text);
std::string unescape_mountinfo(std::string_view field);  // "C:\134" -> "C:\"
// The entry whose mount point is the longest prefix of `abs_path` (last wins on ties, as the kernel stacks).
const MountEntry* mount_for_path(const std::vector<MountEntry>& mounts, std::string_view abs_path);

}  // namespace fsr

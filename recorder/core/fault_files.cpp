// SPDX-License-Identifier: Apache-2.0
#include "recorder/core/fault_files.h"

#include <algorithm>
#include <cstdio>

#include "base/paths.h"

namespace fsr {

bool FaultFiles::mapped_path(uint32_t pid, uint64_t ino, std::string& out) {
  FILE* f = fopen(("/proc/" + std::to_string(pid) + "/maps").c_str(), "re");
  if (!f) return false;
  char line[4352];
  bool found = false;
  while (!found && fgets(line, sizeof line, f)) {
    unsigned long long n = 0;
    int at = 0;
    // start-end perms offset dev inode path
    if (sscanf(line, "%*s %*s %*s %*s %llu %n", &n, &at) != 1 || n != ino || line[at] != '/') continue;
    out.assign(line + at);
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    found = !out.empty();
  }
  fclose(f);
  return found;
}

void FaultFiles::fault(uint32_t pid, uint32_t dev, uint64_t ino, uint32_t gen, std::string_view path) {
  File& ff = files_[(ino * 0x9E3779B97F4A7C15ull) ^ (uint64_t{dev} << 32) ^ gen];
  if (ff.decided) return;
  std::string mapped;
  // /proc is read once per process at most and for a few dozen at most per
  // file: the faulting process may be gone by now.
  if (path.empty() && ff.last_pid != pid && ff.tries < kMapsTries) {
    ff.last_pid = pid;
    ++ff.tries;
    if (mapped_path(pid, ino, mapped)) path = mapped;
  }
  const bool other_dev =
      path.empty() && !root_devs_.empty() && std::find(root_devs_.begin(), root_devs_.end(), dev) == root_devs_.end();
  if (other_dev || (!path.empty() && !is_beneath(path, root_))) outside_(dev, ino, gen);
  ff.decided = other_dev || !path.empty();
}

std::vector<uint64_t> root_devices(const std::vector<MountEntry>& mounts, const std::string& root) {
  std::vector<uint64_t> devs;
  const MountEntry* holder = nullptr;
  for (const MountEntry& m : mounts) {
    if (is_beneath(root, m.mount_point) && (!holder || m.mount_point.size() >= holder->mount_point.size())) holder = &m;
    if (is_beneath(m.mount_point, root) && m.mount_point != root) devs.push_back(m.dev);
  }
  if (!holder) return {};
  devs.push_back(holder->dev);
  for (const MountEntry& m : mounts)
    if ((&m == holder || is_beneath(m.mount_point, root)) && m.fs_type.find("overlay") != std::string::npos) return {};
  return devs;
}

}  // namespace fsr

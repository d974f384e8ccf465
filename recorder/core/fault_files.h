// SPDX-License-Identifier: Apache-2.0
// Which files' page faults stop being recorded (bpf/record_fault.bpf.h
// fault_skip): those outside the recorded root, known by the path of a
// recorded call, else the faulting process's /proc/PID/maps (a file the
// kernel mapped itself: an executable, its interpreter), else a device none
// of the root's mounts has. The decoder shows it every fault record that
// carries the inode's generation; it tells `outside` once per such file.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "traces/trace_model.h"

namespace fsr {

class FaultFiles {
 public:
  using OutsideFn = std::function<void(uint32_t dev, uint64_t ino, uint32_t gen)>;
  FaultFiles(std::string root, std::vector<uint64_t> root_devs, OutsideFn outside)
      : root_(std::move(root)), root_devs_(std::move(root_devs)), outside_(std::move(outside)) {}

  // A fault of process `pid` on the file (dev, ino, gen); `path` its path
  // when a recorded call named it, else empty.
  void fault(uint32_t pid, uint32_t dev, uint64_t ino, uint32_t gen, std::string_view path);

  // The path /proc/PID/maps gives a mapping of inode `ino` (false: none, or
  // the process is gone).
  static bool mapped_path(uint32_t pid, uint64_t ino, std::string& out);

 private:
  // Known to be outside the root (told) or under it, or how often /proc was
  // asked for its path, last for which process.
  struct File {
    bool decided = false;
    uint8_t tries = 0;
    uint32_t last_pid = 0;
  };
  static constexpr uint8_t kMapsTries = 32;
  std::string root_;
  std::vector<uint64_t> root_devs_;  // empty: not known (an overlay under the root)
  OutsideFn outside_;
  std::unordered_map<uint64_t, File> files_;  // by a hash of device, inode, generation
};

// The devices of the mount holding `root` and of every mount below it
// (mountinfo's, the super blocks' own numbers: what fault records carry);
// none when one is an overlay, whose files are on other devices.
std::vector<uint64_t> root_devices(const std::vector<MountEntry>& mounts, const std::string& root);

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// Test helpers: fixture files, temporary directories and real mounts that
// clean up after themselves (unmount, losetup -d, rmdir).
#pragma once

#include <string>
#include <vector>

namespace fsr::test {

std::string read_fixture(const std::string& name);                   // from FSR_ENV_FIXTURES; aborts the test on error
std::string make_temp_dir(const std::string& tag);                   // under /tmp; caller removes
int run(const std::string& shell_cmd);                               // exit status of `sh -c`, output discarded
std::string run_capture(const std::string& shell_cmd, int* status);  // stdout of `sh -c`
bool have_program(const std::string& name);
bool is_root();

// A mount made by the test: unmounted (lazily if busy) and its directory
// removed on destruction; a loop device, when set, is detached.
class ScopedMount {
 public:
  ScopedMount() = default;
  ScopedMount(const ScopedMount&) = delete;
  ScopedMount& operator=(const ScopedMount&) = delete;
  ~ScopedMount();
  std::string dir;       // mount point (created by the test)
  std::string loop_dev;  // /dev/loopN when a loop device backs it
  std::string image;     // backing file to delete
  bool mounted = false;
  bool owns_dir = true;  // remove `dir` after unmounting
  void release();
};

}  // namespace fsr::test

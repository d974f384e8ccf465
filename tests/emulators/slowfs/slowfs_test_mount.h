// SPDX-License-Identifier: Apache-2.0
// slowfs_test_mount: test helper that mounts slowfs (the built binary) on a
// fresh temporary directory and always unmounts it again.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace fsr::testing {

// Creates a fresh directory under $TMPDIR (or /tmp); "" on failure.
std::string make_temp_dir(const std::string& prefix);
// rm -rf without following symlinks; best effort.
void remove_tree(const std::string& path);
// True if `path` is a mount point in /proc/self/mountinfo.
bool is_mounted(const std::string& path);

class SlowfsMount {
 public:
  SlowfsMount() = default;
  SlowfsMount(const SlowfsMount&) = delete;
  SlowfsMount& operator=(const SlowfsMount&) = delete;
  ~SlowfsMount() { unmount(); }

  // Runs `slowfs BACKING MNT -f -o default_permissions,allow_other ARGS...`
  // in a fresh temporary directory and waits until it is mounted. Returns ""
  // or a one-line error.
  std::string mount(const std::vector<std::string>& args);
  // Unmounts, reaps the daemon (SIGKILL after 10 s) and removes the temporary
  // directory. Safe to call twice.
  void unmount();

  const std::string& mountpoint() const { return mnt_; }
  const std::string& backing() const { return backing_; }
  pid_t pid() const { return pid_; }  // the slowfs daemon (it runs with -f)

 private:
  pid_t pid_ = -1;
  std::string root_, backing_, mnt_;
};

}  // namespace fsr::testing

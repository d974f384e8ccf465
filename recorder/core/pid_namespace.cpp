// SPDX-License-Identifier: Apache-2.0
#include "recorder/core/pid_namespace.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace fsr {

Result<PidNamespace> read_pid_namespace(const std::string& proc) {
  PidNamespace ns;
  struct stat st;
  const std::string link = proc + "/self/ns/pid";
  if (stat(link.c_str(), &st) != 0)
    return Status::error(fmt::format("{}: {} (the recorder needs /proc mounted)", link, strerror(errno)));
  ns.inum = st.st_ino;
  // /proc/self names us as the /proc mount's namespace numbers us.
  char buf[64];
  const ssize_t n = readlink((proc + "/self").c_str(), buf, sizeof(buf) - 1);
  if (n <= 0)
    return Status::error(fmt::format("{}/self: {} (the recorder needs /proc mounted)", proc, strerror(errno)));
  buf[n] = '\0';
  if (std::to_string(getpid()) != buf)
    return Status::error(fmt::format(
        "{} belongs to another PID namespace than the recorder's (it calls pid {} what this namespace calls {}): "
        "mount this namespace's /proc (unshare --pid --fork --mount-proc, or mount -t proc proc /proc)",
        proc, buf, getpid()));
  return ns;
}

}  // namespace fsr

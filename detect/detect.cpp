// SPDX-License-Identifier: Apache-2.0
// detect_environment: the only part of fsreplay_detect that reads the system
// (/proc, statfs, env, /etc/wsl.conf, /run/wsl/virtiofs). Never writes.
#include <limits.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "detect/detect.h"

namespace fsr {
namespace {

bool read_text(const std::string& file, std::string& out) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return !in.bad();
}

std::string trim_newline(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

bool exists(const char* p) { return access(p, F_OK) == 0; }

}  // namespace

std::string virtiofs_windows_path(std::string_view tag, const std::string& dir) {
  if (tag.empty() || tag.find('/') != std::string_view::npos || tag == "." || tag == "..") return "";
  std::string link = dir + "/" + std::string(tag);
  char buf[PATH_MAX];
  ssize_t n = readlink(link.c_str(), buf, sizeof(buf) - 1);
  if (n <= 0) return "";
  return std::string(buf, static_cast<size_t>(n));
}

Result<Environment> detect_environment(const std::string& path) {
  if (path.empty()) return Status::error("empty path; give the file or directory to classify");
  std::unique_ptr<char, decltype(&free)> real(realpath(path.c_str(), nullptr), &free);
  if (!real) return Status::error(path + ": " + std::strerror(errno) + "; give an existing file or directory");

  Environment env;
  env.path = real.get();

  std::string text;
  if (!read_text("/proc/self/mountinfo", text))
    return Status::error("cannot read /proc/self/mountinfo: " + std::string(std::strerror(errno)) +
                         "; is /proc mounted?");
  Result<std::vector<MountEntry>> mounts = parse_mountinfo(text);
  if (!mounts) return Status::error("/proc/self/mountinfo: " + mounts.message());

  std::string osrelease;
  if (read_text("/proc/sys/kernel/osrelease", osrelease)) env.kernel_release = trim_newline(osrelease);
  const char* interop_env = std::getenv("WSL_INTEROP");
  bool interop = exists("/proc/sys/fs/binfmt_misc/WSLInterop") || exists("/proc/sys/fs/binfmt_misc/WSLInterop-late") ||
                 (interop_env && *interop_env);
  env.platform = classify_platform(env.kernel_release, interop);

  struct statfs sfs {};
  if (statfs(env.path.c_str(), &sfs) != 0)
    return Status::error("statfs " + env.path + ": " + std::strerror(errno) + "; is the mount still answering?");
  env.statfs_type = static_cast<uint64_t>(static_cast<unsigned long>(sfs.f_type)) & 0xffffffffu;

  const MountEntry* m = mount_for_path(mounts.value(), env.path);
  if (m == nullptr)
    return Status::error("no entry of /proc/self/mountinfo holds " + env.path +
                         "; run outside a chroot or give a path under a mount point");
  env.mount = *m;
  env.mount_class = classify_mount(*m, env.statfs_type, env.platform);
  if (env.mount_class.kind == "virtiofs" && env.mount_class.windows_path.empty())
    env.mount_class.windows_path = virtiofs_windows_path(m->source);

  if (const char* d = std::getenv("WSL_DISTRO_NAME")) env.wsl_distro = d;
  if (env.platform != Platform::kLinux) {
    std::string conf;
    if (read_text("/etc/wsl.conf", conf)) env.wsl_automount_options = wsl_conf_automount_options(conf);
  }
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof(host) - 1) == 0) env.hostname = host;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  env.cpu_count = n > 0 ? static_cast<uint32_t>(n) : std::thread::hardware_concurrency();
  return env;
}

}  // namespace fsr

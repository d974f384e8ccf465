// SPDX-License-Identifier: Apache-2.0
#include "recorder/core/initial_state.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "traces/mountinfo.h"
#include "base/paths.h"
#include "base/unique_fd.h"

namespace fsr {
namespace {

PrestateEntry entry_from_stat(const std::string& path, const struct stat& st) {
  PrestateEntry e;
  e.path = path;
  e.mode = st.st_mode;
  e.size = static_cast<uint64_t>(st.st_size);
  e.ino = st.st_ino;
  e.dev = st.st_dev;
  e.nlink = static_cast<uint32_t>(st.st_nlink);
  if (S_ISDIR(st.st_mode)) {
    e.kind = PrestateKind::kDir;
    e.size = 0;
  } else if (S_ISREG(st.st_mode)) {
    e.kind = PrestateKind::kFile;
  } else if (S_ISLNK(st.st_mode)) {
    e.kind = PrestateKind::kSymlink;
  } else {
    e.kind = PrestateKind::kOther;
  }
  return e;
}

Status walk_dir(int dirfd, std::string& path, const std::function<Status(const PrestateEntry&)>& fn,
                uint64_t* unreadable) {
  UniqueFd own(dup(dirfd));
  DIR* d = own.valid() ? fdopendir(own.get()) : nullptr;
  if (!d) {
    if (unreadable) ++*unreadable;
    return Status::ok();
  }
  own.release();  // owned by d now
  std::unique_ptr<DIR, int (*)(DIR*)> dir(d, closedir);
  std::vector<std::string> names;
  while (struct dirent* de = readdir(d)) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
    names.emplace_back(de->d_name);
  }
  std::sort(names.begin(), names.end());  // deterministic order
  const size_t base_len = path.size();
  for (const std::string& name : names) {
    struct stat st;
    if (fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // vanished
    if (path.size() > 1) path.push_back('/');
    path.append(name);
    PrestateEntry e = entry_from_stat(path, st);
    if (e.kind == PrestateKind::kSymlink) {
      char buf[PATH_MAX];
      ssize_t n = readlinkat(dirfd, name.c_str(), buf, sizeof(buf));
      if (n > 0) e.target.assign(buf, static_cast<size_t>(n));
    }
    FSR_RETURN_IF_ERROR(fn(e));
    if (e.kind == PrestateKind::kDir) {
      UniqueFd sub(openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (sub.valid()) {
        FSR_RETURN_IF_ERROR(walk_dir(sub.get(), path, fn, unreadable));
      } else if (unreadable) {
        ++*unreadable;
      }
    }
    path.resize(base_len);
  }
  return Status::ok();
}

}  // namespace

Status walk_prestate(const std::string& root, const std::function<Status(const PrestateEntry&)>& fn,
                     uint64_t* unreadable_dirs) {
  struct stat st;
  if (lstat(root.c_str(), &st) != 0)
    return Status::error(fmt::format("--root {}: {} (give an existing directory)", root, strerror(errno)));
  if (!S_ISDIR(st.st_mode)) return Status::error(fmt::format("--root {}: not a directory", root));
  FSR_RETURN_IF_ERROR(fn(entry_from_stat(root, st)));
  UniqueFd fd(open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return Status::error(fmt::format("--root {}: cannot open: {}", root, strerror(errno)));
  std::string path = root;
  return walk_dir(fd.get(), path, fn, unreadable_dirs);
}

Result<std::vector<MountEntry>> read_mountinfo(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::error(fmt::format("{}: cannot read the mount table: {}", path, strerror(errno)));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto mounts = parse_mountinfo(text);
  if (!mounts) return Status::error(fmt::format("{}: {}", path, mounts.message()));
  return mounts;
}

std::string process_root(uint32_t pid) {
  char buf[PATH_MAX];
  const ssize_t n = readlink(fmt::format("/proc/{}/root", pid).c_str(), buf, sizeof(buf));
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("/");
}

std::string path_in_root(std::string_view path, std::string_view root) {
  if (root == "/" || !is_beneath(path, root)) return std::string(path);
  if (path.size() == root.size()) return "/";
  return std::string(path.substr(root.size()));
}

Result<ProcessState> read_process_state(uint32_t pid) {
  ProcessState st;
  st.pid = pid;
  char buf[PATH_MAX];
  std::string base = fmt::format("/proc/{}", pid);
  ssize_t n = readlink((base + "/cwd").c_str(), buf, sizeof(buf));
  if (n < 0) return Status::error(fmt::format("{}/cwd: {} (is process {} running?)", base, strerror(errno), pid));
  // /proc names paths from the recorder's root; the workload's paths start
  // at its own (a chroot, a container's pivot_root).
  const std::string root = process_root(pid);
  st.cwd = path_in_root(std::string_view(buf, static_cast<size_t>(n)), root);
  {
    std::ifstream status(base + "/status");
    std::string line;
    while (std::getline(status, line))
      if (line.rfind("Umask:", 0) == 0) st.umask = static_cast<uint32_t>(std::stoul(line.substr(6), nullptr, 8));
  }
  std::unique_ptr<DIR, int (*)(DIR*)> d(opendir((base + "/fd").c_str()), closedir);
  if (!d) return Status::error(fmt::format("{}/fd: {}", base, strerror(errno)));
  while (struct dirent* de = readdir(d.get())) {
    if (de->d_name[0] == '.') continue;
    FdEntry f;
    f.fd = atoi(de->d_name);
    n = readlink(fmt::format("{}/fd/{}", base, f.fd).c_str(), buf, sizeof(buf));
    if (n < 0) continue;
    f.path = path_in_root(std::string_view(buf, static_cast<size_t>(n)), root);
    std::ifstream info(fmt::format("{}/fdinfo/{}", base, f.fd));
    std::string key;
    while (info >> key) {
      if (key == "pos:") {
        info >> f.pos;
      } else if (key == "flags:") {
        std::string v;
        info >> v;
        f.flags = static_cast<uint32_t>(std::stoul(v, nullptr, 8));
      } else {
        std::string skip;
        std::getline(info, skip);
      }
    }
    st.fds.push_back(std::move(f));
  }
  std::sort(st.fds.begin(), st.fds.end(), [](const FdEntry& a, const FdEntry& b) { return a.fd < b.fd; });
  return st;
}

std::vector<uint32_t> descendants(uint32_t pid) {
  std::vector<std::pair<uint32_t, uint32_t>> all;  // (pid, ppid)
  std::unique_ptr<DIR, int (*)(DIR*)> d(opendir("/proc"), closedir);
  while (d) {
    struct dirent* de = readdir(d.get());
    if (!de) break;
    uint32_t p = static_cast<uint32_t>(atoi(de->d_name));
    if (p == 0) continue;
    std::ifstream st(fmt::format("/proc/{}/status", p));
    std::string line;
    while (std::getline(st, line))
      if (line.rfind("PPid:", 0) == 0) all.emplace_back(p, static_cast<uint32_t>(std::stoul(line.substr(5))));
  }
  std::set<uint32_t> in{pid};
  for (bool grew = true; grew;) {
    grew = false;
    for (auto [p, pp] : all)
      if (in.count(pp) && !in.count(p)) grew = in.insert(p).second;
  }
  in.erase(pid);
  return {in.begin(), in.end()};
}

}  // namespace fsr

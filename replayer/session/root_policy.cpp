// SPDX-License-Identifier: Apache-2.0
#include "replayer/session/root_policy.h"

#include <fcntl.h>
#include <linux/stat.h>
#include <sys/stat.h>
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "replayer/plan/path_map.h"
#include "replayer/session/prepare.h"
#include "base/paths.h"
#include "base/unique_fd.h"

namespace fsr {
std::string real_path(const std::string& p) {
  char* r = realpath(p.c_str(), nullptr);
  if (!r) return {};
  std::string s(r);
  free(r);
  return s;
}

namespace {

// The system's own directories: a replay there would overwrite what the
// system runs on. /tmp, /var/tmp and /dev/shm themselves are shared by every
// user and program; a directory beneath them is fine.
bool is_system_dir(const std::string& dir) {
  static const char* const kUnder[] = {"/etc", "/usr", "/bin", "/sbin", "/boot", "/proc", "/sys", "/dev", "/run"};
  if (is_beneath(dir, "/dev/shm") && dir != "/dev/shm") return false;  // a tmpfs every user may write, as /tmp
  for (const char* d : kUnder)
    if (is_beneath(dir, d)) return true;
  if (dir == "/tmp" || dir == "/var/tmp") return false;  // (refused below, with their own reason)
  if (is_beneath(dir, "/var")) return !is_beneath(dir, "/var/tmp");
  // /lib, /lib32, /lib64, /libx32 and the like
  const std::string top = dir.substr(0, dir.find('/', 1));
  return top.compare(0, 4, "/lib") == 0;
}

}  // namespace

Status refuse_dangerous_root(const std::string& what, const std::string& dir) {
  if (dir == "/") return Status::error(what + " is '/': choose a dedicated empty directory");
  if (dir == "/tmp" || dir == "/var/tmp" || dir == "/dev/shm")
    return Status::error(what + " " + dir +
                         " is shared by every program on the machine: make a directory "
                         "beneath it (mkdir " +
                         dir + "/fsreplay-target) and use that");
  if (is_system_dir(dir))
    return Status::error(what + " " + dir +
                         " is one of the system's own directories, which fsreplay never "
                         "writes into: choose a dedicated empty directory (e.g. under /var/tmp or your home)");
  std::vector<std::string> homes;
  if (const char* h = getenv("HOME")) homes.push_back(real_path(h));
  setpwent();
  while (passwd* pw = getpwent())
    if (pw->pw_dir) homes.push_back(real_path(pw->pw_dir));
  endpwent();
  for (const std::string& h : homes)
    if (!h.empty() && h == dir)
      return Status::error(what + " " + dir + " is a home directory: choose a dedicated directory inside it");
  return Status::ok();
}

Roots::~Roots() {
  remove_scratch(*this);
  for (int f : fd)
    if (f >= 0) close(f);
}

Status open_roots(const std::string& trace, const ReplayOptions& o, Roots& r) {
  if (o.target.empty()) return Status::error("--target is required: the directory the recorded root replays in");
  r.target = real_path(o.target);
  if (r.target.empty()) return Status::error("target " + o.target + ": " + strerror(errno) + " (create it first)");
  FSR_RETURN_IF_ERROR(refuse_dangerous_root("target", r.target));
  if (o.scratch.empty()) {
    const char* tmp = getenv("TMPDIR");
    std::string tpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/fsreplay-scratch-XXXXXX";
    if (!mkdtemp(tpl.data()))
      return Status::error("cannot create a scratch directory in " + tpl + ": " + strerror(errno) +
                           " (set TMPDIR or pass --scratch)");
    r.scratch = real_path(tpl);
    r.scratch_is_ours = true;
    if (r.scratch.empty())
      return Status::error("scratch " + tpl + ": " + strerror(errno) + " (set TMPDIR or pass --scratch)");
  } else {
    r.scratch = real_path(o.scratch);
    if (r.scratch.empty()) return Status::error("scratch " + o.scratch + ": " + strerror(errno) + " (create it first)");
  }
  FSR_RETURN_IF_ERROR(refuse_dangerous_root("scratch", r.scratch));
  // Both are real paths (absolute, normalised, never empty): lexical checks suffice.
  if (is_beneath(r.scratch, r.target) || is_beneath(r.target, r.scratch))
    return Status::error("target " + r.target + " and scratch " + r.scratch + " overlap: use separate directories");
  std::string tr = real_path(trace);
  if (!tr.empty() && (is_beneath(tr, r.target) || is_beneath(tr, r.scratch)))
    return Status::error("the trace " + tr + " lies inside the target or scratch: move it out, replay may change it");
  if (!o.output.empty()) {
    std::string outdir = real_path(
        std::string(parent_of(normalize_abs(o.output[0] == '/' ? o.output : real_path(".") + "/" + o.output))));
    if (!outdir.empty() && (is_beneath(outdir, r.target) || is_beneath(outdir, r.scratch)))
      return Status::error("the result file " + o.output +
                           " would lie inside the target or scratch: write it elsewhere");
  }
  const std::string* names[2] = {&r.target, &r.scratch};
  for (int k = 0; k < 2; ++k) {
    r.fd[k] = open(names[k]->c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (r.fd[k] < 0)
      return Status::error(std::string(k == 0 ? "target " : "scratch ") + *names[k] + ": cannot open it (" +
                           strerror(errno) + "): give a directory this user can read and write");
  }
  return Status::ok();
}

int mount_anchor(const std::string& dir, std::string& prefix) {
  prefix.clear();
  auto mnt_id = [](const std::string& p, uint64_t& id) {
    struct statx sx;
    if (statx(AT_FDCWD, p.c_str(), AT_STATX_DONT_SYNC, STATX_MNT_ID, &sx) != 0 || !(sx.stx_mask & STATX_MNT_ID))
      return false;
    id = sx.stx_mnt_id;
    return true;
  };
  uint64_t id = 0, up = 0;
  if (dir.empty() || dir[0] != '/' || dir == "/" || !mnt_id(dir, id)) return -1;
  std::string top = dir;  // the highest directory on the same mount
  while (top != "/") {
    const std::string parent(parent_of(top));
    if (!mnt_id(parent, up)) return -1;
    if (up != id) break;
    top = parent;
  }
  if (top == dir) return -1;
  prefix = dir.substr(top == "/" ? 1 : top.size() + 1);
  const int fd = open(top.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) prefix.clear();
  return fd;
}

void remove_scratch(Roots& r) {
  if (!r.scratch_is_ours || r.scratch.empty()) return;
  r.scratch_is_ours = false;
  // Removed by name beneath its parent, never following a link (prepare.cpp).
  std::string parent(parent_of(r.scratch));
  const UniqueFd pfd(open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!pfd.valid()) return;
  TreeSpec gone;
  gone.created.push_back({Root::kTarget, r.scratch.substr(parent.size() + (parent == "/" ? 0 : 1))});
  const int roots[2] = {pfd.get(), pfd.get()};
  // Best effort (also run from ~Roots, with no one to tell): a scratch left
  // behind is an fsreplay-scratch-* directory in $TMPDIR that no later replay uses.
  (void)materialise(gone, roots, Features::all(), 1, nullptr);
}

}  // namespace fsr

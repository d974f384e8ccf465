// SPDX-License-Identifier: Apache-2.0
#include "replayer/session/placed_dirs.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "replayer/plan/placement.h"
#include "replayer/session/root_policy.h"
#include "base/paths.h"

namespace fsr {
namespace {

bool g_private = false;  // this process entered its own mount namespace

std::string proc_fd(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

// TARGET/SUBDIR made (each component a real directory, never a symlink)
// and opened; -errno, with the component at fault in `at`.
int make_mount_point(int target_fd, const std::string& subdir, std::string& at) {
  int fd = dup(target_fd);
  size_t from = 0;
  while (fd >= 0 && from <= subdir.size()) {
    size_t end = subdir.find('/', from);
    if (end == std::string::npos) end = subdir.size();
    const std::string c = subdir.substr(from, end - from);
    at = subdir.substr(0, end);
    if (mkdirat(fd, c.c_str(), 0755) != 0 && errno != EEXIST) {
      const int e = errno;
      close(fd);
      return -e;
    }
    const int next = openat(fd, c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    const int e = errno;
    close(fd);
    if (next < 0) return -(e == ELOOP ? ENOTDIR : e);
    fd = next;
    from = end + 1;
  }
  return fd;
}

// Whether the trace touches SUBDIR or anything beneath it (its initial tree
// or the paths it creates).
bool touched(const TreeSpec& spec, const std::string& subdir) {
  std::string rel;
  for (size_t i = 0; i < spec.entries.size(); ++i) {
    if (spec.root(i) != Root::kTarget) continue;
    spec.rel(i, rel);
    if (rel_within(rel, subdir)) return true;
  }
  for (const MappedPath& m : spec.created)
    if (m.root == Root::kTarget && rel_within(m.rel, subdir)) return true;
  return false;
}

// Created paths at SUBDIR or above it: a mount point is there before the
// workload starts, and is never removed by a reset.
void keep_mount_point(TreeSpec& spec, const std::string& subdir, const PlaceContext& ctx) {
  std::vector<std::string> dropped;
  auto above = [&](const MappedPath& m) {
    if (m.root != Root::kTarget || !rel_within(subdir, m.rel.empty() ? "." : m.rel)) return false;
    dropped.push_back(m.rel.empty() ? "." : m.rel);
    return true;
  };
  spec.created.erase(std::remove_if(spec.created.begin(), spec.created.end(), above), spec.created.end());
  if (!dropped.empty() && ctx.warn)
    ctx.warn("--place " + subdir + ": the trace creates " + dropped.front() +
             " and the placement mounts its directory before the workload starts, so that creation fails "
             "(EEXIST) as it would for a user with that bind mount; place a directory that exists before the "
             "workload (e.g. 'git clone --separate-git-dir', a build directory made beforehand)");
}

}  // namespace

Result<std::vector<PlacedDir>> check_placement(const std::vector<std::string>& args, const std::string& target,
                                               std::vector<std::string>& warnings) {
  std::vector<PlaceRule> rules;
  for (const std::string& a : args) {
    FSR_ASSIGN_OR_RETURN(PlaceRule r, parse_place(a));
    if (r.subdir == ".")
      return Status::error("--place " + a + ": SUBDIR is the recorded root itself: give --target " + r.where +
                           " instead");
    rules.push_back(std::move(r));
  }
  std::vector<std::string> overlaps;
  make_placement(rules, overlaps);
  if (!overlaps.empty()) {  // (predict leaves them out and goes on; a replay cannot mount both)
    std::string line = overlaps.front();
    const std::string said = "left out, give directories that do not nest";
    if (size_t at = line.find(said); at != std::string::npos)
      line.replace(at, said.size(), "refused: give directories that do not nest");
    return Status::error(line);
  }
  const std::string tgt = real_path(target);
  struct stat ts {};
  const bool have_target = !tgt.empty() && stat(tgt.c_str(), &ts) == 0;
  std::vector<PlacedDir> out;
  for (const PlaceRule& r : rules) {
    struct stat st;
    if (stat(r.where.c_str(), &st) != 0)
      return Status::error("--place " + r.subdir + "=" + r.where + ": " + r.where + ": " + strerror(errno) +
                           " (give an existing directory on the other mount: mkdir it first)");
    if (!S_ISDIR(st.st_mode))
      return Status::error("--place " + r.subdir + "=" + r.where + ": " + r.where +
                           " is not a directory (give an existing directory on the other mount)");
    PlacedDir d;
    d.subdir = r.subdir;
    d.other = real_path(r.where);
    FSR_RETURN_IF_ERROR(refuse_dangerous_root("placed directory", d.other));
    if (have_target && (is_beneath(d.other, tgt) || is_beneath(tgt, d.other)))
      return Status::error("--place " + r.subdir + "=" + r.where + ": " + d.other + " and the target " + tgt +
                           " overlap: give a directory outside the target, on the other mount");
    for (const PlacedDir& q : out)
      if (is_beneath(d.other, q.other) || is_beneath(q.other, d.other))
        return Status::error("--place " + r.subdir + "=" + r.where + ": " + d.other + " overlaps " + q.other +
                             " (placed for " + q.subdir + "): give each placement a directory of its own");
    d.same_mount = have_target && st.st_dev == ts.st_dev;
    if (d.same_mount)
      warnings.push_back("--place " + r.subdir + "=" + r.where + ": " + d.other +
                         " is on the same file system as the target " + tgt +
                         ": the placement changes nothing of the mount those ops meet (going on)");
    out.push_back(std::move(d));
  }
  return out;
}

Status enter_private_mounts() {
  if (g_private) return Status::ok();
  if (unshare(CLONE_NEWNS) != 0) {
    const int e = errno;
    if (e == EPERM)
      return Status::error(
          "--place bind-mounts each placed directory in a private mount namespace, which needs CAP_SYS_ADMIN: "
          "run fsreplay as root (sudo), or leave --place out",
          StatusCode::kNoPrivilege);
    return Status::from_errno(e, "--place: cannot enter a private mount namespace (unshare(CLONE_NEWNS))");
  }
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return Status::from_errno(errno, "--place: cannot make the mounts private (mount --make-rprivate /)");
  g_private = true;
  return Status::ok();
}

PlacedRoot::~PlacedRoot() {
  unmount();
  if (fd >= 0) close(fd);
}

void PlacedRoot::unmount() {
  if (mount_point.empty()) return;
  umount2(mount_point.c_str(), MNT_DETACH | UMOUNT_NOFOLLOW);
  mount_point.clear();
}

Status mount_placed(const std::vector<PlacedDir>& dirs, const PlaceContext& ctx, TreeSpec& spec, PlacedRoots& out,
                    bool& wrote) {
  if (!dirs.empty() && !g_private)
    return Status::error("--place: the caller did not enter a private mount namespace (enter_private_mounts)");
  for (const PlacedDir& d : dirs) {
    auto p = std::make_unique<PlacedRoot>();
    p->dir = d;
    const std::string arg = "--place " + d.subdir + "=" + d.other;
    if (!touched(spec, d.subdir) && ctx.warn)
      ctx.warn(arg + ": the trace never touches " + d.subdir +
               " beneath the recorded root: nothing is sent there (check the spelling, relative to the recorded "
               "root; going on)");
    keep_mount_point(spec, d.subdir, ctx);
    p->fd = open(d.other.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (p->fd < 0) return Status::from_errno(errno, arg + ": cannot open " + d.other);
    ClaimRequest req = ctx.claim;
    req.what = "place";
    req.dir = d.other;
    FSR_RETURN_IF_ERROR(claim_root(p->fd, req, TreeSpec{}, Root::kTarget, p->claim, ctx.warn));
    if (p->claim.other_trace) {
      if (!ctx.prepare)
        return Status::error(arg + ": " + d.other + " was prepared for another trace (" + p->claim.other_trace_path +
                             "): run 'fsreplay prepare' with the same --place first");
      wrote = true;
      FSR_RETURN_IF_ERROR(clear_root(p->fd, d.other));
    }
    std::string at;
    const int mp = make_mount_point(ctx.target_fd, d.subdir, at);
    if (mp < 0)
      return Status::error(arg + ": cannot make the mount point " + ctx.target + "/" + at + " (" + strerror(-mp) +
                           (-mp == ENOTDIR ? ": it is not a directory, or a symlink" : "") + ")");
    const int rc = mount(proc_fd(p->fd).c_str(), proc_fd(mp).c_str(), nullptr, MS_BIND, nullptr);
    const int e = errno;
    close(mp);
    if (rc != 0)
      return Status::from_errno(e, arg + ": cannot bind-mount " + d.other + " on " + ctx.target + "/" + d.subdir);
    p->mount_point = ctx.target + "/" + d.subdir;
    out.push_back(std::move(p));
  }
  return Status::ok();
}

std::string undo_placed(PlacedRoots& placed) {
  std::string said;
  for (auto& p : placed) p->unmount();
  for (auto& p : placed) {
    if (!p->claim.held()) continue;
    if (!p->claim.owned_all) {
      said += "; the placed directory " + p->dir.other + " is left partly prepared (it held other files: --force)";
      continue;
    }
    Status c = clear_root(p->fd, p->dir.other);
    if (c) {
      p->claim.release_and_unmark(p->fd);
      said += "; the placed directory " + p->dir.other + " was emptied";
    } else {
      said += "; the placed directory " + p->dir.other + " could not be emptied: " + c.message();
    }
  }
  return said;
}

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// Whether a root can take the tree, before anything is made in it
// (prepare.h check_root_writable), and the error for one that cannot
// (unwritable_root). Reads the roots only: never writes to them.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "replayer/session/prepare.h"

namespace fsr {

Status check_root_writable(int fd, const std::string& path, const TreeSpec& spec, Root which, std::string* warning) {
  const std::string what = which == Root::kTarget ? "target" : "scratch directory";
  const std::string opt = which == Root::kTarget ? "--target" : "--scratch (or TMPDIR)";
  struct statvfs sv;
  if (fstatvfs(fd, &sv) == 0) {
    if (sv.f_flag & ST_RDONLY)
      return Status::error(what + " " + path + " is on a read-only mount: remount it read-write or choose another " +
                           opt);
    // What the tree still needs: entries not there yet, files not yet at their size.
    uint64_t bytes = 0, inodes = 0, largest = 0;
    std::string r, largest_rel;
    for (size_t i = 0; i < spec.entries.size(); ++i) {
      const TreeEntry& t = spec.entries[i];
      if (spec.root(i) != which) continue;
      struct stat st;
      spec.rel(i, r);
      const char* rel = r.empty() ? "." : r.c_str();
      const bool there = fstatat(fd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0;
      if (!there) ++inodes;
      if (t.kind == PrestateKind::kFile && t.link_to == UINT32_MAX &&
          (!there || static_cast<uint64_t>(st.st_size) != t.size)) {
        bytes += t.size;
        if (t.size > largest) largest = t.size, largest_rel = r;
      }
    }
    const uint64_t size_bytes = static_cast<uint64_t>(sv.f_blocks) * sv.f_frsize;
    // Headroom for the replay's own entries: 1 MiB, an eighth of a smaller file system.
    const uint64_t mib = std::min<uint64_t>(1u << 20, size_bytes / 8);
    const uint64_t free_bytes = static_cast<uint64_t>(sv.f_bavail) * sv.f_frsize;
    auto in_mib = [](uint64_t b) { return std::to_string((b + (1u << 20) - 1) >> 20); };  // rounded up
    if (sv.f_blocks == 0) {
      // FUSE without statfs, some network mounts: no size to check against.
      if (warning && bytes > 0)
        *warning = what + " " + path +
                   " reports no size (its file system answers statfs with 0 blocks): the tree needs " + in_mib(bytes) +
                   " MiB there and its room is unknown; if writes fail with ENOSPC, free space or choose another " +
                   opt;
    } else if (bytes + mib > free_bytes) {
      return Status::error(
          what + " " + path + " has " + std::to_string(free_bytes >> 20) + " MiB free (of " + in_mib(size_bytes) +
          ") and the trace's initial tree needs " + in_mib(bytes) + " MiB there plus " +
          (mib == (1u << 20) ? std::string("1 MiB") : std::to_string(mib >> 10) + " KiB") + " of headroom" +
          (largest > size_bytes / 2 ? " (its largest file, " + largest_rel + ", alone is " + in_mib(largest) + " MiB)"
                                    : std::string()) +
          "; nothing was written: free space or choose another " + opt);
    }
    if (sv.f_files > 0 && sv.f_favail < inodes + 16)
      return Status::error(what + " " + path + " has " + std::to_string(sv.f_favail) +
                           " free inodes and the tree needs " + std::to_string(inodes) +
                           " (plus 16): free some or choose another " + opt);
  }
  return Status::ok();
}

Status unwritable_root(const std::string& what, const std::string& path, int e, const std::string& opt) {
  if (e == EROFS)
    return Status::error(what + " " + path + " is on a read-only mount: remount it read-write or choose another " +
                         opt);
  if (e == ENOSPC || e == EDQUOT)
    return Status::error(what + " " + path + " is full (" + strerror(e) + "): free space or choose another " + opt);
  if (e == EACCES || e == EPERM)
    return Status::error(what + " " + path + " is not writable by uid " + std::to_string(geteuid()) +
                         ": give this user write access (chown/chmod) or choose another " + opt);
  return Status::error(what + " " + path + ": cannot create entries in it (" + strerror(e) + "): choose another " +
                       opt);
}

}  // namespace fsr

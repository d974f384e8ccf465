// SPDX-License-Identifier: Apache-2.0
#include "replayer/exec/features.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace fsr {
namespace {

constexpr std::string_view kNames[kFeatureCount] = {
    "statx", "openat2", "renameat2-flags", "copy_file_range", "sync_file_range", "o_tmpfile", "fallocate", "xattrat"};
constexpr std::string_view kFallbacks[kFeatureCount] = {"statx -> fstatat",
                                                        "openat2 -> openat + user-space resolver",
                                                        "renameat2 flags -> rename when equivalent",
                                                        "copy_file_range -> read/write",
                                                        "sync_file_range -> fdatasync",
                                                        "O_TMPFILE -> named temporary file",
                                                        "fallocate -> ftruncate",
                                                        "getxattrat -> getxattr through /proc/self/fd"};

bool missing(long rc) { return rc < 0 && (errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP); }

#ifndef SYS_getxattrat
#define SYS_getxattrat 464
#endif

}  // namespace

std::string_view feature_name(Feature f) { return kNames[static_cast<int>(f)]; }
std::string_view fallback_description(Feature f) { return kFallbacks[static_cast<int>(f)]; }

Result<Feature> feature_from_name(std::string_view name) {
  for (int i = 0; i < kFeatureCount; ++i)
    if (kNames[i] == name) return static_cast<Feature>(i);
  return Status::error("unknown feature '" + std::string(name) +
                       "': use statx, openat2, renameat2-flags, copy_file_range, "
                       "sync_file_range, o_tmpfile, fallocate or xattrat");
}

Features Features::all() {
  Features f;
  for (bool& h : f.have_) h = true;
  return f;
}

Features Features::probe(int dirfd, const std::vector<Feature>& force_off) {
  Features f;
  std::string base = ".fsreplay-probe-" + std::to_string(getpid());
  std::string a = base + "-a", b = base + "-b";
  int fa = openat(dirfd, a.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int fb = openat(dirfd, b.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fa >= 0 && write(fa, "probe", 5) != 5) {}

  struct statx sx;
  f.set(Feature::kStatx, !missing(syscall(SYS_statx, dirfd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &sx)));

  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  long o2 = syscall(SYS_openat2, dirfd, ".", &how, sizeof how);
  f.set(Feature::kOpenat2, o2 >= 0);
  if (o2 >= 0) close(static_cast<int>(o2));

  if (fa >= 0 && fb >= 0) {
    loff_t off_in = 0, off_out = 0;
    f.set(Feature::kCopyFileRange, !missing(syscall(SYS_copy_file_range, fa, &off_in, fb, &off_out, 5, 0)));
    f.set(Feature::kSyncFileRange, !missing(syscall(SYS_sync_file_range, fa, 0, 5, 2)));
    f.set(Feature::kFallocate, !missing(syscall(SYS_fallocate, fb, 0, 0, 4096)));
    std::string c = base + "-c";
    long rr = syscall(SYS_renameat2, dirfd, a.c_str(), dirfd, c.c_str(), 1 /*RENAME_NOREPLACE*/);
    f.set(Feature::kRenameat2Flags, rr == 0);
    if (rr == 0) a = c;
  }
  // getxattrat (Linux 6.13): only ENOSYS says it is missing (EOPNOTSUPP
  // is a file system without xattrs, ENODATA the usual answer).
  struct {
    uint64_t value;
    uint32_t size, flags;
  } xa{0, 0, 0};
  const long gx = syscall(SYS_getxattrat, dirfd, ".", 0, "user.fsreplay", &xa, sizeof xa);
  f.set(Feature::kXattrAt, !(gx < 0 && errno == ENOSYS));
  int t = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  f.set(Feature::kOTmpfile, t >= 0);
  if (t >= 0) close(t);
  if (fa >= 0) close(fa);
  if (fb >= 0) close(fb);
  unlinkat(dirfd, a.c_str(), 0);
  unlinkat(dirfd, b.c_str(), 0);
  for (Feature off : force_off) f.set(off, false);
  return f;
}

void Features::used_fallback(Feature f) const {
  uint32_t bit = 1u << static_cast<int>(f);
  if (!(used_.load(std::memory_order_relaxed) & bit)) used_.fetch_or(bit, std::memory_order_relaxed);
}

std::vector<std::string> Features::fallbacks_used() const {
  std::vector<std::string> v;
  uint32_t u = used_.load();
  for (int i = 0; i < kFeatureCount; ++i)
    if (u & (1u << i)) v.emplace_back(kFallbacks[i]);
  return v;
}

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
#include "emulators/slowfs/slowfs_opcounts.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace fsr {
namespace {

constexpr std::array<std::string_view, kFuseOpCount> kNames = {
    "LOOKUP",  "FORGET",  "BATCH_FORGET", "GETATTR",    "SETATTR",  "READLINK",  "MKNOD",
    "MKDIR",   "SYMLINK", "LINK",         "UNLINK",     "RMDIR",    "RENAME",    "OPEN",
    "CREATE",  "READ",    "WRITE",        "FLUSH",      "RELEASE",  "FSYNC",     "FALLOCATE",
    "FLOCK",   "STATFS",  "ACCESS",       "SETXATTR",   "GETXATTR", "LISTXATTR", "REMOVEXATTR",
    "OPENDIR", "READDIR", "READDIRPLUS",  "RELEASEDIR", "FSYNCDIR"};
static_assert(kNames.back() == "FSYNCDIR", "kNames must follow FuseOp's order");

}  // namespace

std::string_view fuse_op_name(FuseOp op) { return kNames[static_cast<size_t>(op)]; }

std::string OpCounters::format() const {
  std::string out = "opcode count\n";
  for (size_t i = 0; i < kFuseOpCount; ++i) {
    out += kNames[i];
    out += ' ';
    out += std::to_string(count_[i].load(std::memory_order_relaxed));
    out += '\n';
  }
  return out;
}

std::string OpCounters::write_file(const std::string& path) const { return write_text_atomically(path, format()); }

std::string write_text_atomically(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) return "cannot write stats " + tmp + ": " + std::strerror(errno);
  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) return "cannot write stats " + tmp + ": " + std::strerror(errno);
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    return "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno);
  return {};
}

}  // namespace fsr

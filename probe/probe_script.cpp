// SPDX-License-Identifier: Apache-2.0
#include "probe/probe_script.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <cerrno>

#include "traces/syscalls.h"

namespace fsr {
namespace {
constexpr uint32_t kPid = 1;
}  // namespace

Event& ProbeScript::add(uint16_t nr, int64_t ret, ProbeTag tag) {
  Event e;
  e.pid = e.tid = kPid;
  e.nr = nr;
  e.ts = ts_;
  e.dur = 100;
  e.ret = ret;
  ts_ += 1000;
  ev_.push_back(e);
  tags_.push_back(tag);
  return ev_.back();
}

StrId ProbeScript::text_id(const std::string& text) {
  strs_.push_back(text);
  return static_cast<StrId>(strs_.size() - 1);
}

StrId ProbeScript::path_id(const std::string& rel) { return text_id(std::string(kRoot) + "/" + dir_ + "/" + rel); }

void ProbeScript::stat(const std::string& rel, bool exists, ProbeTag tag) {
  Event& e = add(SYS_newfstatat, exists ? 0 : -ENOENT, tag);
  e.args[0] = kAtFdcwdArg;
  e.path[0] = path_id(rel);
  if (exists) e.mode = 0100644;
}

int ProbeScript::open(const std::string& rel, int flags, ProbeTag tag, bool exists) {
  const int fd = exists ? next_fd_++ : -1;
  Event& e = add(SYS_openat, exists ? fd : -ENOENT, tag);
  e.args[0] = kAtFdcwdArg;
  e.args[2] = static_cast<uint64_t>(flags | O_CLOEXEC);
  e.args[3] = (flags & O_CREAT) ? 0644 : 0;  // openat2 refuses a mode without O_CREAT
  e.path[0] = path_id(rel);
  e.mode = (flags & O_DIRECTORY) ? 040755 : 0100644;
  return fd;
}

void ProbeScript::fstat(int fd, ProbeTag tag) { add(SYS_fstat, 0, tag).args[0] = static_cast<uint64_t>(fd); }

void ProbeScript::lseek(int fd, ProbeTag tag) {
  Event& e = add(SYS_lseek, 0, tag);
  e.args[0] = static_cast<uint64_t>(fd);
  e.args[2] = SEEK_SET;
}

void ProbeScript::read(int fd, uint64_t bytes, ProbeTag tag) {
  Event& e = add(SYS_read, static_cast<int64_t>(bytes), tag);
  e.args[0] = static_cast<uint64_t>(fd);
  e.args[2] = bytes;
}

void ProbeScript::write(int fd, uint64_t bytes, ProbeTag tag) {
  Event& e = add(SYS_write, static_cast<int64_t>(bytes), tag);
  e.args[0] = static_cast<uint64_t>(fd);
  e.args[2] = bytes;
}

void ProbeScript::getdents(int fd, ProbeTag tag) {
  tag.param_is_ret = true;
  Event& e = add(SYS_getdents64, 0, tag);
  e.args[0] = static_cast<uint64_t>(fd);
  e.args[2] = 32768;
}

void ProbeScript::close(int fd, ProbeTag tag) { add(SYS_close, 0, tag).args[0] = static_cast<uint64_t>(fd); }
void ProbeScript::fsync(int fd, ProbeTag tag) { add(SYS_fsync, 0, tag).args[0] = static_cast<uint64_t>(fd); }

void ProbeScript::ftruncate(int fd, uint64_t len, ProbeTag tag) {
  Event& e = add(SYS_ftruncate, 0, tag);
  e.args[0] = static_cast<uint64_t>(fd);
  e.args[1] = len;
}

void ProbeScript::mkdir(const std::string& rel, ProbeTag tag) {
  Event& e = add(SYS_mkdirat, 0, tag);
  e.args[0] = kAtFdcwdArg;
  e.args[2] = 0755;
  e.path[0] = path_id(rel);
}

void ProbeScript::rmdir(const std::string& rel, ProbeTag tag) { add(SYS_rmdir, 0, tag).path[0] = path_id(rel); }

void ProbeScript::unlink(const std::string& rel, ProbeTag tag) {
  Event& e = add(SYS_unlinkat, 0, tag);
  e.args[0] = kAtFdcwdArg;
  e.path[0] = path_id(rel);
}

void ProbeScript::rename(const std::string& from, const std::string& to, ProbeTag tag) {
  Event& e = add(SYS_renameat, 0, tag);
  e.args[0] = e.args[2] = kAtFdcwdArg;
  e.path[0] = path_id(from);
  e.path[1] = path_id(to);
}

void ProbeScript::link(const std::string& from, const std::string& to, ProbeTag tag) {
  Event& e = add(SYS_linkat, 0, tag);
  e.args[0] = e.args[2] = kAtFdcwdArg;
  e.path[0] = path_id(from);
  e.path[1] = path_id(to);
}

void ProbeScript::symlink(const std::string& text, const std::string& rel, ProbeTag tag) {
  Event& e = add(SYS_symlinkat, 0, tag);
  e.args[1] = kAtFdcwdArg;
  e.path[0] = text_id(text);
  e.path[1] = path_id(rel);
}

void ProbeScript::chmod(const std::string& rel, ProbeTag tag) {
  Event& e = add(SYS_fchmodat, 0, tag);
  e.args[0] = kAtFdcwdArg;
  e.args[2] = 0640;
  e.path[0] = path_id(rel);
}

void ProbeScript::getxattr(const std::string& rel, ProbeTag tag) {
  tag.any_result = true;
  add(SYS_lgetxattr, -ENODATA, tag).path[0] = path_id(rel);
}

uint64_t ProbeScript::mmap(int fd, uint64_t len, ProbeTag tag) {
  const uint64_t addr = next_addr_;
  next_addr_ += (len + (1u << 21)) & ~((1ull << 21) - 1);
  Event& e = add(SYS_mmap, static_cast<int64_t>(addr), tag);
  e.args[1] = len;
  e.args[2] = PROT_READ;
  e.args[3] = MAP_PRIVATE;
  e.args[4] = static_cast<uint64_t>(fd);
  return addr;
}

void ProbeScript::fault(uint64_t addr, uint64_t offset, ProbeTag tag) {
  Event& e = add(kEvPageFault, 0, tag);
  e.args[0] = offset;
  e.args[1] = addr + offset;
}

void ProbeScript::munmap(uint64_t addr, uint64_t len, ProbeTag tag) {
  Event& e = add(SYS_munmap, 0, tag);
  e.args[0] = addr;
  e.args[1] = len;
}

void ProbeScript::make_file(const std::string& rel, uint64_t bytes) {
  const int fd = open(rel, O_WRONLY | O_CREAT | O_TRUNC, untimed());
  for (uint64_t done = 0; done < bytes;) {
    const uint64_t n = std::min<uint64_t>(bytes - done, 1u << 20);
    write(fd, n, untimed());
    done += n;
  }
  close(fd, untimed());
}

Plan ProbeScript::plan(const std::string& target_dir, const std::string& scratch_dir) const {
  PlanInputs in;
  in.recorded_root = kRoot;
  in.target_dir = target_dir;
  in.scratch_dir = scratch_dir;
  in.initial.pid = kPid;
  in.initial.cwd = std::string(kRoot) + "/" + dir_;
  return build_plan(
      ev_, [this](StrId id) { return str(id); }, in);
}

}  // namespace fsr

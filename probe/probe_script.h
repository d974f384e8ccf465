// SPDX-License-Identifier: Apache-2.0
// A probe's work as a recorded trace would hold it: events of one thread
// (syscall number, arguments, recorded result, absolute paths under a
// virtual recorded root) that the replayer's own plan and executor then
// issue, so that a probe measures exactly the code path a replay takes on
// the mount. Each event carries a tag: which profile case it measures, at
// which temperature, or none (setup, untimed). Builds events only; never
// touches the file system.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "replayer/plan/plan.h"
#include "traces/event.h"
#include "traces/profile.h"

namespace fsr {

struct ProbeTag {
  bool timed = false;
  ProbeKind kind = ProbeKind::kStat;
  Temp temp = Temp::kWarm;
  uint64_t param = 0;
  bool param_is_ret = false;  // the parameter is the op's own result (bytes a getdents returned)
  bool any_result = false;    // success or failure are both what the case measures (xattr)
  uint32_t idle_us = 0;       // the mount is left idle this long before the call (the gap a trace has)
};

inline ProbeTag untimed() { return {}; }
inline ProbeTag timed(ProbeKind k, Temp t = Temp::kWarm, uint64_t param = 0) { return {true, k, t, param}; }
// Timed after `us` microseconds of idle (the parameter): a mount whose server
// threads went to sleep answers more slowly than one kept busy.
inline ProbeTag timed_after_idle(ProbeKind k, uint32_t us) {
  ProbeTag t = timed(k, Temp::kWarm, us);
  t.idle_us = us;
  return t;
}

class ProbeScript {
 public:
  static constexpr const char* kRoot = "/fsreplay-probe-root";  // the virtual recorded root (the probed DIR)

  // Every path is relative to the probe's private directory `dir_rel`
  // (itself relative to the probed directory).
  explicit ProbeScript(std::string dir_rel) : dir_(std::move(dir_rel)) {}

  void stat(const std::string& rel, bool exists, ProbeTag tag);
  int open(const std::string& rel, int flags, ProbeTag tag, bool exists = true);  // returns the script's fd
  void fstat(int fd, ProbeTag tag);
  void lseek(int fd, ProbeTag tag);
  void read(int fd, uint64_t bytes, ProbeTag tag);
  void write(int fd, uint64_t bytes, ProbeTag tag);
  void getdents(int fd, ProbeTag tag);
  void close(int fd, ProbeTag tag);
  void fsync(int fd, ProbeTag tag);
  void ftruncate(int fd, uint64_t len, ProbeTag tag);
  void mkdir(const std::string& rel, ProbeTag tag);
  void rmdir(const std::string& rel, ProbeTag tag);
  void unlink(const std::string& rel, ProbeTag tag);
  void rename(const std::string& from, const std::string& to, ProbeTag tag);
  void link(const std::string& from, const std::string& to, ProbeTag tag);
  void symlink(const std::string& text, const std::string& rel, ProbeTag tag);
  void chmod(const std::string& rel, ProbeTag tag);
  void getxattr(const std::string& rel, ProbeTag tag);
  uint64_t mmap(int fd, uint64_t len, ProbeTag tag);  // returns the recorded address
  void fault(uint64_t addr, uint64_t offset, ProbeTag tag);
  void munmap(uint64_t addr, uint64_t len, ProbeTag tag);

  // A file of `bytes` filler bytes (untimed: open O_CREAT, write, close).
  void make_file(const std::string& rel, uint64_t bytes);

  const std::vector<Event>& events() const { return ev_; }
  const std::vector<ProbeTag>& tags() const { return tags_; }
  std::string_view str(StrId id) const { return id < strs_.size() ? std::string_view(strs_[id]) : std::string_view(); }
  size_t size() const { return ev_.size(); }
  // The plan the replayer builds for these events, the probed directory as target.
  Plan plan(const std::string& target_dir, const std::string& scratch_dir) const;

 private:
  Event& add(uint16_t nr, int64_t ret, ProbeTag tag);
  StrId path_id(const std::string& rel);
  StrId text_id(const std::string& text);

  std::string dir_;
  std::vector<Event> ev_;
  std::vector<ProbeTag> tags_;
  std::vector<std::string> strs_{""};
  int next_fd_ = 100;
  uint64_t next_addr_ = 0x7f0000000000ull;
  uint64_t ts_ = 1000;
};

}  // namespace fsr

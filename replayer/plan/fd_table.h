// SPDX-License-Identifier: Apache-2.0
// Plan-time model of the recorded processes' fd tables. Replay runs every
// recorded process as threads of one real process, so a recorded fd is never
// used directly: it is bound to an open-file description (OFD) slot, and the
// plan decides, in recorded order, when an OFD's last reference goes away and
// the real fd must be closed. Tables follow fork (copy), CLONE_FILES (share),
// exec (close-on-exec fds dropped), dup/dup2/dup3/F_DUPFD, close and
// close_range. This component never issues a syscall.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace fsr {

inline constexpr uint32_t kNoOfd = UINT32_MAX;

// Reference counts of OFD slots, shared by every table of a plan.
class OfdRefs {
 public:
  uint32_t create();           // a new OFD with no references (a recycled slot first)
  void recycle(uint32_t ofd);  // a slot no op refers to any more: create() may hand it out
  void add_ref(uint32_t ofd);
  bool drop_ref(uint32_t ofd);  // true when that was the last reference
  uint32_t refs(uint32_t ofd) const { return refs_.at(ofd); }
  uint32_t size() const { return static_cast<uint32_t>(refs_.size()); }

 private:
  std::vector<uint32_t> refs_;
  std::vector<uint32_t> free_;
};

class FdTable {
 public:
  explicit FdTable(OfdRefs* refs) : refs_(refs) {}
  // Copy for fork: every binding takes one more reference.
  std::shared_ptr<FdTable> fork_copy() const;

  uint32_t lookup(int fd) const;  // kNoOfd when unbound
  // Binds fd (closing what it held; its OFD is appended to `closed` when that
  // was the last reference).
  void bind(int fd, uint32_t ofd, bool cloexec, std::vector<uint32_t>& closed);
  bool close(int fd, std::vector<uint32_t>& closed);  // false when fd was unbound
  void close_range(unsigned first, unsigned last, bool cloexec_only_mark, std::vector<uint32_t>& closed);
  void set_cloexec(int fd, bool on);
  void exec(std::vector<uint32_t>& closed);   // drops close-on-exec fds
  void clear(std::vector<uint32_t>& closed);  // table released (last user exited)
  size_t size() const { return fds_.size(); }

 private:
  struct Binding {
    uint32_t ofd;
    bool cloexec;
  };
  OfdRefs* refs_;
  std::map<int, Binding> fds_;
};

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
#include "replayer/plan/fd_table.h"

#include <stdexcept>

namespace fsr {

uint32_t OfdRefs::create() {
  if (!free_.empty()) {
    const uint32_t o = free_.back();
    free_.pop_back();
    return o;
  }
  refs_.push_back(0);
  return static_cast<uint32_t>(refs_.size() - 1);
}

void OfdRefs::recycle(uint32_t ofd) {
  if (refs_.at(ofd) != 0) throw std::logic_error("OfdRefs: recycling a referenced slot");
  free_.push_back(ofd);
}

void OfdRefs::add_ref(uint32_t ofd) { ++refs_.at(ofd); }

bool OfdRefs::drop_ref(uint32_t ofd) {
  uint32_t& r = refs_.at(ofd);
  if (r == 0) throw std::logic_error("OfdRefs: reference count underflow");
  return --r == 0;
}

std::shared_ptr<FdTable> FdTable::fork_copy() const {
  auto t = std::make_shared<FdTable>(refs_);
  t->fds_ = fds_;
  for (auto& [fd, b] : t->fds_) refs_->add_ref(b.ofd);
  return t;
}

uint32_t FdTable::lookup(int fd) const {
  auto it = fds_.find(fd);
  return it == fds_.end() ? kNoOfd : it->second.ofd;
}

void FdTable::bind(int fd, uint32_t ofd, bool cloexec, std::vector<uint32_t>& closed) {
  refs_->add_ref(ofd);  // first, so that dup2(fd, fd)-like rebinding never frees it
  auto it = fds_.find(fd);
  if (it != fds_.end()) {
    if (refs_->drop_ref(it->second.ofd)) closed.push_back(it->second.ofd);
    it->second = {ofd, cloexec};
  } else {
    fds_.emplace(fd, Binding{ofd, cloexec});
  }
}

bool FdTable::close(int fd, std::vector<uint32_t>& closed) {
  auto it = fds_.find(fd);
  if (it == fds_.end()) return false;
  if (refs_->drop_ref(it->second.ofd)) closed.push_back(it->second.ofd);
  fds_.erase(it);
  return true;
}

void FdTable::close_range(unsigned first, unsigned last, bool cloexec_only_mark, std::vector<uint32_t>& closed) {
  auto it = fds_.lower_bound(static_cast<int>(first));
  while (it != fds_.end() && static_cast<unsigned>(it->first) <= last) {
    if (cloexec_only_mark) {
      it->second.cloexec = true;
      ++it;
      continue;
    }
    if (refs_->drop_ref(it->second.ofd)) closed.push_back(it->second.ofd);
    it = fds_.erase(it);
  }
}

void FdTable::set_cloexec(int fd, bool on) {
  auto it = fds_.find(fd);
  if (it != fds_.end()) it->second.cloexec = on;
}

void FdTable::exec(std::vector<uint32_t>& closed) {
  for (auto it = fds_.begin(); it != fds_.end();) {
    if (it->second.cloexec) {
      if (refs_->drop_ref(it->second.ofd)) closed.push_back(it->second.ofd);
      it = fds_.erase(it);
    } else {
      ++it;
    }
  }
}

void FdTable::clear(std::vector<uint32_t>& closed) {
  for (auto& [fd, b] : fds_)
    if (refs_->drop_ref(b.ofd)) closed.push_back(b.ofd);
  fds_.clear();
}

}  // namespace fsr

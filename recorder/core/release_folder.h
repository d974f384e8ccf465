// SPDX-License-Identifier: Apache-2.0
// ReleaseFolder: puts a call's deferred file release into the call's
// duration. A call that drops a file's last reference (munmap of a mapping
// whose fd was closed; close itself before Linux 6.6) leaves the release to
// the kernel's return path, after the exit tracepoint. On a network mount
// that release is a round trip, which the replayer's own call pays before
// it returns: left in the gap after the recorded call, a replay would pay
// it twice. The kernel side (bpf/record_release.bpf.h) marks such calls'
// records (FSR_RF_RELEASE_PENDING) and, when the release blocked, submits a
// release record at the window's end (the task's next syscall entry, page
// fault or exit): its ns until the task came back from its last block.
//
// A marked call is held until its thread's next record: a release record
// adds to its duration and is consumed; any other record lets it go as it
// was. A held call is written just before its thread's next event, so it
// moves past other processes' events that completed during its release (the
// trace keeps completion order, and the call now completes later). Not past
// its own process's: its threads share the fd table, and a close written
// after another thread's open of the same fd number would close that one in
// the replay's table. An event of another thread of the process lets the
// held call go first, as it was (its release, if one follows, is counted
// and stays in the gap).
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "traces/event.h"

namespace fsr {

// The decoder's event for a release record: never written to a trace.
inline constexpr uint16_t kEvDeferredRelease = 1100;

class ReleaseFolder {
 public:
  // `e` decoded from a record; `pending`: that record was marked. Calls
  // out(const Event&) for every event to write now, in order.
  template <typename Out>
  void take(const Event& e, bool pending, Out&& out) {
    if (held_.empty() && !pending && e.nr != kEvDeferredRelease) {  // the drain's common case: nothing held
      out(e);
      return;
    }
    if (!held_.empty()) let_go_siblings(e, out);
    auto it = held_.find(e.tid);
    if (it != held_.end()) {
      Event h = it->second;
      held_.erase(it);
      if (e.nr == kEvDeferredRelease) {
        h.dur += e.dur;
        ++folded_;
        folded_ns_ += e.dur;
        out(static_cast<const Event&>(h));
        return;
      }
      out(static_cast<const Event&>(h));
    }
    if (e.nr == kEvDeferredRelease) {
      ++orphans_;  // its call was not held (its record was lost): nothing to add to
      return;
    }
    if (pending) {
      held_.emplace(e.tid, e);
      return;
    }
    out(e);
  }

  // The calls still held (the recording ends), in their enter order.
  template <typename Out>
  void flush(Out&& out) {
    std::vector<Event> rest;
    rest.reserve(held_.size());
    for (auto& [tid, h] : held_) rest.push_back(h);
    held_.clear();
    std::sort(rest.begin(), rest.end(), [](const Event& a, const Event& b) { return a.ts < b.ts; });
    for (const Event& h : rest) out(static_cast<const Event&>(h));
  }

  uint64_t folded() const { return folded_; }        // calls given their release
  uint64_t let_go() const { return let_go_; }        // held calls another thread's event let go first
  uint64_t folded_ns() const { return folded_ns_; }  // the ns added to them
  uint64_t orphans() const { return orphans_; }      // release records without their call
  size_t held() const { return held_.size(); }

 private:
  // The held calls of e's process but other threads go out first.
  template <typename Out>
  void let_go_siblings(const Event& e, Out& out) {
    for (auto it = held_.begin(); it != held_.end();) {
      if (it->second.pid == e.pid && it->first != e.tid) {
        out(static_cast<const Event&>(it->second));
        ++let_go_;
        it = held_.erase(it);
      } else {
        ++it;
      }
    }
  }

  std::unordered_map<uint32_t, Event> held_;  // by thread id
  uint64_t folded_ = 0, folded_ns_ = 0, orphans_ = 0, let_go_ = 0;
};

}  // namespace fsr

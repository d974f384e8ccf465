// SPDX-License-Identifier: Apache-2.0
// Patterns in a trace whose calls depend on the speed or kind of the file
// system it was recorded on (issue 41 item 3). A replay reissues the calls
// the recording made; a real run on another mount would make others:
//
// - git's racily clean index entries. git compares a file's mtime with the
//   index's, in seconds: a file written in the same second as the index
//   written after it may have changed unseen, and the next `git status`
//   reads it whole to compare. On a fast mount a clone writes every file in
//   the index's second; on a slow one fewer share it, and a run there reads
//   fewer. Counted: opens for reading, after an index write (a rename onto
//   `.git/index`), of files last written in that index's wall-clock second.
// - extended-attribute probes answered "none here" (ENODATA): `ls -l` asks
//   for every file's ACL; a mount without xattrs answers EOPNOTSUPP and ls
//   stops after the first. Counted: get/list xattr calls that failed with
//   ENODATA.
// - a thread pool's jobs: node's libuv pool (npm, yarn, pnpm) runs each file
//   call a job at a time on one of its threads, each job taken after a futex
//   wait. Which thread takes a job, and when the loop hands out the next,
//   follow the recording mount's speed: on a fast one each job ends before
//   the next is handed out, so the recorded order serialises jobs that
//   overlap on a slow one. A replay keeps the recorded order. Counted: per
//   process, its non-leader threads' path calls that follow a futex wait
//   (a job's start).
//
// Fed every event in trace order; no I/O. The warnings say what a replay of
// this trace makes and why a real run elsewhere may differ; the behaviour
// diff of two recordings (report/compare.h) measures it.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "traces/event.h"

namespace fsr {

class SpeedHazards {
 public:
  using Lookup = std::function<std::string_view(StrId)>;
  // `wall_start_ns`: the trace's CLOCK_REALTIME at its start (TraceHeader),
  // which places its events in wall-clock seconds, as mtimes are.
  SpeedHazards(uint64_t wall_start_ns, Lookup str) : wall_(wall_start_ns), str_(std::move(str)) {}

  void add(const Event& e);

  uint64_t index_writes() const { return index_writes_; }
  uint64_t racy_files() const { return racy_files_; }      // files racily clean at some index write
  uint64_t racy_rereads() const { return racy_rereads_; }  // their opens for reading after it
  uint64_t xattr_probes() const { return xattr_nodata_; }
  // Thread pools: processes with at least kMinPoolThreads threads running jobs
  // (kMinPoolJobs jobs at least), their threads and their jobs.
  struct PoolTotals {
    uint64_t processes = 0, threads = 0, jobs = 0;
  };
  PoolTotals pools() const;

  // One line per pattern found at a size that matters (none when the trace
  // shows none): what this trace does and what a run elsewhere may do.
  std::vector<std::string> warnings() const;

  // Thresholds of warnings(): fewer re-reads or probes are not worth a line.
  static constexpr uint64_t kMinRereads = 20, kMinProbes = 100;
  static constexpr uint64_t kMinPoolThreads = 2, kMinPoolJobs = 100;

 private:
  struct Write {
    uint64_t end;
    StrId path;
  };
  uint64_t second_of(uint64_t ts) const { return (wall_ + ts) / 1'000'000'000ull; }
  void written(StrId path, uint64_t end);
  void index_written(std::string_view index_path, uint64_t end);
  void pool_call(const Event& e);
  struct Pool {
    std::unordered_map<uint32_t, uint64_t> jobs;  // thread -> jobs it took
    uint64_t total = 0;
  };
  bool is_pool(const Pool& p) const;

  uint64_t wall_;
  Lookup str_;
  std::deque<Write> recent_;                        // writes in time order, the last seconds' only
  std::unordered_map<StrId, uint64_t> last_write_;  // path -> end of its last write (the recent ones)
  std::unordered_set<StrId> racy_;                  // racily clean now (until written again)
  std::unordered_set<StrId> ever_racy_;             // racily clean at some index write
  uint64_t index_writes_ = 0, racy_files_ = 0, racy_rereads_ = 0, xattr_nodata_ = 0;
  std::unordered_set<uint32_t> waited_;       // threads whose last call was a futex wait
  std::unordered_map<uint32_t, Pool> pools_;  // by process
};

}  // namespace fsr

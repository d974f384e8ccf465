// SPDX-License-Identifier: Apache-2.0
// EventDecoder: turns kernel records (bpf/fsreplay_record.h) into fsr::Event
// with absolute, interned paths. Keeps what the kernel cannot tell us cheaply:
// per-process fd tables (fork copies, CLONE_FILES/threads share, exec drops
// close-on-exec fds) and cwd (chdir/fchdir; CLONE_FS shares), seeded for the
// first process from /proc. Records must be fed in completion (`end`) order.
// Allocates only for new processes, new fds slots and new distinct strings,
// never per event otherwise.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "recorder/core/inode_paths.h"
#include "recorder/core/fault_files.h"
#include "recorder/core/path_resolver.h"
#include "recorder/core/record_view.h"
#include "recorder/core/string_interner.h"
#include "traces/event.h"
#include "traces/trace_model.h"

namespace fsr {

struct SyscallInfo;

class EventDecoder {
 public:
  // `intern` is called once per distinct string and returns its id in the
  // trace (TraceWriter::add_string: the decoder keeps strings unique itself).
  // `pidns_inum`: the nsfs inode number of the recording's PID namespace
  // (the one whose pids the records carry; 0: unknown).
  using InternFn = StringInterner::InternFn;
  EventDecoder(uint64_t mono_start_ns, InternFn intern, uint64_t pidns_inum = 0);

  // Initial cwd and fds of an already running process (from /proc).
  void seed_process(const ProcessState& state);

  // Decodes one record of `size` bytes (bpf/fsreplay_record.h layout) into
  // `out`; false when it yields no event or does not parse.
  bool decode(const void* rec, size_t size, Event& out);

  // The string behind an id this decoder interned ("" when unknown).
  std::string_view str(StrId id) const { return strings_.str(id); }

  uint64_t unresolved_paths() const { return unresolved_; }

  // Every thread's gaps between its recorded calls (a call's exit to the
  // thread's next enter), summed: the time recorder overhead that is not in
  // a call can lie in (the trace footer's gaps_ns).
  uint64_t gaps_ns() const { return gaps_ns_; }

  // Fault records decoded (the trace footer's fault_records).
  uint64_t fault_records() const { return fault_records_; }

  // Whether the record decode() last took was a call that left a file's
  // release to its return (FSR_RF_RELEASE_PENDING): a release record of its
  // thread may follow (ReleaseFolder). A release record decodes into an
  // event of nr kEvDeferredRelease (release_folder.h): its ts the call's
  // exit, its dur the release's ns; never to be written as it is.
  bool release_pending() const { return release_pending_; }

  // Fault records are shown to `f` (fault_files.h: which files stop being
  // recorded); none when null.
  void set_fault_files(FaultFiles* f) { fault_files_ = f; }

  // Which paths are symlinks (the recorded root, the prestate's symlinks):
  // paths are resolved as the kernel walked them (path_resolver.h).
  PathResolver& paths() { return paths_; }

 private:
  struct FdSlot {
    StrId path = kNoStr;
    uint8_t used = 0;
    uint8_t cloexec = 0;
    uint8_t pipe = 0;
  };
  struct FileTable {
    std::vector<FdSlot> fds;
  };
  struct FsState {
    StrId cwd = kNoStr;
  };
  struct Task {
    std::shared_ptr<FileTable> files;
    std::shared_ptr<FsState> fs;
    StrId pending_exec = kNoStr;
    uint64_t pidns = 0;              // its PID namespace's inode number when below the recording's, else 0
    uint64_t last_end = UINT64_MAX;  // its latest call's exit (trace time; UINT64_MAX: none yet)
  };

  StrId intern(std::string_view s) { return strings_.intern(s); }
  Task& task(uint32_t pid, uint32_t tid);
  FdSlot* slot(Task& t, int64_t fd);
  void set_fd(Task& t, int64_t fd, StrId path, bool cloexec, bool pipe);
  StrId resolve(Task& t, int64_t dirfd, std::string_view p, bool* unresolved);
  StrId dir_id(StrId path);
  void dup_fd(Task& t, int64_t from, int64_t to, bool cloexec);
  bool decode(const RecordView& rec, Event& out);
  void decode_fork(const RecordView& rec, const Task& t, Event& e);
  void decode_fault(const RecordView& rec, Event& e);
  bool decode_syscall(const RecordView& rec, Task& t, const std::string_view (&paths)[2], Event& e);
  bool resolve_call_paths(const RecordView& rec, const SyscallInfo& info, Task& t, const std::string_view (&paths)[2],
                          Event& e);
  void apply(const RecordView& rec, Task& t, const Event& e);
  void apply_new_fds(const RecordView& rec, Task& t, const Event& e);
  void apply_fd_changes(const RecordView& rec, Task& t);
  void apply_path_changes(const RecordView& rec, Task& t, const Event& e);
  uint64_t note_ns_pids(const RecordView& rec);
  void map_ns_pids(const Task& t, Event& e);
  static uint64_t ns_key(uint64_t ns, uint64_t pid) { return ns << 32 | (pid & 0xffffffffu); }

  uint64_t mono_start_;
  uint64_t pidns_inum_;
  StringInterner strings_;
  std::unordered_map<uint32_t, Task> tasks_;
  // (namespace below the recording's, pid there) -> pid in the recording's.
  std::unordered_map<uint64_t, uint32_t> ns_pids_;
  InodePaths inode_paths_;  // for page faults: the file behind a (dev, ino)
  PathResolver paths_;
  std::string scratch_;
  RecordView view_;
  uint64_t unresolved_ = 0;
  uint64_t gaps_ns_ = 0;
  uint64_t fault_records_ = 0;
  bool release_pending_ = false;
  FaultFiles* fault_files_ = nullptr;
  std::array<uint8_t, FSR_MAX_NR> arity_{};
};

}  // namespace fsr

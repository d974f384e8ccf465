// SPDX-License-Identifier: Apache-2.0
// BpfSession: the loaded and attached kernel side of the recorder. Owns the
// skeleton (RAII) and the mappings of the per-CPU lanes (bpf/fsreplay_record.h)
// that it drains. Fills the skeleton's rodata from fsr::syscall_table() before load, so
// the BPF program never hard-codes a syscall number. Must never be shared
// between threads: one session, one draining thread.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "recorder/core/bpf_options.h"
#include "recorder/core/program_plan.h"
#include "base/unique_fd.h"
#include "base/status.h"
#include "traces/trace_model.h"

struct fsr_bpf;
struct fsr_lane_ctl;

namespace fsr {

struct KernelCounters {
  std::array<uint64_t, kClassCount> seen{};
  std::array<uint64_t, kClassCount> drops{};
  uint64_t string_drops = 0;
  uint64_t io_uring = 0;
  uint64_t prog_misses = 0;       // program runs the kernel skipped (recursion)
  uint64_t lane_nested = 0;       // records refused by a lane already being written (never expected)
  uint64_t early_rewinds = 0;     // lanes rewound while not empty (bpf/fsreplay_record.h)
  uint64_t foreign_children = 0;  // children outside the recording's PID namespace: not followed
  bool lane_damage = false;       // a frame with an impossible length was met (the rest of that drain skipped)
  // CPU time the recorder's threads ran in place of a runnable tracked task
  // (bpf/sched_switch.bpf.c); meaningful only when stolen_measured.
  uint64_t stolen_ns = 0;
  bool stolen_measured = false;
  // User page faults of tracked tasks that have exited, and the file faults
  // of them that fault_skip left out (bpf/fsreplay_record.h FSR_CNT_FAULTS).
  uint64_t user_faults = 0;
  uint64_t fault_skips = 0;
  // Deferred releases that blocked, recorded, and those whose record was
  // lost (bpf/record_release.bpf.h).
  uint64_t releases = 0;
  uint64_t release_drops = 0;
};

// Called for every record, in lane order of one CPU. `cpu` is the lane index;
// `data` stays valid until the lane is freed past `next`, the position just
// past the record's frame (free_through).
using RecordFn = int (*)(void* ctx, uint32_t cpu, const void* data, size_t size, uint64_t next);

class BpfSession {
 public:
  // Probes the kernel (bpf_features.h), plans the program variants, loads and
  // attaches. Errors are one line.
  static Result<std::unique_ptr<BpfSession>> open(const BpfOptions& options, RecordFn fn, void* ctx);
  ~BpfSession();
  BpfSession(const BpfSession&) = delete;
  BpfSession& operator=(const BpfSession&) = delete;

  // Adds a process (by its pid in the recorder's PID namespace) to the
  // in-kernel filter.
  Status track(uint32_t tgid);
  // Lets sys_enter find tracked tasks that have no task storage through the
  // tracked hash (costs every untracked task one more lookup). Needed for
  // --pid, whose threads predate the recording.
  void enable_lazy_tracking();
  // Stops recording the faults of the file with this inode identity (the
  // kernel side's fault_skip); false when that table is full. `skip` false
  // records them again.
  bool skip_faults_of(uint32_t dev, uint64_t ino, uint32_t gen, bool skip = true);

  // The page-fault programs time themselves while `on` (the kernel side's
  // time_faults): fault_programs_run_ns() is their run time so far, summed
  // (fault_cost.cpp's passes; not the kernel's BPF run-time stats, which
  // patch every program's dispatch machine-wide and need CAP_SYS_ADMIN).
  void time_fault_programs(bool on);
  uint64_t fault_programs_run_ns() const;
  // True while `tgid` is in the filter (removed by the kernel on group exit).
  bool tracked(uint32_t tgid) const;
  size_t tracked_count() const;
  // Drops filter entries of processes that no longer exist. A process of a
  // --pid tree can exit between the walk that finds it and its entry being
  // added; the kernel's exit program then never saw it tracked, and its entry
  // would keep the recording open for ever. Returns how many were dropped.
  size_t forget_exited();

  // Reads every record not read yet in every lane (no wake-ups are used).
  // The records stay in the lanes until free_through.
  Status consume();
  // Gives lane `cpu` back to the writer up to position `pos` (a `next` of
  // RecordFn, or read_through(cpu)).
  void free_through(uint32_t cpu, uint64_t pos);
  // The position up to which lane `cpu` has been read.
  uint64_t read_through(uint32_t cpu) const { return cpu < read_pos_.size() ? read_pos_[cpu] : 0; }
  // Bytes the fullest lane held at the last consume() (frames and skips).
  uint64_t last_peak_bytes() const { return last_peak_bytes_; }
  // The lanes now: the most bytes of records any holds, and the least free
  // space any has (after an early rewind, only the lane's start up to the
  // reader's tail is free until the reader takes the jump: fsreplay_record.h).
  // Only reads the lanes' positions: the one call another thread may make
  // while the draining thread works.
  struct LaneLoad {
    uint64_t fill = 0;
    uint64_t room = 0;
  };
  LaneLoad lane_load_now() const;
  uint64_t lane_bytes() const { return lane_bytes_; }
  // The early-rewind threshold the lanes use (bytes).
  uint64_t lane_window() const { return lane_window_; }

  KernelCounters counters() const;
  uint32_t cpu_count() const { return ncpu_; }
  // Non-fatal problems found while attaching (e.g. page faults not available).
  const std::string& warnings() const { return warnings_; }
  // The program variants chosen (which fallbacks).
  const ProgramPlan& plan() const { return plan_; }

 private:
  BpfSession() = default;
  struct SkelDeleter {
    void operator()(fsr_bpf* s) const;
  };
  // A shared mapping of a BPF array map (BPF_F_MMAPABLE).
  struct MapMem {
    void* addr = nullptr;
    size_t len = 0;
    MapMem() = default;
    MapMem(const MapMem&) = delete;
    MapMem& operator=(const MapMem&) = delete;
    ~MapMem();
  };
  std::unique_ptr<fsr_bpf, SkelDeleter> skel_;
  MapMem lanes_, ctl_;
  uint32_t ncpu_ = 0;
  uint32_t segs_per_lane_ = 0;
  uint64_t lane_bytes_ = 0;
  uint64_t lane_window_ = 0;
  uint64_t last_peak_bytes_ = 0;
  std::vector<uint64_t> read_pos_;  // per lane: where the next consume() reads
  bool lane_damage_ = false;
  std::string warnings_;
  void size_lanes(uint32_t buffer_mib);
  Status map_lanes(uint32_t buffer_mib);
  Status attach_programs(std::string& fentry_refused);
  static Result<std::unique_ptr<BpfSession>> open_without_fentry(const BpfOptions& options, RecordFn fn, void* ctx,
                                                                 const std::string& why);
  ProgramPlan plan_;
  RecordFn fn_ = nullptr;
  void* ctx_ = nullptr;
  fsr_lane_ctl* lane_ctl(uint32_t cpu) const;
};

}  // namespace fsr

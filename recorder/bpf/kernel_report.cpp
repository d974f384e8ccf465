// SPDX-License-Identifier: Apache-2.0
#include "recorder/bpf/kernel_report.h"

#include <fmt/format.h>

namespace fsr {

void copy_kernel_counts(const KernelCounters& k, TraceFooter& f) {
  f.seen = k.seen;
  f.drops = k.drops;
  f.io_uring_submissions = k.io_uring;
  f.string_drops = k.string_drops;
  f.recorder_stolen_ns = k.stolen_ns;
  f.stolen_measured = k.stolen_measured;
  f.user_faults = k.user_faults;
  f.fault_skips = k.fault_skips;
  f.release_drops = k.release_drops;
}

void note_kernel_problems(const KernelCounters& k, std::vector<std::string>& warnings, TraceFooter& f) {
  if (k.prog_misses) {
    warnings.push_back(fmt::format("{} BPF program runs were skipped by the kernel (recursion): events may be missing",
                                   k.prog_misses));
    f.notes += fmt::format("bpf recursion misses: {}\n", k.prog_misses);
  }
  if (k.lane_nested) {
    warnings.push_back(fmt::format(
        "{} records refused: a BPF program wrote a lane another one was writing (counted as drops)", k.lane_nested));
    f.notes += fmt::format("lane nested writes: {}\n", k.lane_nested);
  }
  if (k.lane_damage) {
    warnings.emplace_back("a damaged lane frame was met: records after it in that drain were skipped");
    f.notes += "lane damage: records skipped\n";
  }
  if (k.foreign_children) {
    warnings.push_back(
        fmt::format("{} processes were started in a PID namespace outside the recording's: "
                    "not followed, their events are not in the trace",
                    k.foreign_children));
    f.notes += fmt::format("children outside the PID namespace, not followed: {}\n", k.foreign_children);
  }
  if (k.release_drops) {
    warnings.push_back(
        fmt::format("{} deferred file releases lost their record (lanes full): those stay in the gaps after their "
                    "calls, where a replay pays them a second time",
                    k.release_drops));
    f.notes += fmt::format("deferred release records lost: {}\n", k.release_drops);
  }
  if (k.io_uring) {
    warnings.push_back(fmt::format(
        "{} io_uring calls: their I/O is not in the trace (libuv tools: set UV_USE_IO_URING=0)", k.io_uring));
    f.notes += "io_uring used: its I/O is not in the trace\n";
  }
}

}  // namespace fsr

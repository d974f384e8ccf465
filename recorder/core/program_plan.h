// SPDX-License-Identifier: Apache-2.0
// Which variant of each recorder program runs, decided from what the
// kernel has (KernelFeatures, probed by bpf_features.h) and the options: a
// fallback where one exists, else a one-line refusal naming what is missing.
// Pure: no kernel access, so every combination is unit-tested.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "recorder/core/pid_namespace.h"
#include "base/status.h"

namespace fsr {

// Optional and required pieces, by the names the header, `record --verbose`
// and FSREPLAY_RECORD_WITHOUT use.
inline constexpr const char* kFeatTaskStorage = "map/task_storage";
inline constexpr const char* kFeatFindVma = "helper/find_vma";
inline constexpr const char* kFeatCurrentTaskBtf = "helper/get_current_task_btf";
inline constexpr const char* kFeatPageFaultUser = "tp_btf/page_fault_user";
inline constexpr const char* kFeatFilemapFault = "tp_btf/mm_filemap_fault";
inline constexpr const char* kFeatFilemapMapPages = "tp_btf/mm_filemap_map_pages";
// fentry on the two functions those tracepoints are in (BTF of the functions
// and the kernel's BPF trampolines; an attach the kernel refuses, as without
// ftrace, falls back to the VMA lookup).
inline constexpr const char* kFeatFentryFilemap = "fentry/filemap_fault";
// The tracepoints the recorder cannot do without.
inline constexpr const char* kRequiredTracepoints[] = {"tp_btf/sys_enter", "tp_btf/sys_exit",
                                                       "tp_btf/sched_process_fork", "tp_btf/sched_process_exec",
                                                       "tp_btf/sched_process_exit"};
// Every name above (what FSREPLAY_RECORD_WITHOUT accepts).
std::vector<std::string> known_features();

struct KernelFeatures {
  std::set<std::string> present;  // feature names (above) the kernel has
  std::set<std::string> forced;   // ... of those, treated as absent (FSREPLAY_RECORD_WITHOUT)
  bool has(const std::string& f) const { return present.count(f) != 0 && forced.count(f) == 0; }
};

// Where the file page-fault records come from.
enum class FaultSource { kFilemapTracepoints, kFentry, kVmaLookup, kOff };
// Where the per-task state lives.
enum class TaskStateStore { kTaskStorage, kHash };

struct ProgramPlan {
  TaskStateStore task_state = TaskStateStore::kTaskStorage;
  FaultSource faults = FaultSource::kOff;
  std::string faults_off_reason;  // when faults is kOff
  bool find_vma = false;          // bpf_find_vma: file mappings on overlayfs get the mapped file's facts
  std::string fentry_refused;     // the kernel refused the fentry programs (why), so kVmaLookup
  PidNamespace pidns;
  std::set<std::string> forced;  // features forced off
  // "name=value" lines, for the trace header and `record --verbose`.
  std::vector<std::string> describe() const;
};

// Chooses the program variants for `f` in namespace `ns`, recording page
// faults if `page_faults`. Fails naming the first missing piece the recorder
// cannot do without.
Result<ProgramPlan> plan_programs(const KernelFeatures& f, const PidNamespace& ns, bool page_faults);

// Parses FSREPLAY_RECORD_WITHOUT's value: names separated by ','. Unknown
// names are an error listing the known ones.
Result<std::set<std::string>> parse_feature_list(const std::string& text);

}  // namespace fsr

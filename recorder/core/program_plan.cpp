// SPDX-License-Identifier: Apache-2.0
#include "recorder/core/program_plan.h"

#include <fmt/format.h>

namespace fsr {

std::vector<std::string> known_features() {
  std::vector<std::string> v = {kFeatTaskStorage,  kFeatFindVma,         kFeatCurrentTaskBtf, kFeatPageFaultUser,
                                kFeatFilemapFault, kFeatFilemapMapPages, kFeatFentryFilemap};
  for (const char* t : kRequiredTracepoints) v.emplace_back(t);
  return v;
}

Result<ProgramPlan> plan_programs(const KernelFeatures& f, const PidNamespace& ns, bool page_faults) {
  auto missing = [&](const std::string& what, const std::string& why) {
    const bool forced = f.forced.count(what) != 0;
    return Status::error(fmt::format("the kernel lacks {} ({}){}: the recorder needs Linux 6.1 or later with "
                                     "CONFIG_DEBUG_INFO_BTF",
                                     what, why, forced ? ", forced off by FSREPLAY_RECORD_WITHOUT" : ""),
                         StatusCode::kUnsupported);
  };
  for (const char* t : kRequiredTracepoints)
    if (!f.has(t)) return missing(t, "the BTF of a tracepoint the recorder attaches to");
  if (!f.has(kFeatCurrentTaskBtf)) return missing(kFeatCurrentTaskBtf, "a BPF helper of Linux 5.11");
  ProgramPlan p;
  p.pidns = ns;
  p.forced = f.forced;
  p.task_state = f.has(kFeatTaskStorage) ? TaskStateStore::kTaskStorage : TaskStateStore::kHash;
  p.find_vma = f.has(kFeatFindVma);
  if (!page_faults) {
    p.faults = FaultSource::kOff;
    p.faults_off_reason = "--no-page-faults";
  } else if (!f.has(kFeatPageFaultUser)) {
    p.faults = FaultSource::kOff;
    p.faults_off_reason = std::string("no ") + kFeatPageFaultUser;
  } else if (f.has(kFeatFilemapFault) && f.has(kFeatFilemapMapPages)) {
    p.faults = FaultSource::kFilemapTracepoints;
  } else if (f.has(kFeatFentryFilemap)) {
    p.faults = FaultSource::kFentry;
  } else if (f.has(kFeatFindVma)) {
    p.faults = FaultSource::kVmaLookup;
  } else {
    p.faults = FaultSource::kOff;
    p.faults_off_reason = fmt::format("no {} nor {}", kFeatFilemapFault, kFeatFindVma);
  }
  return p;
}

std::vector<std::string> ProgramPlan::describe() const {
  std::vector<std::string> out;
  out.push_back(std::string("task_state=") +
                (task_state == TaskStateStore::kTaskStorage ? "task_storage" : "hash (no task storage)"));
  switch (faults) {
    case FaultSource::kFilemapTracepoints:
      out.emplace_back("page_faults=filemap_tracepoints");
      break;
    case FaultSource::kFentry:
      out.emplace_back("page_faults=fentry (no filemap fault tracepoints: fentry on filemap_fault, filemap_map_pages)");
      break;
    case FaultSource::kVmaLookup:
      out.emplace_back(fentry_refused.empty()
                           ? "page_faults=vma_lookup (no filemap fault tracepoints nor fentry on filemap_fault)"
                           : "page_faults=vma_lookup (no filemap fault tracepoints; the kernel refused fentry on "
                             "filemap_fault, " +
                                 fentry_refused + ")");
      break;
    case FaultSource::kOff:
      out.push_back("page_faults=off (" + faults_off_reason + ")");
      break;
  }
  if (!find_vma)
    out.emplace_back("overlay_mmaps=fd_inode (no helper/find_vma: faults on overlayfs files lose their path)");
  out.push_back(
      fmt::format("pid_namespace={} (inode {})", pidns.initial() ? "initial" : "below the initial one", pidns.inum));
  if (!forced.empty()) {
    std::string s;
    for (const std::string& f : forced) s += (s.empty() ? "" : ",") + f;
    out.push_back("forced_off=" + s);
  }
  return out;
}

Result<std::set<std::string>> parse_feature_list(const std::string& text) {
  std::set<std::string> out;
  const std::vector<std::string> known = known_features();
  size_t a = 0;
  while (a <= text.size()) {
    size_t b = text.find(',', a);
    if (b == std::string::npos) b = text.size();
    std::string name = text.substr(a, b - a);
    a = b + 1;
    if (name.empty()) continue;
    bool ok = false;
    for (const std::string& k : known) ok = ok || k == name;
    if (!ok) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      return Status::error(fmt::format("FSREPLAY_RECORD_WITHOUT: unknown feature '{}' (known: {})", name, list),
                           StatusCode::kInvalidInput);
    }
    out.insert(name);
  }
  return out;
}

}  // namespace fsr

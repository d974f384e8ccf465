// SPDX-License-Identifier: Apache-2.0
#include "recorder/bpf/bpf_features.h"

#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

#include <fmt/format.h>

namespace fsr {
namespace {

constexpr const char* kVmlinuxBtf = "/sys/kernel/btf/vmlinux";

// A user namespace other than the initial one maps only part of the uid
// range: BPF needs capabilities in the initial one, which no process in it has.
bool in_user_namespace() {
  std::ifstream in("/proc/self/uid_map");
  uint64_t inside = 0, outside = 0, count = 0;
  if (!(in >> inside >> outside >> count)) return false;
  return !(inside == 0 && outside == 0 && count == 4294967295ull);
}

struct BtfDeleter {
  void operator()(btf* b) const { btf__free(b); }
};

}  // namespace

Result<KernelFeatures> probe_kernel(const std::set<std::string>& without) {
  if (access(kVmlinuxBtf, R_OK) != 0)
    return Status::error(fmt::format("kernel BTF missing ({}): the recorder needs a kernel built with "
                                     "CONFIG_DEBUG_INFO_BTF=y",
                                     kVmlinuxBtf),
                         StatusCode::kUnsupported);
  // The probes load tiny programs: a refusal of this one is a refusal of the
  // recorder (libbpf's probes answer 0 for it, not why).
  const bpf_insn ret0[] = {{BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0}, {BPF_JMP | BPF_EXIT, 0, 0, 0, 0}};
  const int fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, nullptr, "GPL", ret0, 2, nullptr);
  if (fd < 0) {
    const int err = errno;
    if ((err == EPERM || err == EACCES) && in_user_namespace())
      return Status::error(
          "loading BPF programs was refused: the recorder runs in a user namespace, where root has no "
          "CAP_BPF in the initial one; run fsreplay record as real root outside it, around the command "
          "that enters the namespace",
          StatusCode::kNoPrivilege);
    if (err == EPERM || err == EACCES)
      return Status::error("loading BPF programs was refused: run as root (sudo) or with CAP_BPF and CAP_PERFMON",
                           StatusCode::kNoPrivilege);
    return Status::error(fmt::format("the kernel does not load raw tracepoint BPF programs ({}): the recorder needs "
                                     "CONFIG_BPF_SYSCALL and CONFIG_BPF_EVENTS",
                                     strerror(err)),
                         StatusCode::kUnsupported);
  }
  close(fd);

  KernelFeatures f;
  f.forced = without;
  std::unique_ptr<btf, BtfDeleter> vmlinux(btf__load_vmlinux_btf());
  if (!vmlinux) return Status::error(fmt::format("{}: cannot be parsed: {}", kVmlinuxBtf, strerror(errno)));
  auto tracepoint = [&](const std::string& feature) {
    const std::string name = "btf_trace_" + feature.substr(feature.find('/') + 1);
    if (btf__find_by_name_kind(vmlinux.get(), name.c_str(), BTF_KIND_TYPEDEF) > 0) f.present.insert(feature);
  };
  for (const char* t : kRequiredTracepoints) tracepoint(t);
  tracepoint(kFeatPageFaultUser);
  tracepoint(kFeatFilemapFault);
  tracepoint(kFeatFilemapMapPages);
  // (Whether the kernel gives them a trampoline shows only at attach:
  // BpfSession::open falls back when it does not.)
  if (btf__find_by_name_kind(vmlinux.get(), "filemap_fault", BTF_KIND_FUNC) > 0 &&
      btf__find_by_name_kind(vmlinux.get(), "filemap_map_pages", BTF_KIND_FUNC) > 0)
    f.present.insert(kFeatFentryFilemap);
  // tp_btf programs get the raw tracepoint helper set and more, so a raw
  // tracepoint probe answers for the helpers the programs call.
  auto helper = [&](const char* feature, bpf_func_id id) {
    if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT, id, nullptr) == 1) f.present.insert(feature);
  };
  helper(kFeatCurrentTaskBtf, BPF_FUNC_get_current_task_btf);
  helper(kFeatFindVma, BPF_FUNC_find_vma);
  if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, nullptr) == 1 &&
      libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT, BPF_FUNC_task_storage_get, nullptr) == 1)
    f.present.insert(kFeatTaskStorage);
  return f;
}

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// Re-issues one planned op against the replay roots: the syscall the recorded
// event made, with its recorded sizes, offsets and flags, on the mapped path or
// on the real fd that replaced the recorded one. Every path is opened beneath
// its root (resolver.h); mutating calls reach their target through a parent
// directory opened beneath the root, so no symlink can lead them outside.
// Missing features take their fallback (features.h). Never allocates.
// The calls are split by family: names and attributes (exec_files.cpp), open
// files (exec_io.cpp), mappings (address_space.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "replayer/exec/address_space.h"
#include "replayer/exec/dir_cache.h"
#include "replayer/exec/features.h"
#include "replayer/plan/plan.h"
#include "replayer/exec/resolver.h"
#include "traces/event.h"

namespace fsr {

struct ExecEnv {
  int root[2] = {-1, -1};  // Root::kTarget, Root::kScratch
  // Their absolute paths, for the read-only calls that take a path and no
  // directory fd (xattrs): one walk instead of an fd opened beneath the root
  // and named through /proc. Empty: through /proc.
  std::string root_path[2];
  // Both, for walks through a link from one root into the other (resolver.h).
  const LinkRoots links{root, root_path, 2};
  // Bumped by every rename and rmdir: the parent directories the workers'
  // caches hold may name other directories now (dir_cache.h).
  std::atomic<uint64_t> tree_gen{0};
  // Walks as passed (plan.h): an absolute path is walked from the root of
  // the mount its root lies on, through the root's own components (`prefix`,
  // "a/b/target"), as a workload run there walks it. -1: from the root's fd.
  int anchor[2] = {-1, -1};
  std::string anchor_prefix[2];
  const Features* features = nullptr;
  const Plan* plan = nullptr;  // its window: ops and events by index (plan.h)
  std::vector<int> ofd_fd;     // real fd per OFD slot (-1: none)
  // The replayed processes' file mappings. An address space's are unmapped
  // when its last recorded thread leaves it (exit, exec): the replay never
  // holds more than the processes alive at that point of the trace mapped.
  ReplayMappings maps;
  // The buffer the workers share for calls larger than their own buffers (a
  // linker's 11 MiB write of its output): filler for writes, a sink for reads
  // whose bytes nobody looks at. One for the replay instead of one per
  // worker: a git build's 13 workers each held 11.6 MiB for a few calls.
  // Null: each call fits the worker's buffer.
  char* big_buf = nullptr;
  uint64_t big_buf_size = 0;
};

// Each worker's own buffer holds at most this much; larger calls use
// ExecEnv::big_buf.
inline constexpr uint64_t kWorkerBufMax = 1ull << 20;

// Sizes the tables of `env`: the plan's OFD slots and mappings at most, and
// per address space the threads that leave it (the survey's counts).
void init_exec_env(ExecEnv& env, size_t ofds, const std::vector<uint32_t>& space_threads, size_t maps);
// The same for a whole plan (build_plan).
void init_exec_env(ExecEnv& env);

// Largest read/write/copy a worker buffer must hold for a whole plan (capped).
uint64_t max_io_size(const Plan& plan);

// Issues op `i`; returns the result (negative errno on failure). `buf` is the
// worker's reusable filler/read buffer of `buf_size` bytes (a larger call uses
// env.big_buf when there is one). Sets kOfFallback /
// kOfSkipped in `op_flags` when it took a fallback or could not issue the call.
// `dirs`: the calling thread's cache of parent directories (none: each call
// opens its own).
int64_t execute_op(uint32_t i, ExecEnv& env, char* buf, uint64_t buf_size, uint16_t& op_flags,
                   DirCache* dirs = nullptr);

// Real closes this op triggers (last references dropped by exec, exit, dup2),
// and, for an exit or exec, the end of its address space.
void apply_closes(uint32_t i, ExecEnv& env);

// Closes every real fd and unmaps every mapping still open (end of replay).
void release_all(ExecEnv& env);

}  // namespace fsr

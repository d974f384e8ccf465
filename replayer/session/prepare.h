// SPDX-License-Identifier: Apache-2.0
// Prestate materialisation: makes, under target and scratch, the tree that
// tree_spec.h describes — directories, files of the recorded size filled with
// data (never sparse; large writes; in parallel), symlinks and hard links.
// Idempotent: entries that already match are kept; paths the trace itself
// creates are removed, so that a tree can be reset after a replay and
// replayed again. Everything goes through resolver.h; nothing outside the two
// roots is touched.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "replayer/exec/features.h"
#include "replayer/plan/tree_spec.h"
#include "base/status.h"
#include "traces/trace_model.h"

namespace fsr {

struct PrepareStats {
  uint64_t dirs = 0, files = 0, symlinks = 0, links = 0, removed = 0, kept = 0;
  uint64_t bytes = 0;
  // Entries whose parent could not be resolved as a directory (paths the
  // recorder saw through a symlinked directory, resolved lexically): not made,
  // counted; ops that need them show up as divergences.
  uint64_t unmade = 0;
  std::string first_unmade;
  // run_prepare: damage found in the trace (prepared from what was readable).
  std::vector<std::string> trace_problems;
};

using ProgressFn = std::function<void(uint64_t done, uint64_t total)>;

// Which roots' entries to make (and created paths to remove): a mask of root_bit()s.
inline constexpr unsigned root_bit(Root r) { return 1u << static_cast<unsigned>(r); }
inline constexpr unsigned kBothRoots = root_bit(Root::kTarget) | root_bit(Root::kScratch);

// Makes the tree match `spec` in the roots `which` names; `roots` are open
// directory fds (Root order). Holds nothing per entry: memory is the spec's.
// `stoppable`: a stop (interrupt.h) ends it early with a kInterrupted error,
// the tree half made (the reset after a replay is not stoppable).
Result<PrepareStats> materialise(const TreeSpec& spec, const int roots[2], const Features& f, unsigned threads,
                                 const ProgressFn& progress, unsigned which = kBothRoots, bool stoppable = false);

// Removes `base` in directory `pfd`, recursively, never following a
// symlink; 0 (also when it was not there) or -errno.
int remove_tree_at(int pfd, const char* base);

// Before anything is made: root `which` (the target or the scratch, open as
// `fd`, named `path`) must be writable by this process with room for the
// part of the tree `spec` needs there. Fails with one line naming the
// directory and what to do, for a read-only mount and a full one (space or
// inodes; a hostile trace's 1 TiB file too): a replay there would diverge in
// most of its ops and measure nothing. (Whether this user may write there
// is found by the marker's creation: target_guard.h.) A file
// system that reports no size (f_blocks 0, e.g. FUSE without statfs) is not
// refused: `warning` says its room is unknown.
Status check_root_writable(int fd, const std::string& path, const TreeSpec& spec, Root which,
                           std::string* warning = nullptr);

// The error for a root this process cannot create entries in (errno `e`
// from the first attempt: EROFS, ENOSPC, EACCES, ...); `opt` is the option
// that chooses another.
Status unwritable_root(const std::string& what, const std::string& path, int e, const std::string& opt);

// The target's symlinks into the scratch (absolute links the original had
// to paths outside its root) made to point into this replay's scratch,
// spec.scratch_dir: a prepared target's links name the scratch of the run
// that prepared it, gone since. The only change --no-prepare makes before
// the clock (no data is written). How many were made again.
Result<uint64_t> repoint_scratch_links(const TreeSpec& spec, const int roots[2], const Features& f);

// Checks the tree matches `spec` (kinds, sizes, absence of created paths) and
// that no symlink in it points outside its root. First mismatch as an error.
Status verify_tree(const TreeSpec& spec, const int roots[2], const Features& f);

}  // namespace fsr

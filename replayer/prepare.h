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

#include "replayer/features.h"
#include "replayer/tree_spec.h"
#include "traces/status.h"
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
};

using ProgressFn = std::function<void(uint64_t done, uint64_t total)>;

// Which roots' entries to make (and created paths to remove): a mask of root_bit()s.
inline constexpr unsigned root_bit(Root r) { return 1u << static_cast<unsigned>(r); }
inline constexpr unsigned kBothRoots = root_bit(Root::kTarget) | root_bit(Root::kScratch);

// Makes the tree match `spec` in the roots `which` names; `roots` are open
// directory fds (Root order). Holds nothing per entry: memory is the spec's.
Result<PrepareStats> materialise(const TreeSpec& spec, const int roots[2], const Features& f,
                                 unsigned threads, const ProgressFn& progress, unsigned which = kBothRoots);

// Before anything is made: the target (open as `fd`, named `path`) must be
// writable by this process with room for the tree `spec` needs. Fails with
// one line naming the target and what to do, for a read-only mount, a full
// one (space or inodes) and a directory this user cannot write: a replay
// there would diverge in most of its ops and measure nothing.
Status check_target_writable(int fd, const std::string& path, const TreeSpec& spec);

// Checks the tree matches `spec` (kinds, sizes, absence of created paths) and
// that no symlink in it points outside its root. First mismatch as an error.
Status verify_tree(const TreeSpec& spec, const int roots[2], const Features& f);

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// slowfs_ops: the libfuse3 low-level operations of slowfs — a pass-through to
// the backing directory that first sleeps for the operation's class latency.
//
// Low-level API so that lookups are their own class and unlinked open files
// keep working (inodes are O_PATH fds, see slowfs_inodes). Handlers never
// throw and answer -errno exactly as the backing file system did.
#pragma once

#define FUSE_USE_VERSION 314
#include <fuse3/fuse_lowlevel.h>

#include "emulators/slowfs/slowfs_config.h"
#include "emulators/slowfs/slowfs_inodes.h"
#include "emulators/slowfs/slowfs_opcounts.h"

namespace fsr {

struct SlowfsState {
  SlowfsOptions options;
  InodeTable inodes;
  ClassCounters counters;
  OpCounters op_counts;          // per FUSE opcode, for --op-stats
  bool chown_new_files = false;  // running as root: give new objects to the caller
};

// Operations table; pass a SlowfsState* as fuse_session_new()'s user data.
const fuse_lowlevel_ops& slowfs_operations();

}  // namespace fsr

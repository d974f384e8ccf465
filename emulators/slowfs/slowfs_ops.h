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
#include "emulators/slowfs/slowfs_server.h"

namespace fsr {

struct SlowfsState {
  SlowfsOptions options;
  InodeTable inodes;
  ClassCounters counters;
  OpCounters op_counts;          // per FUSE opcode, for --op-stats
  ServerModel server;            // --server-slots, --bandwidth; --server-stats
  bool chown_new_files = false;  // running as root: give new objects to the caller
};

// One request in service, for the handler's whole body: takes a server slot
// (waiting in FIFO order while all are busy), counts the request and sleeps
// for its class; gives the slot back on leaving scope, after the reply.
class Served {
 public:
  // Counted before the reply, so a caller's finished syscall is counted.
  Served(fuse_req_t req, OpClass c, FuseOp op) : state_(*static_cast<SlowfsState*>(fuse_req_userdata(req))) {
    state_.server.enter();
    state_.op_counts.add(op);
    state_.counters.add(c, inject_latency(state_.options.latency[c]));
  }
  ~Served() { state_.server.leave(); }
  Served(const Served&) = delete;
  Served& operator=(const Served&) = delete;
  SlowfsState& state() { return state_; }

 private:
  SlowfsState& state_;
};

// Operations table; pass a SlowfsState* as fuse_session_new()'s user data.
const fuse_lowlevel_ops& slowfs_operations();

}  // namespace fsr

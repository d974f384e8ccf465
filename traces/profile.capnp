# SPDX-License-Identifier: Apache-2.0
# fsreplay profile payload (payload kind 3): a mount's latency distributions
# measured by `fsreplay probe` (traces/profile.h). The file is the ordinary
# container (schema.capnp): file header, a Header frame (kind 3, the
# environment fingerprint in environmentJson), one frame of type 8 holding a
# Profile message, then footer, index and trailer.
#
# profileVersion is the version of this message (2: adds kind 27, stat of a
# just-written file; 3: adds the server model; a reader also reads 1 and 2,
# as profiles without those); a reader refuses another one (its cases could
# mean something else) and says to probe again.

@0xeeba6d964f4a22a7;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("fsr::wire");

# One measured case: an operation kind (ProbeKind in profile.h, by number),
# its temperature (0 warm, 1 cold, 2 stale: touched `param` ms before) and
# its parameter (path depth, bytes, ...), with the latency distribution as
# equal-probability bins: bins[i] is the quantile at (i + 0.5) / len(bins).
struct ProfileCase {
  kind @0 :UInt16;
  temp @1 :UInt8;
  param @2 :UInt64;
  count @3 :UInt64;
  sumNs @4 :UInt64;
  minNs @5 :UInt64;
  maxNs @6 :UInt64;
  bins @7 :List(UInt64);
}

# One point of probe's concurrency sweep: `streams` threads issuing a case
# (kind as in ProfileCase) back to back for wallNs, `ops` calls in all.
struct ConcurrencyPoint {
  kind @0 :UInt16;
  streams @1 :UInt32;
  ops @2 :UInt64;
  wallNs @3 :UInt64;
  medianNs @4 :UInt64;  # one call's median latency at that concurrency
  param @5 :UInt64;     # bytes of a read or write; 0 for the others
  direct @6 :Bool;      # opened O_DIRECT
}

# The mount as a server (issue 45): how many requests it serves at once and
# each one's service time, fitted on the sweep, and its bandwidths (bytes/s;
# 0: not measured).
struct ServerModel {
  slots @0 :UInt32;      # 0: not measured (probe --quick, or an older probe); 2^32-1: no limit seen
  serviceNs @1 :UInt64;
  sweep @2 :List(ConcurrencyPoint);
  readBwDirect @3 :UInt64;
  writeBwDirect @4 :UInt64;
  readBwBuffered @5 :UInt64;
  writeBwBuffered @6 :UInt64;
  fitNote @7 :Text;      # how the fit went, in one line
}

struct Profile {
  profileVersion @0 :UInt16;
  name @1 :Text;                 # what the user called it (default: the mount kind)
  target @2 :Text;               # the probed directory
  environmentJson @3 :Text;      # `detect` fingerprint of the target
  startedWallNs @4 :UInt64;
  durationNs @5 :UInt64;         # how long the probe ran
  syscallOverheadNs @6 :UInt64;  # getppid round trip on the probing machine
  refDepth @7 :UInt32;           # path depth (below the target) of the probe's files
  cacheLifetimeNs @8 :UInt64;    # metadata cached this long after a touch (2^64-1: no expiry seen)
  coldMeasured @9 :Bool;         # cold cases measured (caches dropped: root)
  notes @10 :List(Text);
  cases @11 :List(ProfileCase);
  rounds @12 :UInt32;
  busyCpus @13 :UInt32;          # other CPUs kept busy by spinners at nice 19 while it measured (0: left idle)
  server @14 :ServerModel;       # absent before version 3
}

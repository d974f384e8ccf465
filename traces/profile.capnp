# fsreplay profile payload (payload kind 3): a mount's latency distributions
# measured by `fsreplay probe` (traces/profile.h). The file is the ordinary
# container (schema.capnp): file header, a Header frame (kind 3, the
# environment fingerprint in environmentJson), one frame of type 8 holding a
# Profile message, then footer, index and trailer.
#
# profileVersion is the version of this message (2: adds kind 27, stat of a
# just-written file; a reader also reads 1); a reader refuses another
# one (its cases could mean something else) and says to probe again.

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
}

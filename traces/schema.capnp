# SPDX-License-Identifier: Apache-2.0
# fsreplay container messages (format version 2; a reader also reads 1, whose
# string blocks and timing columns are the older forms described below).
#
# A file is: a 16-byte file header (magic "FSREPLAY", u16 format version,
# u16 payload kind, u32 reserved), then frames, then a 16-byte trailer
# (u64 offset of the index frame, magic "FSRINDEX"). A frame is a 32-byte
# frame header (see frame.h: magic, type, encoding, lengths, record count,
# CRC-32C of the payload and of the header) followed by its payload. Frame
# payloads are one Cap'n Proto message each, zstd-compressed as a whole
# (header, strings, prestate, footer, index) or column by column (chunks).

@0xf4d8466cb130f729;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("fsr::wire");

struct MountEntry {
  mountId @0 :UInt32;
  parentId @1 :UInt32;
  dev @2 :UInt64;
  root @3 :Text;
  mountPoint @4 :Text;
  mountOptions @5 :Text;
  fsType @6 :Text;
  source @7 :Text;
  superOptions @8 :Text;
}

struct FdEntry {
  fd @0 :Int32;
  path @1 :Text;
  flags @2 :UInt32;
  pos @3 :UInt64;
}

struct ProcessState {
  pid @0 :UInt32;
  cwd @1 :Text;
  fds @2 :List(FdEntry);
  umask @3 :UInt32;
}

# Frame type 1.
struct Header {
  formatVersion @0 :UInt16;
  kind @1 :UInt16;               # 1 = trace, 2 = replay result
  recorderVersion @2 :Text;
  kernelRelease @3 :Text;
  hostname @4 :Text;
  cpuCount @5 :UInt32;
  clockSource @6 :Text;
  wallStartNs @7 :UInt64;
  monoStartNs @8 :UInt64;
  command @9 :List(Text);
  root @10 :Text;
  uid @11 :UInt32;
  gid @12 :UInt32;
  mounts @13 :List(MountEntry);
  initial @14 :ProcessState;
  sourceTrace @15 :Text;         # results: the replayed trace
  target @16 :Text;
  scratch @17 :Text;
  environmentJson @18 :Text;
  optionsJson @19 :Text;
  fallbacks @20 :List(Text);
  recorderChoices @21 :List(Text);  # traces: the recorder's program variants ("name=value"), e.g.
                                    # task_state, page_faults, pid_namespace (absent before)
  recordCost @22 :RecordCost;    # traces: what recording added to the gaps (absent before)
  sourceTraceId @23 :UInt64;     # results: the replayed trace's content id (trace_id.h); 0 in
                                 # results written before results carried it
}

# What recording added to the recorded timings, measured by `record` before
# the workload starts (recorder/bpf/record_cost.h): a calibration child with known
# compute gaps runs under the live programs and drain, and its recorded gaps
# and durations are compared with its own untraced user-space measurement.
# Lists are indexed by class id (syscalls.h). Replay subtracts gapNs[class of
# the event that ends a gap] from that gap (never below 0) and durNs from the
# recorded duration of calls it does not issue (fd-table work it sleeps).
struct RecordCost {
  gapNs @0 :List(UInt32);        # per class: ns recording added to the gap before a call
  durNs @1 :List(UInt32);        # per class: ns recording added inside a call's duration
  unrecordedNs @2 :UInt32;       # ns an unrecorded syscall of a traced task cost under the recorder
  samples @3 :UInt32;            # calibration calls the medians are taken over
  method @4 :Text;               # how it was measured, for `inspect`
  # ns a tracked task's user page fault cost more under the recorder: an
  # anonymous one, a file fault recorded, a file fault left unrecorded
  # (fault_skip); empty: not measured.
  faultNs @5 :List(UInt32);
}

# Frame type 2: strings interned since the previous string block. Ids are
# consecutive: the i-th string of the block has id firstId + i. Always
# precedes the first chunk that uses them.
#
# Blocks written since `frontCoded` was added hold their `count` strings
# there and leave `strings` empty; older blocks hold them in `strings`. A
# block with both is malformed. `frontCoded` is, per string in id order:
# LEB128 varints b, p and n, then n bytes; the string is the first p bytes of
# its reference, the (b + 1)-th string before it in the block (none when
# p = 0), followed by the n bytes. The writer picks, among the 8 strings
# before, the one sharing the longest prefix. A List(Data) pads each
# element to 8 bytes behind its own pointer, while paths interned in walk
# order share long prefixes, even when threads walking different
# directories interleave (six git status traces of 4,106 strings,
# zstd-compressed with the frame: 10.5-15.7 KB as a list, 1.1-7.9 KB front
# coded against the previous string only, 0.9-5.0 KB with the window of 8;
# how much the lstat threads interleave varies from run to run). A reader
# rejects a blob that does not hold exactly `count` strings, a reference
# outside the block, a p longer than its reference, and a block that would
# decode to more than kMaxFrameRaw bytes, counting 8 per string as a
# List(Data) would.
#
# Format version 3: the block holds its `count` strings in `columns` (the
# frame itself is not compressed), leaving `strings` and `frontCoded` empty.
# The strings are taken in sorted (bytewise) order, and each is coded against
# the one before it in that order, which shares the longest prefix with it of
# all: however threads interleave, the walk of a directory comes out whole.
# The columns (Column, ids in columns.h StringColumn), each zstd-compressed
# on its own, for the k-th string in sorted order:
#   order (1):         zigzag(i_k - i_(k-1) - 1), where i_k is its index in the
#                      block (its id - firstId) and i_(-1) = -1; absent when
#                      the ids are sorted too (all zero)
#   prefix (2):        p_k, bytes shared with the (k-1)-th (0 for the first)
#   suffix length (3): n_k, the bytes that follow
#   suffix (4):        the n_k bytes of every string, one after the other
# Columns 1-3 hold `count` LEB128 varints each; an absent column is all
# zeros, an absent suffix column empty, and column 3 is always stored (a
# block of empty strings still says how it is coded). A reader rejects a block whose order
# is not a permutation of 0 .. count-1, a p longer than the string before it,
# suffix lengths that do not add up to the suffix column, more than 2^20
# strings, or more than kMaxFrameRaw bytes counting 8 per string. Versus
# front coding with the window of 8, string frames as stored: twelve git
# status traces 1.5-5.7 KB -> 1.3-2.1 KB; git clone (12,817 strings) 105 ->
# 87 KB; npm ci 33 -> 30 KB; cargo build 11.3 KB either way.
struct StringBlock {
  firstId @0 :UInt32;
  strings @1 :List(Data);        # Data, not Text: paths need not be UTF-8
  count @2 :UInt32;              # strings in frontCoded or columns
  frontCoded @3 :Data;
  columns @4 :List(Column);      # format version 3 (above)
}

# Frame type 3: prestate entries (the tree the workload started from).
struct PrestateEntry {
  path @0 :Data;
  kind @1 :UInt8;                # 1 dir, 2 file, 3 symlink, 4 other
  mode @2 :UInt32;
  size @3 :UInt64;
  target @4 :Data;
  ino @5 :UInt64;
  dev @6 :UInt64;
  nlink @7 :UInt32;
}
struct PrestateBlock {
  entries @0 :List(PrestateEntry);
}

# Frame type 4 (trace events) and 5 (replay ops): one chunk of records stored
# column by column. Each column is a sequence of `count` LEB128 varints
# (signed columns zigzag-coded first), zstd-compressed on its own; a column
# whose values are all zero is omitted. Column ids are listed in columns.h
# (EventColumn / OpColumn). Timestamps: `ts` holds, per thread, the gap from
# the end (enter + duration) of that thread's previous event in the chunk (the
# first from `baseTs`, or `Thread.prevEnd` with quantised timing below): the
# compute time, without repeating the duration. With `columnOrder` = thread
# (format version 3), every column but the thread column holds its values
# thread by thread (columns.h): the decoder reads the thread column first and
# from it where each event's values are.
# Inode facts: events whose flags have bit 15 set ("coded") store dev and
# mode XOR, size and inode as a difference (zigzag), against a reference; the
# other events store them as they are. The reference is the previous facts of
# the same path in the chunk; for a path new to the chunk, it depends on
# `facts`:
#   thread (format version 3): the previous coded event of the same thread in
#     the chunk, or for a thread's first, the previous coded event in the
#     chunk (zeros at the chunk start). Every event with facts that are not
#     all zero is coded, with a path or without (a page fault).
#   previous (versions 1 and 2): only events with a path are coded; dev, size
#     and mode against zero, the inode against the inode of the previous coded
#     event (0 at the chunk start).
# The inode number: chunks that store column kEcInoDelta (19) hold
# zigzag(ino - ref) (ino for events that are not coded); kEcIno (15) is then
# absent. Chunks of early version-1 writers store kEcIno instead, XOR-coded
# like dev, and against zero for a path new to the chunk. A chunk with neither
# column has only zero inodes (both codings agree).
#
# Timing quantisation (chunks with `timing` = quantised): gaps and durations
# are in columns kEcTsExp (20), kEcTsMant (21), kEcDurExp (22), kEcDurMant
# (23) instead of kEcTs (2) / kEcDur (3) in ns, and each thread's gaps run
# from its own `Thread.prevEnd` instead of `baseTs`; a chunk mixing the two
# sets of columns is malformed. A magnitude v is coded as (e, m), which
# keeps 6 significant bits with a step of at most 512 ns (timing_quant.h):
#   v < 64:            e = v >> 5, m = v & 31 (exact)
#   64 <= v < 16384:   v ~ (32 + m) << (e - 1), 2 <= e <= 9, m < 32
#   v >= 16384:        v ~ (32 + m) << 9, e = 10, m < 2^55 - 32
# rounded to nearest: off by at most v/64 and at most 256 ns. kEcTsExp holds
# 2e + (1 if the gap is negative), kEcTsMant m; kEcDurExp e, kEcDurMant m.
# Decoding is the ns decoding with these values: enter = the thread's
# previous end (prevEnd for its first event in the chunk) + gap, end =
# enter + duration.
#
# The writer keeps errors from adding up along a thread: each gap is taken
# from the thread's previous end as the decoder will see it, so earlier
# rounding does not move later enter times; each duration of 64 ns or
# more is coded as duration + what the thread's earlier durations lost to
# rounding, so the sum of a thread's durations is off by at most half a
# step (shorter ones, such as the 0 of a pseudo event, are exact); and
# prevEnd carries a thread's reconstructed end from chunk to chunk. A gap
# that is not negative in truth is never coded negative (the replayer relies
# on a thread's calls not overlapping), which can leave an enter time late by
# what the previous duration was rounded up, so enter times are within three
# half steps (768 ns) of the truth, whatever the length of the trace.
# Versus ns columns: git status 3.2 -> 1.5, git clone 3.5 -> 1.6 B/event.
struct Column {
  id @0 :UInt16;
  rawBytes @1 :UInt32;           # varint bytes before compression
  data @2 :Data;                 # zstd frame
}
struct Thread {
  pid @0 :UInt32;
  tid @1 :UInt32;
  prevEnd @2 :UInt64;            # quantised timing: where the thread's first gap runs from (its
                                 # previous event's end as decoded, or its first enter time)
}
struct Chunk {
  count @0 :UInt32;
  firstRecord @1 :UInt64;        # index of the first record in the file
  baseTs @2 :UInt64;
  threads @3 :List(Thread);      # the `thread` column indexes this table
  columns @4 :List(Column);
  basePath @5 :UInt32;           # largest path id used before this chunk (path coding)
  timing @6 :Timing;             # how ts and dur are coded (see above)
  enum Timing {
    ns @0;                       # kEcTs / kEcDur, gaps from baseTs (format version 1)
    quantised @1;                # kEcTsExp .. kEcDurMant, gaps from Thread.prevEnd
  }
  facts @7 :Facts;               # what a path new to the chunk codes its inode facts against (see above)
  enum Facts {
    previous @0;                 # the previous coded event (format versions 1 and 2)
    thread @1;                   # the previous coded event of the same thread (version 3)
  }
  columnOrder @8 :ColumnOrder;   # the order of the values in every column but the thread column
  enum ColumnOrder {
    event @0;                    # chunk order (format versions 1 and 2)
    thread @1;                   # thread-major (version 3): all of the first thread's events
                                 # (of the `threads` table) in chunk order, then the second's, ...
  }
}

# Frame type 6: written once, at the end.
struct Footer {
  endNs @0 :UInt64;
  exitStatus @1 :Int32;
  seen @2 :List(UInt64);         # per class, class ids as in syscalls.h
  drops @3 :List(UInt64);
  ioUringSubmissions @4 :UInt64;
  stringDrops @5 :UInt64;
  notes @6 :Text;
  wallNs @7 :UInt64;
  divergences @8 :UInt64;
  approxDeps @9 :UInt64;
  # Traces: what the recorder's own threads took from the workload (ns they
  # ran in place of a runnable tracked task; valid when stolenMeasured), and
  # the recorded gaps summed over every thread, which that time lies in.
  recorderStolenNs @10 :UInt64;
  stolenMeasured @11 :Bool;
  gapsNs @12 :UInt64;
  # Traces: the tracked tasks' user page faults (tasks that exited), the
  # fault records among them, the file faults left unrecorded, and what the
  # fault programs added to the gaps (from those and RecordCost.faultNs).
  userFaults @13 :UInt64;
  faultRecords @14 :UInt64;
  faultSkips @15 :UInt64;
  faultCostNs @16 :UInt64;
  # Traces: calls whose file's last release the kernel ran after the call's
  # exit (task work: munmap; close before Linux 6.6) and that blocked there,
  # and the ns added to those calls' durations; release records lost.
  deferredReleases @17 :UInt64;
  deferredReleaseNs @18 :UInt64;
  releaseDrops @19 :UInt64;
}

# Frame type 7: where every frame is, for random access.
struct IndexEntry {
  offset @0 :UInt64;
  type @1 :UInt16;
  records @2 :UInt32;
  firstRecord @3 :UInt64;
}
struct Index {
  entries @0 :List(IndexEntry);
  totalRecords @1 :UInt64;
}

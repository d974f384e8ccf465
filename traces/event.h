// SPDX-License-Identifier: Apache-2.0
// The decoded, in-memory form of one recorded event and of one replayed op.
// Both are plain fixed-size structs so that the recorder's drain loop and the
// replayer's issue loop never allocate per event. Strings (paths, argv) are
// interned ids into the file's string table; id 0 means "none".
#pragma once

#include <cstddef>
#include <cstdint>

namespace fsr {

using StrId = uint32_t;
inline constexpr StrId kNoStr = 0;

enum EventFlag : uint16_t {
  kEfPathUnresolved = 1 << 0,  // a relative path whose dirfd/cwd was unknown: stored as given
  kEfPathTruncated = 1 << 1,   // a path longer than the kernel-side buffer: stored truncated
  kEfNoInode = 1 << 2,         // inode facts could not be read
  kEfUnfinished = 1 << 3,      // syscall entered but never returned in the trace (killed, recorder stopped)
  kEfThreadClone = 1 << 4,     // clone/clone3 created a thread (CLONE_THREAD), not a process
  kEfSharedFiles = 1 << 5,     // clone shared the fd table (CLONE_FILES)
  kEfFdIsPipe = 1 << 6,        // the fd operand was a pipe, socket or eventfd at record time
  kEfEmptyPath = 1 << 7,  // path 0 was "" in a call without AT_EMPTY_PATH (the kernel's ENOENT); stored as its base
  // Bits 8-9 (path 0) and 10-11 (path 1): the PathTail (base/paths.h) of
  // the path as passed, which the stored, normalised path no longer shows
  // (event_tail_code). Traces recorded before them read as none.
  // Bits 12 (path 0) and 13 (path 1): the path was passed relative, to its
  // dirfd or to the cwd (the stored path is still absolute, resolved against
  // it): the replay walks it from there, as the kernel did (request
  // fidelity: a mount sees the original's lookups). Traces recorded before
  // them say so in their header (kRecorderChoiceWalks absent) and replay as
  // before, every walk from the root.
  // Bit 15 is reserved for the chunk codec.
};
inline constexpr uint16_t kEfRelative0 = 1 << 12, kEfRelative1 = 1 << 13;
inline constexpr uint16_t event_relative_flag(int k) { return k == 0 ? kEfRelative0 : kEfRelative1; }
// The recorder choice (TraceHeader::recorder_choices) that says the
// relative bits are recorded.
inline constexpr const char* kRecorderChoiceWalks = "walks=as-passed";
// The recorder choice that says a call's deferred file release (run by the
// kernel after the call's exit: munmap; close before Linux 6.6; dup2 over an
// open fd) is in the call's duration where it blocked, not in the gap after
// it (recorder/core/release_folder.h).
inline constexpr const char* kRecorderChoiceReleases = "releases=in-call";
inline constexpr int kEfTailShift = 8, kEfTailBits = 2;

// Traces hold events in completion order (the recorder merges CPUs by exit
// time): within a thread that is also enter order, across threads it is not.
struct Event {
  uint64_t ts = 0;        // enter time, ns since the trace's monotonic start
  uint64_t dur = 0;       // exit - enter, ns
  int64_t ret = 0;        // return value (negative errno on failure)
  uint64_t args[6] = {};  // raw arguments; pointer arguments are 0 (see SyscallInfo::ptr_mask)
  uint64_t dev = 0;       // inode facts for opens and stat-family calls (0 when none)
  uint64_t ino = 0;
  uint64_t size = 0;
  uint32_t mode = 0;
  uint32_t pid = 0;  // thread-group id
  uint32_t tid = 0;
  StrId path[2] = {kNoStr, kNoStr};  // absolute paths where resolvable
  uint16_t nr = 0;                   // syscall number or pseudo event (syscalls.h kEv*)
  uint16_t flags = 0;                // EventFlag bits
};

// Path k's PathTail code (0 none, 1 "/", 2 "/.", 3 "/.."); see kEfTailShift.
inline uint8_t event_tail_code(const Event& e, int k) {
  return static_cast<uint8_t>((e.flags >> (kEfTailShift + kEfTailBits * k)) & 3u);
}
inline void set_event_tail_code(Event& e, int k, uint8_t code) {
  const int at = kEfTailShift + kEfTailBits * k;
  e.flags = static_cast<uint16_t>((e.flags & ~(3u << at)) | ((code & 3u) << at));
}

enum OpFlag : uint16_t {
  kOfDivergent = 1 << 0,  // result class differs from the recorded one
  kOfSkipped = 1 << 1,    // not issued (unsupported, unsafe, or its dependency failed)
  kOfFallback = 1 << 2,   // issued through a fallback (e.g. statx -> fstatat)
  kOfApproxDep = 1 << 3,  // waited on an approximate (//TRACE-style) dependency
  kOfEscaped = 1 << 4,    // path would escape target/scratch: refused, counted
};

// Why a replayed op waited: the kind of the dependency that released it last
// (replayer/plan/deps.h), kept in bits 8-11 of OpRecord::flags when it waited.
// Results written before these bits existed read as kNone.
enum class DepKind : uint8_t {
  kNone = 0,
  kPath,          // an op on the same path (namespace change, or readers before one)
  kParentPath,    // the directory holding its path was made, moved or removed
  kDirContents,   // a listing of the directory vs a namespace change in it
  kOfd,           // the same open file (fd)
  kThreadStart,   // a new thread's first op after the clone/fork that made it
  kCausal,        // wait4, pipe or socket read, futex wait: the recorded waker
  kApproxCausal,  // a wait whose waker is not in the trace: the latest op that ended meanwhile
  kMapping,       // a page fault or munmap after the mmap it refers to
  kSerialDir,     // namespace ops in one directory kept in order (--dir-order serial)
  kFileData,      // a read of a regular file after another thread's write to it, a write after its reads
  kCount
};
inline constexpr int kOfDepKindShift = 8;
inline constexpr uint16_t kOfDepKindMask = 0xF00;
inline DepKind op_dep_kind(uint16_t flags) {
  const unsigned k = (flags & kOfDepKindMask) >> kOfDepKindShift;
  return k < static_cast<unsigned>(DepKind::kCount) ? static_cast<DepKind>(k) : DepKind::kNone;
}
inline const char* dep_kind_name(DepKind k) {
  static const char* const kNames[] = {"(kind not recorded)", "same path",          "parent directory",
                                       "directory listing",   "same open file",     "thread start",
                                       "causal wait",         "approximate causal", "mapping",
                                       "serial directory",    "file contents"};
  static_assert(sizeof kNames / sizeof kNames[0] == static_cast<std::size_t>(DepKind::kCount));
  return kNames[static_cast<std::size_t>(k)];
}

// One replayed op, as stored in a result file. Self-contained for reports:
// class, process and directory attribution need no access to the trace.
struct OpRecord {
  uint64_t event_index = 0;   // index of the event in the trace
  uint64_t start = 0;         // issue time, ns since replay start
  uint64_t latency = 0;       // syscall duration, ns (monotonic clock around the call)
  int64_t lateness = 0;       // issue time minus intended issue time, ns
  uint64_t dep_wait = 0;      // ns spent waiting for dependencies before issue
  uint64_t gap = 0;           // think time slept before issue, ns
  int64_t ret = 0;            // replayed return value
  int64_t recorded_ret = 0;   // recorded return value
  uint64_t waited_on = 0;     // event index of the dependency that released this op last (+1; 0 = none)
  uint64_t recorded_dur = 0;  // recorded duration, ns
  uint32_t pid = 0;           // recorded pid / tid
  uint32_t tid = 0;
  uint32_t worker = 0;  // replay thread index
  StrId path = kNoStr;  // first path (absolute, as recorded)
  uint16_t nr = 0;
  uint16_t flags = 0;  // OpFlag bits
};

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// A mount's cost model: the latency distributions `fsreplay probe` measured
// on it, per operation kind, temperature (warm, cold, stale) and parameter
// (path depth, bytes, entries), with the environment fingerprint of the
// mount. Stored in the ordinary container as its own payload kind
// (PayloadKind::kProfile, one FrameType::kProfile frame; profile.capnp);
// `predict` reads it. Pure data and its file form: no measuring here.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace fsr {

// Version of the Profile message this fsreplay writes, and the oldest it
// reads. Version 2 added kStatWritten; a version-1 profile reads as one
// without that case (predict falls back as it did). Version 3 added the
// server model; an older profile reads with server.measured() false. A reader refuses any
// other version: probe again.
inline constexpr uint16_t kProfileVersion = 3;
inline constexpr uint16_t kProfileMinVersion = 1;
// Equal-probability bins per case (bins[i] = quantile (i + 0.5) / kProfileBins).
inline constexpr size_t kProfileBins = 128;
inline constexpr uint64_t kNoExpiry = UINT64_MAX;

// What a case measures. The numbers are stored: append only.
enum class ProbeKind : uint16_t {
  kStat = 0,     // stat of an existing file; param: path depth below the target
  kStatMissing,  // stat of a missing name (parent exists); param: depth
  kFstat,        // fstat of an open file
  kOpenFile,     // open O_RDONLY of an existing file
  kOpenDir,      // open O_DIRECTORY
  kOpenCreate,   // open O_CREAT|O_EXCL of a new name
  kOpenMissing,  // open of a missing name (ENOENT)
  kCloseClean,   // close of a file only read
  kCloseWrite,   // close after writes
  kRead,         // first read after open; param: bytes
  kReadSeq,      // a following read of the same open file; param: bytes
  kWrite,        // param: bytes
  kReaddir,      // getdents64; param: bytes returned
  kMkdir,
  kRmdir,
  kUnlink,
  kRename,
  kLink,
  kSymlink,
  kAttr,    // chmod by path
  kAttrFd,  // ftruncate
  kXattr,   // getxattr by path
  kFsync,   // after a small write
  kMmap,    // file-backed mmap
  kMunmap,
  kPageFault,    // first touch of a mapped file page
  kFd,           // lseek
  kStatWritten,  // stat of a file written and closed since its last lookup (a FUSE mount asks the server
                 // again); param: how long (us) the probe left the mount idle before the call
  kCount
};
inline constexpr int kProbeKindCount = static_cast<int>(ProbeKind::kCount);

enum class Temp : uint8_t {
  kWarm = 0,   // touched just before
  kCold = 1,   // caches dropped before (root), or a name never looked up
  kStale = 2,  // touched `param` ms before (kStat only): how long the mount caches
};

std::string_view probe_kind_name(ProbeKind k);
std::optional<ProbeKind> probe_kind_from_name(std::string_view name);
std::string_view temp_name(Temp t);
// What the parameter of a kind means ("depth", "bytes", "ms", "").
std::string_view probe_param_name(ProbeKind k, Temp t);

struct ProfileCase {
  ProbeKind kind = ProbeKind::kStat;
  Temp temp = Temp::kWarm;
  uint64_t param = 0;
  uint64_t count = 0;
  uint64_t sum_ns = 0, min_ns = 0, max_ns = 0;
  std::vector<uint64_t> bins;  // kProfileBins values, ascending

  uint64_t median() const { return bins.empty() ? 0 : bins[bins.size() / 2]; }
  double mean() const { return count ? double(sum_ns) / double(count) : 0.0; }
};

// The case of `samples` (ns; reordered): bins from the sorted samples.
ProfileCase make_case(ProbeKind kind, Temp temp, uint64_t param, std::vector<uint64_t>& samples);

// One point of probe's concurrency sweep: `streams` threads issuing case
// `kind` back to back for wall_ns, `ops` calls in all.
struct ConcurrencyPoint {
  ProbeKind kind = ProbeKind::kStat;
  uint32_t streams = 1;
  uint64_t ops = 0;
  uint64_t wall_ns = 0;
  uint64_t median_ns = 0;  // one call's median latency at that concurrency
  uint64_t param = 0;      // bytes of a read or write (4096, 1 MiB); 0 for the others
  bool direct = false;     // opened O_DIRECT

  double ops_per_s() const { return wall_ns ? double(ops) * 1e9 / double(wall_ns) : 0.0; }
};
// A sweep row's name: "stat", "read 4 KiB", "read-seq 1 MiB direct".
std::string sweep_kind_label(ProbeKind kind, uint64_t param, bool direct);

// The mount as a server: how many requests it serves at once (slots) and
// each one's service time, fitted on the concurrency sweep, and its large
// sequential bandwidths in bytes/s (0: not measured). A mount that scaled
// to every measured concurrency has slots kNoSlotLimit (no limit seen) and
// service_ns its single-stream service time; fit_note says up to how many.
inline constexpr uint32_t kNoSlotLimit = UINT32_MAX;
struct ServerModel {
  uint32_t slots = 0;  // 0: not measured (probe --quick, or a profile older than version 3)
  uint64_t service_ns = 0;
  std::vector<ConcurrencyPoint> sweep;
  uint64_t read_bw_direct = 0, write_bw_direct = 0;
  uint64_t read_bw_buffered = 0, write_bw_buffered = 0;
  std::string fit_note;

  bool measured() const { return slots != 0; }
};

struct Profile {
  uint16_t version = kProfileVersion;
  std::string name;              // "wsl2-9p", or the mount kind
  std::string target;            // the probed directory
  std::string environment_json;  // `detect` fingerprint of the target
  uint64_t started_wall_ns = 0;
  uint64_t duration_ns = 0;
  uint64_t syscall_overhead_ns = 0;
  uint32_t ref_depth = 2;  // depth of the probe's files below the target
  uint64_t cache_lifetime_ns = kNoExpiry;
  bool cold_measured = false;
  uint32_t rounds = 0;
  uint32_t busy_cpus = 0;  // other CPUs kept busy by spinners at nice 19 (probe --busy-cpus)
  std::vector<std::string> notes;
  std::vector<ProfileCase> cases;
  ServerModel server;

  const ProfileCase* find(ProbeKind k, Temp t, uint64_t param) const;
  // "kind" of the fingerprint's mount ("9p-drvfs", "fuse", ...), "" if unknown.
  std::string mount_kind() const;
  // "HOST:MOUNT_POINT (SOURCE)" of the fingerprint's mount: two profiles of
  // one mount share it. "" when the fingerprint names no mount point or
  // source (a real one always does).
  std::string mount_identity() const;
  // Components from the mount's root down to the probed target ("/m/w" on a
  // mount at "/m": 1): what an absolute path's walk looks up on the mount
  // above the target, part of every case measured. 0 when unknown.
  uint32_t target_depth_on_mount() const;
};

// Writes `p` as a profile file (created or truncated).
Status write_profile(const std::string& path, const Profile& p);
// Reads a profile. One-line errors for: not an fsreplay file, another
// container or profile version, a trace or result given instead, a file cut
// short before its measurements, a damaged measurements frame.
Result<Profile> read_profile(const std::string& path);
// The measurements frame alone (what read_profile decodes), for tests.
Status decode_profile(std::span<const uint64_t> words, Profile& p);
void encode_profile(const Profile& p, std::vector<uint8_t>& out);

// `fsreplay inspect PROFILE`: one table of cases (fits 100 columns) / JSON.
std::string profile_to_text(const Profile& p);
std::string profile_to_json(const Profile& p);

}  // namespace fsr

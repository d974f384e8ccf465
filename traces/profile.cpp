// SPDX-License-Identifier: Apache-2.0
#include "traces/profile.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>

#include <nlohmann/json.hpp>

#include "base/paths.h"
#include "profile.capnp.h"
#include "traces/chunk_message.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"
#include "base/text_safe.h"

namespace fsr {
namespace {

constexpr std::array<std::string_view, kProbeKindCount> kKindNames = {
    "stat",  "stat-missing", "fstat",  "open",     "open-dir",   "open-create", "open-missing",
    "close", "close-write",  "read",   "read-seq", "write",      "readdir",     "mkdir",
    "rmdir", "unlink",       "rename", "link",     "symlink",    "attr",        "attr-fd",
    "xattr", "fsync",        "mmap",   "munmap",   "page-fault", "fd",          "stat-written"};

}  // namespace

std::string_view probe_kind_name(ProbeKind k) {
  const auto i = static_cast<size_t>(k);
  return i < kKindNames.size() ? kKindNames[i] : "?";
}

std::optional<ProbeKind> probe_kind_from_name(std::string_view name) {
  for (size_t i = 0; i < kKindNames.size(); ++i)
    if (kKindNames[i] == name) return static_cast<ProbeKind>(i);
  return std::nullopt;
}

std::string_view temp_name(Temp t) {
  switch (t) {
    case Temp::kWarm:
      return "warm";
    case Temp::kCold:
      return "cold";
    case Temp::kStale:
      return "stale";
  }
  return "?";
}

std::string_view probe_param_name(ProbeKind k, Temp t) {
  if (t == Temp::kStale) return "ms";
  // The case labels stay packed, one line per family of calls.
  // clang-format off
  switch (k) {
    case ProbeKind::kStat: case ProbeKind::kStatMissing: return "depth";
    case ProbeKind::kStatWritten: return "idle us";
    case ProbeKind::kRead: case ProbeKind::kReadSeq: case ProbeKind::kWrite: case ProbeKind::kReaddir:
      return "bytes";
    default: return "";
  }
  // clang-format on
}

ProfileCase make_case(ProbeKind kind, Temp temp, uint64_t param, std::vector<uint64_t>& samples) {
  ProfileCase c;
  c.kind = kind;
  c.temp = temp;
  c.param = param;
  c.count = samples.size();
  if (samples.empty()) return c;
  std::sort(samples.begin(), samples.end());
  for (uint64_t s : samples) c.sum_ns += s;
  c.min_ns = samples.front();
  c.max_ns = samples.back();
  c.bins.resize(kProfileBins);
  for (size_t i = 0; i < kProfileBins; ++i) {
    const size_t at = static_cast<size_t>((double(i) + 0.5) / double(kProfileBins) * double(samples.size()));
    c.bins[i] = samples[std::min(at, samples.size() - 1)];
  }
  return c;
}

const ProfileCase* Profile::find(ProbeKind k, Temp t, uint64_t param) const {
  for (const ProfileCase& c : cases)
    if (c.kind == k && c.temp == t && c.param == param) return &c;
  return nullptr;
}

namespace {

// The fingerprint's "mount" object (null when it has none), and a string field of an object.
nlohmann::json mount_of(const nlohmann::json& j) {
  return j.is_object() && j.contains("mount") && j.at("mount").is_object() ? j.at("mount") : nlohmann::json();
}
nlohmann::json fingerprint_mount(const std::string& environment_json) {
  return mount_of(nlohmann::json::parse(environment_json, nullptr, /*allow_exceptions=*/false));
}
std::string str_field(const nlohmann::json& o, const char* k) {
  return o.is_object() && o.contains(k) && o[k].is_string() ? o[k].get<std::string>() : std::string();
}

}  // namespace

std::string Profile::mount_kind() const { return str_field(fingerprint_mount(environment_json), "kind"); }

std::string Profile::mount_identity() const {
  const auto j = nlohmann::json::parse(environment_json, nullptr, /*allow_exceptions=*/false);
  const nlohmann::json m = mount_of(j);
  const std::string point = str_field(m, "mount_point"), source = str_field(m, "source");
  if (point.empty() || source.empty()) return {};
  return str_field(j, "hostname") + ":" + point + " (" + source + ")";
}

uint32_t Profile::target_depth_on_mount() const {
  const std::string point = str_field(fingerprint_mount(environment_json), "mount_point");
  if (point.empty() || !is_beneath(target, point)) return 0;
  uint32_t n = 0;
  for_each_component(std::string_view(target).substr(point.size()), [&n](std::string_view) { ++n; });
  return n;
}

namespace {

void encode_server(const ServerModel& m, wire::ServerModel::Builder w) {
  w.setSlots(m.slots);
  w.setServiceNs(m.service_ns);
  auto sweep = w.initSweep(static_cast<unsigned>(m.sweep.size()));
  for (size_t i = 0; i < m.sweep.size(); ++i) {
    const ConcurrencyPoint& c = m.sweep[i];
    sweep[i].setKind(static_cast<uint16_t>(c.kind));
    sweep[i].setStreams(c.streams);
    sweep[i].setOps(c.ops);
    sweep[i].setWallNs(c.wall_ns);
    sweep[i].setMedianNs(c.median_ns);
    sweep[i].setParam(c.param);
    sweep[i].setDirect(c.direct);
  }
  w.setReadBwDirect(m.read_bw_direct);
  w.setWriteBwDirect(m.write_bw_direct);
  w.setReadBwBuffered(m.read_bw_buffered);
  w.setWriteBwBuffered(m.write_bw_buffered);
  w.setFitNote(m.fit_note);
}

Status decode_server(wire::ServerModel::Reader r, ServerModel& m) {
  m = ServerModel{};
  m.slots = r.getSlots();
  m.service_ns = r.getServiceNs();
  for (auto c : r.getSweep()) {
    if (c.getKind() >= kProbeKindCount)
      return Status::error("concurrency point of unknown kind " + std::to_string(c.getKind()) +
                           " (written by a newer fsreplay?)");
    m.sweep.push_back({static_cast<ProbeKind>(c.getKind()), c.getStreams(), c.getOps(), c.getWallNs(), c.getMedianNs(),
                       c.getParam(), c.getDirect()});
  }
  m.read_bw_direct = r.getReadBwDirect();
  m.write_bw_direct = r.getWriteBwDirect();
  m.read_bw_buffered = r.getReadBwBuffered();
  m.write_bw_buffered = r.getWriteBwBuffered();
  m.fit_note = r.getFitNote();
  return Status::ok();
}

}  // namespace

void encode_profile(const Profile& p, std::vector<uint8_t>& out) {
  capnp::MallocMessageBuilder mb;
  auto w = mb.initRoot<wire::Profile>();
  w.setProfileVersion(p.version);
  w.setName(p.name);
  w.setTarget(p.target);
  w.setEnvironmentJson(p.environment_json);
  w.setStartedWallNs(p.started_wall_ns);
  w.setDurationNs(p.duration_ns);
  w.setSyscallOverheadNs(p.syscall_overhead_ns);
  w.setRefDepth(p.ref_depth);
  w.setCacheLifetimeNs(p.cache_lifetime_ns);
  w.setColdMeasured(p.cold_measured);
  w.setRounds(p.rounds);
  w.setBusyCpus(p.busy_cpus);
  auto notes = w.initNotes(static_cast<unsigned>(p.notes.size()));
  for (size_t i = 0; i < p.notes.size(); ++i) notes.set(i, p.notes[i]);
  auto cases = w.initCases(static_cast<unsigned>(p.cases.size()));
  for (size_t i = 0; i < p.cases.size(); ++i) {
    const ProfileCase& c = p.cases[i];
    auto o = cases[i];
    o.setKind(static_cast<uint16_t>(c.kind));
    o.setTemp(static_cast<uint8_t>(c.temp));
    o.setParam(c.param);
    o.setCount(c.count);
    o.setSumNs(c.sum_ns);
    o.setMinNs(c.min_ns);
    o.setMaxNs(c.max_ns);
    auto bins = o.initBins(static_cast<unsigned>(c.bins.size()));
    for (size_t b = 0; b < c.bins.size(); ++b) bins.set(b, c.bins[b]);
  }
  encode_server(p.server, w.initServer());
  auto words = capnp::messageToFlatArray(mb);
  auto bytes = words.asBytes();
  out.assign(bytes.begin(), bytes.end());
}

Status decode_profile(std::span<const uint64_t> words, Profile& p) {
  try {
    const auto* w = reinterpret_cast<const capnp::word*>(words.data());
    capnp::FlatArrayMessageReader mr(kj::arrayPtr(w, words.size()), untrusted_options(words.size()));
    auto r = mr.getRoot<wire::Profile>();
    p.version = r.getProfileVersion();
    if (p.version < kProfileMinVersion || p.version > kProfileVersion)
      return Status::error("profile format version " + std::to_string(p.version) +
                           " is not supported (this fsreplay reads versions " + std::to_string(kProfileMinVersion) +
                           " to " + std::to_string(kProfileVersion) +
                           "); probe the mount again with this fsreplay: fsreplay probe DIR -o PROFILE");
    p.name = r.getName();
    p.target = r.getTarget();
    p.environment_json = r.getEnvironmentJson();
    p.started_wall_ns = r.getStartedWallNs();
    p.duration_ns = r.getDurationNs();
    p.syscall_overhead_ns = r.getSyscallOverheadNs();
    p.ref_depth = r.getRefDepth();
    p.cache_lifetime_ns = r.getCacheLifetimeNs();
    p.cold_measured = r.getColdMeasured();
    p.rounds = r.getRounds();
    p.busy_cpus = r.getBusyCpus();
    p.notes.clear();
    for (auto n : r.getNotes()) p.notes.emplace_back(n);
    p.cases.clear();
    for (auto c : r.getCases()) {
      ProfileCase pc;
      if (c.getKind() >= kProbeKindCount || c.getTemp() > static_cast<uint8_t>(Temp::kStale))
        return Status::error("case of unknown kind " + std::to_string(c.getKind()) + " / temperature " +
                             std::to_string(c.getTemp()) + " (written by a newer fsreplay?)");
      pc.kind = static_cast<ProbeKind>(c.getKind());
      pc.temp = static_cast<Temp>(c.getTemp());
      pc.param = c.getParam();
      pc.count = c.getCount();
      pc.sum_ns = c.getSumNs();
      pc.min_ns = c.getMinNs();
      pc.max_ns = c.getMaxNs();
      for (uint64_t b : c.getBins()) pc.bins.push_back(b);
      if (pc.count == 0 || pc.bins.empty()) continue;  // nothing measured: as if absent
      if (!std::is_sorted(pc.bins.begin(), pc.bins.end()))
        return Status::error(std::string("case ") + std::string(probe_kind_name(pc.kind)) +
                             " has unsorted bins (damaged)");
      p.cases.push_back(std::move(pc));
    }
    if (r.hasServer()) return decode_server(r.getServer(), p.server);
    p.server = ServerModel{};
    return Status::ok();
  } catch (const kj::Exception& ex) {
    return Status::error(std::string("malformed profile message: ") + ex.getDescription().cStr());
  }
}

Status write_profile(const std::string& path, const Profile& p) {
  TraceHeader h;
  h.kind = PayloadKind::kProfile;
  h.recorder_version = "fsreplay probe";
  h.target = p.target;
  h.environment_json = p.environment_json;
  h.wall_start_ns = p.started_wall_ns;
  nlohmann::json opts = {{"name", p.name}, {"profile_version", p.version}, {"rounds", p.rounds}};
  h.options_json = json_text(opts);
  FSR_ASSIGN_OR_RETURN(const std::unique_ptr<TraceWriter> w, TraceWriter::create(path, h));
  std::vector<uint8_t> msg;
  encode_profile(p, msg);
  FSR_RETURN_IF_ERROR(w->append_frame(FrameType::kProfile, msg, static_cast<uint32_t>(p.cases.size())));
  TraceFooter f;
  f.end_ns = p.duration_ns;
  f.notes = "profile of " + p.target;
  return w->finish(f);
}

namespace {
Status truncated(const std::string& path) {
  struct stat st {};
  const uint64_t bytes = ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  return Status::error(path + ": truncated profile: the file ends at byte " + std::to_string(bytes) +
                       " before its measurements (probe killed or disk full?); probe the mount again");
}
}  // namespace

Result<Profile> read_profile(const std::string& path) {
  auto r = TraceReader::open(path);
  if (!r) {
    // A profile cut inside its header frame: say what it is, not how far the reader got.
    if (r.message().find("cut short") != std::string::npos) return truncated(path);
    return r.status();
  }
  TraceReader& rd = *r.value();
  if (rd.kind() != PayloadKind::kProfile)
    return wrong_kind(path, rd.kind(), PayloadKind::kProfile, "make one with fsreplay probe DIR -o PROFILE");
  Profile p;
  Status inner;
  auto n = rd.for_each_frame(FrameType::kProfile, [&](std::span<const uint64_t> words) {
    inner = decode_profile(words, p);
    return inner;
  });
  if (!inner) return Status::error(path + ": " + inner.message());
  if (!n) return Status::error(n.message() + "; the profile is damaged: probe the mount again");
  if (n.value() == 0) return truncated(path);
  if (p.cases.empty()) return Status::error(path + ": the profile holds no measured case; probe the mount again");
  return p;
}

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
#include "traces/model_codec.h"

#include <capnp/message.h>
#include <capnp/serialize.h>

#include "schema.capnp.h"
#include "traces/chunk_message.h"  // serialise, untrusted_options
#include "traces/string_coding.h"

namespace fsr {
namespace {

kj::ArrayPtr<const kj::byte> bytes_of(std::string_view s) {
  return kj::arrayPtr(reinterpret_cast<const kj::byte*>(s.data()), s.size());
}
std::string str_of(capnp::Data::Reader d) { return std::string(reinterpret_cast<const char*>(d.begin()), d.size()); }

template <typename Fn>
Status guarded(const char* what, std::span<const capnp::word> msg, Fn fn) {
  try {
    capnp::FlatArrayMessageReader mr(kj::arrayPtr(msg.data(), msg.size()), untrusted_options(msg.size()));
    return fn(mr);
  } catch (const kj::Exception& ex) {
    return Status::error(std::string("malformed ") + what + " message: " + ex.getDescription().cStr());
  }
}

}  // namespace

void encode_header(const TraceHeader& h, std::vector<uint8_t>& out) {
  capnp::MallocMessageBuilder mb;
  auto w = mb.initRoot<wire::Header>();
  w.setFormatVersion(h.format_version);
  w.setKind(static_cast<uint16_t>(h.kind));
  w.setRecorderVersion(h.recorder_version);
  w.setKernelRelease(h.kernel_release);
  w.setHostname(h.hostname);
  w.setCpuCount(h.cpu_count);
  w.setClockSource(h.clock_source);
  w.setWallStartNs(h.wall_start_ns);
  w.setMonoStartNs(h.mono_start_ns);
  auto cmd = w.initCommand(static_cast<unsigned>(h.command.size()));
  for (size_t i = 0; i < h.command.size(); ++i) cmd.set(i, h.command[i]);
  w.setRoot(h.root);
  w.setUid(h.uid);
  w.setGid(h.gid);
  auto mounts = w.initMounts(static_cast<unsigned>(h.mounts.size()));
  for (size_t i = 0; i < h.mounts.size(); ++i) {
    const MountEntry& m = h.mounts[i];
    auto o = mounts[i];
    o.setMountId(m.mount_id);
    o.setParentId(m.parent_id);
    o.setDev(m.dev);
    o.setRoot(m.root);
    o.setMountPoint(m.mount_point);
    o.setMountOptions(m.mount_options);
    o.setFsType(m.fs_type);
    o.setSource(m.source);
    o.setSuperOptions(m.super_options);
  }
  auto init = w.initInitial();
  init.setPid(h.initial.pid);
  init.setCwd(h.initial.cwd);
  init.setUmask(h.initial.umask);
  auto fds = init.initFds(static_cast<unsigned>(h.initial.fds.size()));
  for (size_t i = 0; i < h.initial.fds.size(); ++i) {
    fds[i].setFd(h.initial.fds[i].fd);
    fds[i].setPath(h.initial.fds[i].path);
    fds[i].setFlags(h.initial.fds[i].flags);
    fds[i].setPos(h.initial.fds[i].pos);
  }
  w.setSourceTrace(h.source_trace);
  w.setSourceTraceId(h.source_trace_id);
  w.setTarget(h.target);
  w.setScratch(h.scratch);
  w.setEnvironmentJson(h.environment_json);
  w.setOptionsJson(h.options_json);
  auto fb = w.initFallbacks(static_cast<unsigned>(h.fallbacks.size()));
  for (size_t i = 0; i < h.fallbacks.size(); ++i) fb.set(i, h.fallbacks[i]);
  auto rc = w.initRecorderChoices(static_cast<unsigned>(h.recorder_choices.size()));
  for (size_t i = 0; i < h.recorder_choices.size(); ++i) rc.set(i, h.recorder_choices[i]);
  if (h.record_cost.present) {
    auto rc = w.initRecordCost();
    auto gap = rc.initGapNs(kClassCount);
    auto dur = rc.initDurNs(kClassCount);
    for (int i = 0; i < kClassCount; ++i) {
      gap.set(i, h.record_cost.gap_ns[i]);
      dur.set(i, h.record_cost.dur_ns[i]);
    }
    rc.setUnrecordedNs(h.record_cost.unrecorded_ns);
    if (h.record_cost.fault_ns != decltype(h.record_cost.fault_ns){}) {
      auto fl = rc.initFaultNs(RecordCost::kFaultKinds);
      for (int i = 0; i < RecordCost::kFaultKinds; ++i) fl.set(i, h.record_cost.fault_ns[i]);
    }
    rc.setSamples(h.record_cost.samples);
    rc.setMethod(h.record_cost.method);
  }
  serialise(mb, out);
}

Status decode_header(std::span<const capnp::word> msg, TraceHeader& h) {
  return guarded("header", msg, [&](capnp::MessageReader& mr) {
    auto r = mr.getRoot<wire::Header>();
    h.format_version = r.getFormatVersion();
    uint16_t kind = r.getKind();
    if (kind < 1 || kind > 3) return Status::error("unknown payload kind " + std::to_string(kind));
    h.kind = static_cast<PayloadKind>(kind);
    h.recorder_version = r.getRecorderVersion();
    h.kernel_release = r.getKernelRelease();
    h.hostname = r.getHostname();
    h.cpu_count = r.getCpuCount();
    h.clock_source = r.getClockSource();
    h.wall_start_ns = r.getWallStartNs();
    h.mono_start_ns = r.getMonoStartNs();
    h.command.clear();
    for (auto c : r.getCommand()) h.command.emplace_back(c);
    h.root = r.getRoot();
    h.uid = r.getUid();
    h.gid = r.getGid();
    h.mounts.clear();
    for (auto m : r.getMounts()) {
      MountEntry e;
      e.mount_id = m.getMountId();
      e.parent_id = m.getParentId();
      e.dev = m.getDev();
      e.root = m.getRoot();
      e.mount_point = m.getMountPoint();
      e.mount_options = m.getMountOptions();
      e.fs_type = m.getFsType();
      e.source = m.getSource();
      e.super_options = m.getSuperOptions();
      h.mounts.push_back(std::move(e));
    }
    auto init = r.getInitial();
    h.initial.pid = init.getPid();
    h.initial.cwd = init.getCwd();
    h.initial.umask = init.getUmask();
    h.initial.fds.clear();
    for (auto f : init.getFds()) h.initial.fds.push_back({f.getFd(), f.getPath(), f.getFlags(), f.getPos()});
    h.source_trace = r.getSourceTrace();
    h.source_trace_id = r.getSourceTraceId();
    h.target = r.getTarget();
    h.scratch = r.getScratch();
    h.environment_json = r.getEnvironmentJson();
    h.options_json = r.getOptionsJson();
    h.fallbacks.clear();
    for (auto f : r.getFallbacks()) h.fallbacks.emplace_back(f);
    h.recorder_choices.clear();
    for (auto c : r.getRecorderChoices()) h.recorder_choices.emplace_back(c);
    h.record_cost = RecordCost{};
    if (r.hasRecordCost()) {
      auto rc = r.getRecordCost();
      h.record_cost.present = true;
      auto gap = rc.getGapNs();
      auto dur = rc.getDurNs();
      for (unsigned i = 0; i < gap.size() && i < kClassCount; ++i) h.record_cost.gap_ns[i] = gap[i];
      for (unsigned i = 0; i < dur.size() && i < kClassCount; ++i) h.record_cost.dur_ns[i] = dur[i];
      h.record_cost.unrecorded_ns = rc.getUnrecordedNs();
      auto fl = rc.getFaultNs();
      for (unsigned i = 0; i < fl.size() && i < RecordCost::kFaultKinds; ++i) h.record_cost.fault_ns[i] = fl[i];
      h.record_cost.samples = rc.getSamples();
      h.record_cost.method = rc.getMethod();
    }
    return Status::ok();
  });
}

void encode_footer(const TraceFooter& f, std::vector<uint8_t>& out) {
  capnp::MallocMessageBuilder mb;
  auto w = mb.initRoot<wire::Footer>();
  w.setEndNs(f.end_ns);
  w.setExitStatus(f.exit_status);
  auto seen = w.initSeen(kClassCount);
  auto drops = w.initDrops(kClassCount);
  for (int i = 0; i < kClassCount; ++i) {
    seen.set(i, f.seen[i]);
    drops.set(i, f.drops[i]);
  }
  w.setIoUringSubmissions(f.io_uring_submissions);
  w.setStringDrops(f.string_drops);
  w.setNotes(f.notes);
  w.setWallNs(f.wall_ns);
  w.setDivergences(f.divergences);
  w.setApproxDeps(f.approx_deps);
  w.setRecorderStolenNs(f.recorder_stolen_ns);
  w.setStolenMeasured(f.stolen_measured);
  w.setUserFaults(f.user_faults);
  w.setFaultRecords(f.fault_records);
  w.setFaultSkips(f.fault_skips);
  w.setFaultCostNs(f.fault_cost_ns);
  w.setGapsNs(f.gaps_ns);
  w.setDeferredReleases(f.deferred_releases);
  w.setDeferredReleaseNs(f.deferred_release_ns);
  w.setReleaseDrops(f.release_drops);
  serialise(mb, out);
}

Status decode_footer(std::span<const capnp::word> msg, TraceFooter& f) {
  return guarded("footer", msg, [&](capnp::MessageReader& mr) {
    auto r = mr.getRoot<wire::Footer>();
    f.end_ns = r.getEndNs();
    f.exit_status = r.getExitStatus();
    auto seen = r.getSeen();
    auto drops = r.getDrops();
    for (int i = 0; i < kClassCount; ++i) {
      f.seen[i] = i < static_cast<int>(seen.size()) ? seen[i] : 0;
      f.drops[i] = i < static_cast<int>(drops.size()) ? drops[i] : 0;
    }
    f.io_uring_submissions = r.getIoUringSubmissions();
    f.string_drops = r.getStringDrops();
    f.notes = r.getNotes();
    f.wall_ns = r.getWallNs();
    f.divergences = r.getDivergences();
    f.approx_deps = r.getApproxDeps();
    f.recorder_stolen_ns = r.getRecorderStolenNs();
    f.stolen_measured = r.getStolenMeasured();
    f.user_faults = r.getUserFaults();
    f.fault_records = r.getFaultRecords();
    f.fault_skips = r.getFaultSkips();
    f.fault_cost_ns = r.getFaultCostNs();
    f.gaps_ns = r.getGapsNs();
    f.deferred_releases = r.getDeferredReleases();
    f.deferred_release_ns = r.getDeferredReleaseNs();
    f.release_drops = r.getReleaseDrops();
    return Status::ok();
  });
}

void encode_strings(uint32_t first_id, std::span<const std::string_view> strings, Compressor& z,
                    std::vector<uint8_t>& out) {
  SortedStrings sorted;
  sort_code(strings, sorted);
  // The suffix lengths are always stored, so that a block of empty strings
  // still says it is sorted-coded; all-zero varint columns are not.
  const std::pair<StringColumn, std::span<const uint8_t>> cols[] = {
      {kScOrder, sorted.order.all_zero() ? std::span<const uint8_t>() : sorted.order.bytes()},
      {kScPrefix, sorted.prefix.all_zero() ? std::span<const uint8_t>() : sorted.prefix.bytes()},
      {kScSuffixLength, sorted.suffix_length.bytes()},
      {kScSuffix, sorted.suffix}};
  auto stored = [](StringColumn id, std::span<const uint8_t> bytes) { return !bytes.empty() || id == kScSuffixLength; };
  capnp::MallocMessageBuilder mb;
  auto w = mb.initRoot<wire::StringBlock>();
  w.setFirstId(first_id);
  w.setCount(static_cast<uint32_t>(strings.size()));
  unsigned used = 0;
  for (const auto& [id, bytes] : cols) used += stored(id, bytes);
  auto list = w.initColumns(used);
  unsigned i = 0;
  std::vector<uint8_t> zbuf;
  for (const auto& [id, bytes] : cols) {
    if (!stored(id, bytes)) continue;
    z.compress(bytes, zbuf);
    list[i].setId(id);
    list[i].setRawBytes(static_cast<uint32_t>(bytes.size()));
    list[i++].setData(kj::arrayPtr(zbuf.data(), zbuf.size()));
  }
  serialise(mb, out);
}

namespace {

// The strings of a sorted-coded block (schema.capnp "StringBlock", format version 3).
Status decode_sorted(capnp::List<wire::Column>::Reader columns, uint64_t count, Decompressor& z,
                     std::vector<std::string>& table) {
  if (count > kMaxStringBlockStrings)
    return Status::error("string block claims " + std::to_string(count) + " strings (limit " +
                         std::to_string(kMaxStringBlockStrings) + ")");
  std::vector<uint64_t> varints[kScSuffix];  // by id; absent: all zero
  std::vector<uint8_t> suffix, raw;
  std::vector<bool> present(kScCount);
  for (auto col : columns) {
    const uint16_t id = col.getId();
    if (id == 0 || id >= kScCount) continue;  // from a newer writer: ignore
    const uint64_t limit = id == kScSuffix ? kMaxStringBlockBytes : count * 10;
    if (col.getRawBytes() > limit)
      return Status::error("string column " + std::to_string(id) + " claims " + std::to_string(col.getRawBytes()) +
                           " bytes (limit " + std::to_string(limit) + ")");
    if (present[id]) return Status::error("string column " + std::to_string(id) + " appears twice");
    present[id] = true;
    auto data = col.getData();
    std::vector<uint8_t>& into = id == kScSuffix ? suffix : raw;
    if (Status st = z.decompress({data.begin(), data.size()}, col.getRawBytes(), into); !st)
      return Status::error("string column " + std::to_string(id) + ": " + st.message());
    if (id != kScSuffix)
      if (Status st = decode_column(raw, count, varints[id]); !st)
        return Status::error("string column " + std::to_string(id) + ": " + st.message());
  }
  for (int id = kScOrder; id < kScSuffix; ++id)
    if (!present[id]) varints[id].assign(count, 0);
  return sort_decode(varints[kScOrder], varints[kScPrefix], varints[kScSuffixLength], suffix, table);
}

}  // namespace

Status decode_strings(std::span<const capnp::word> msg, Decompressor& z, std::vector<std::string>& table) {
  return guarded("strings", msg, [&](capnp::MessageReader& mr) {
    auto r = mr.getRoot<wire::StringBlock>();
    auto list = r.getStrings();
    auto blob = r.getFrontCoded();
    auto columns = r.getColumns();
    if ((list.size() > 0) + (blob.size() > 0) + (columns.size() > 0) > 1)
      return Status::error("string block holds strings in more than one coding");
    const bool sorted = columns.size() > 0;
    const bool front_coded = !sorted && (r.getCount() > 0 || blob.size() > 0);
    uint64_t count = sorted || front_coded ? r.getCount() : list.size();
    uint64_t first = r.getFirstId();
    if (first + count <= table.size()) return Status::ok();  // already loaded (index scan)
    if (first != table.size())
      return Status::error("string block starts at id " + std::to_string(first) + ", expected " +
                           std::to_string(table.size()) + " (an earlier string block is missing)");
    if (sorted || front_coded) {
      Status st =
          sorted ? decode_sorted(columns, count, z, table) : front_decode({blob.begin(), blob.size()}, count, table);
      if (!st) return Status::error("string block at id " + std::to_string(first) + ": " + st.message());
      return Status::ok();
    }
    for (auto s : list) table.push_back(str_of(s));
    return Status::ok();
  });
}

void encode_prestate(std::span<const PrestateEntry> entries, std::vector<uint8_t>& out) {
  capnp::MallocMessageBuilder mb;
  auto list = mb.initRoot<wire::PrestateBlock>().initEntries(static_cast<unsigned>(entries.size()));
  for (size_t i = 0; i < entries.size(); ++i) {
    const PrestateEntry& e = entries[i];
    auto o = list[i];
    o.setPath(bytes_of(e.path));
    o.setKind(static_cast<uint8_t>(e.kind));
    o.setMode(e.mode);
    o.setSize(e.size);
    o.setTarget(bytes_of(e.target));
    o.setIno(e.ino);
    o.setDev(e.dev);
    o.setNlink(e.nlink);
  }
  serialise(mb, out);
}

Status decode_prestate(std::span<const capnp::word> msg, std::vector<PrestateEntry>& out) {
  return guarded("prestate", msg, [&](capnp::MessageReader& mr) {
    for (auto e : mr.getRoot<wire::PrestateBlock>().getEntries()) {
      PrestateEntry p;
      p.path = str_of(e.getPath());
      uint8_t k = e.getKind();
      if (k < 1 || k > 4) return Status::error("prestate entry '" + p.path + "' has unknown kind " + std::to_string(k));
      p.kind = static_cast<PrestateKind>(k);
      p.mode = e.getMode();
      p.size = e.getSize();
      p.target = str_of(e.getTarget());
      p.ino = e.getIno();
      p.dev = e.getDev();
      p.nlink = e.getNlink();
      out.push_back(std::move(p));
    }
    return Status::ok();
  });
}

void encode_index(std::span<const IndexRecord> entries, uint64_t total_records, std::vector<uint8_t>& out) {
  capnp::MallocMessageBuilder mb;
  auto w = mb.initRoot<wire::Index>();
  w.setTotalRecords(total_records);
  auto list = w.initEntries(static_cast<unsigned>(entries.size()));
  for (size_t i = 0; i < entries.size(); ++i) {
    list[i].setOffset(entries[i].offset);
    list[i].setType(entries[i].type);
    list[i].setRecords(entries[i].records);
    list[i].setFirstRecord(entries[i].first_record);
  }
  serialise(mb, out);
}

Status decode_index(std::span<const capnp::word> msg, std::vector<IndexRecord>& out, uint64_t* total) {
  return guarded("index", msg, [&](capnp::MessageReader& mr) {
    auto r = mr.getRoot<wire::Index>();
    if (total) *total = r.getTotalRecords();
    for (auto e : r.getEntries()) out.push_back({e.getOffset(), e.getType(), e.getRecords(), e.getFirstRecord()});
    return Status::ok();
  });
}

}  // namespace fsr

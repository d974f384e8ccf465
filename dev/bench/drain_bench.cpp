// SPDX-License-Identifier: Apache-2.0
// Drain benchmark: the recorder's drain pipeline (recorder.cpp: lanes ->
// RingMerger -> EventDecoder -> TraceWriter) timed offline on a recorded
// trace, so that a change to it is measured without a workload competing for
// the CPU (measured inside a live recording, the drain's cost swings with
// the workload). Each event of TRACE is turned back into the kernel record the BPF
// side wrote for it (recorder/core/record_builder.h) and framed into one of C
// lanes by thread, as bpf/fsreplay_record.h lays them out; the drains the
// recorder would have made are worked out from the records' `end` times. All
// of that happens before the clock starts. Each round then runs a fresh
// merger, decoder and writer over every record, as recorder.cpp does: read
// each lane up to where it stood at the drain, release the merger up to the
// drain's horizon, flush the writer once a second of trace time, finish.
// Prints figures; asserts nothing. Afterwards the last round's trace is read
// back and compared with TRACE, thread by thread: the drain of the rebuilt
// records should give back the same events.
//   fsreplay_bench_drain [--rounds R] [--cpus C] [--warm-mib M] TRACE
// --warm-mib M warms the process before round 1 as `fsreplay record` does
// before its workload starts (M MiB of heap and every mapped page:
// recorder/core/heap_warmup.h); 0 leaves it cold.
// Round 1 touches the pipeline's memory first (page faults, as in a live
// recorder); later rounds reuse the heap, whose layout moves the figures of
// a small trace a lot between runs. GLIBC_TUNABLES=glibc.malloc.hugetlb=1
// (huge pages for malloc) steadies them, but that is not the recorder's
// malloc: say so with any figure taken that way.
#include <fmt/core.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "recorder/core/event_decoder.h"
#include "recorder/core/heap_warmup.h"
#include "recorder/core/lane_reader.h"
#include "recorder/core/record_builder.h"
#include "recorder/core/bpf_options.h"
#include "recorder/bpf/drain_pace.h"
#include "recorder/core/ring_merger.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

using namespace fsr;

namespace {

uint64_t minor_faults() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return static_cast<uint64_t>(u.ru_minflt);
}

// One lane: frames laid out from position 0 as the BPF side writes them
// (fsr_frame_at, fsr_frame_size), never wrapped or rewound.
struct Lane {
  std::vector<uint64_t> words;
  LaneView view;
};

// What a drain at some moment of the recording finds and does.
struct Drain {
  uint64_t horizon;  // the merger releases records with end <= horizon
  bool flush;        // the writer flushes after it
};

struct Input {
  TraceHeader header;
  TraceFooter footer;
  uint64_t events = 0;       // events in the trace
  uint64_t unbuildable = 0;  // events with no record form
  uint64_t records = 0;
  uint64_t record_bytes = 0;  // records, without their frames
  std::vector<Lane> lanes;
  std::vector<Drain> drains;
  std::vector<std::pair<std::string, std::string>>
      links;                    // the prestate's symlinks (path, target), as record feeds them
  std::vector<uint64_t> heads;  // per drain, each lane's head (drains x lanes)
};

// One lane's records before they are framed, in trace order.
struct LaneRecords {
  std::vector<char> bytes;  // the records, back to back
  struct Rec {
    uint64_t end;
    size_t at, size;  // in `bytes`
  };
  std::vector<Rec> recs;
};

// The record of every event of the trace at `path`, in lane tid % lanes.size()
// (a CPU that a thread never leaves).
Status read_records(const std::string& path, Input& in, std::vector<LaneRecords>& lanes) {
  FSR_ASSIGN_OR_RETURN(std::unique_ptr<TraceReader> reader, TraceReader::open(path));
  TraceReader& r = *reader;
  if (r.kind() != PayloadKind::kTrace) return Status::error(fmt::format("{}: not a trace (a replay result?)", path));
  in.header = r.header();
  FSR_RETURN_IF_ERROR(r.for_each_prestate([&](std::span<const PrestateEntry> block) {
                         for (const PrestateEntry& e : block)
                           if (e.kind == PrestateKind::kSymlink) in.links.emplace_back(e.path, e.target);
                         return Status::ok();
                       }).status());
  std::vector<Event> chunk;
  std::vector<char> bytes;
  for (;;) {
    FSR_ASSIGN_OR_RETURN(const bool more, r.next(chunk));
    if (!more) break;
    for (const Event& e : chunk) {
      ++in.events;
      if (!record_for_event(e, in.header.mono_start_ns, r.str(e.path[0]), r.str(e.path[1]), bytes)) {
        ++in.unbuildable;
        continue;
      }
      fsr_rec h;
      std::memcpy(&h, bytes.data(), sizeof(h));
      LaneRecords& lane = lanes[e.tid % lanes.size()];
      lane.recs.push_back({h.end, lane.bytes.size(), bytes.size()});
      lane.bytes.insert(lane.bytes.end(), bytes.begin(), bytes.end());
      in.record_bytes += bytes.size();
      ++in.records;
    }
  }
  if (!r.problems().complete())
    return Status::error(fmt::format("{}: damaged or truncated ({}): the bench wants a whole trace", path,
                                     r.problems().messages.empty() ? "no footer" : r.problems().messages.front()));
  in.footer = r.footer().value_or(TraceFooter{});
  return Status::ok();
}

// Frames the records into `lane` as the BPF side writes them, and returns,
// after each record, the head that publishes it.
std::vector<uint64_t> frame_lane(const LaneRecords& src, Lane& lane) {
  std::vector<uint64_t> head_after;
  uint64_t pos = 0;
  for (const LaneRecords::Rec& x : src.recs) {
    pos = fsr_frame_at(pos) + fsr_frame_size(x.size);
    head_after.push_back(pos);
  }
  uint64_t segs = 1;
  while ((segs << FSR_SEG_SHIFT) < pos) segs <<= 1;
  lane.words.assign((segs << FSR_SEG_SHIFT) / 8, 0);
  char* base = reinterpret_cast<char*>(lane.words.data());
  pos = 0;
  for (const LaneRecords::Rec& x : src.recs) {
    const uint64_t at = fsr_frame_at(pos), len = x.size;
    std::memcpy(base + at, &len, sizeof(len));
    std::memcpy(base + at + FSR_FRAME_HDR, src.bytes.data() + x.at, x.size);
    pos = at + fsr_frame_size(x.size);
  }
  lane.view = {reinterpret_cast<const uint8_t*>(base), segs - 1, UINT64_MAX, 0};  // never rewound
  return head_after;
}

// Reads, frames and plans, all before any clock starts.
Status build_input(const std::string& path, uint32_t cpus, Input& in) {
  std::vector<LaneRecords> src(cpus);
  FSR_RETURN_IF_ERROR(read_records(path, in, src));

  // The lanes hold their records in trace order. A CPU submits in the order
  // of the true `end` times, and so is the trace ordered; the trace's
  // quantised times (timing_quant.h) can swap neighbours a few hundred ns
  // apart, so they do not order a lane, and a record counts as submitted
  // once every record before it is (`published`: the running maximum).
  std::vector<std::vector<uint64_t>> head_after(cpus), published(cpus);
  in.lanes.resize(cpus);
  for (uint32_t c = 0; c < cpus; ++c) {
    head_after[c] = frame_lane(src[c], in.lanes[c]);
    uint64_t latest = 0;
    for (const LaneRecords::Rec& x : src[c].recs) published[c].push_back(latest = std::max(latest, x.end));
  }

  // The drains: one per kDrainIdleNs of trace time (the recorder's pace while
  // the lanes fill slowly), skipping time in which nothing was submitted.
  // A drain at t reads every record submitted by t and releases those older
  // than t minus the horizon margin; the writer flushes once a second.
  std::vector<size_t> next(cpus, 0);
  auto next_end = [&]() {
    uint64_t m = UINT64_MAX;
    for (uint32_t c = 0; c < cpus; ++c)
      if (next[c] < published[c].size()) m = std::min(m, published[c][next[c]]);
    return m;
  };
  uint64_t t = next_end(), last_flush = t;
  if (t != UINT64_MAX) t -= std::min(t, kDrainIdleNs);
  for (uint64_t first = next_end(); first != UINT64_MAX; first = next_end()) {
    t = std::max(t + kDrainIdleNs, first);
    for (uint32_t c = 0; c < cpus; ++c) {
      while (next[c] < published[c].size() && published[c][next[c]] <= t) ++next[c];
      in.heads.push_back(next[c] ? head_after[c][next[c] - 1] : 0);
    }
    const bool flush = t - last_flush >= kDrainFlushEveryNs;
    if (flush) last_flush = t;
    in.drains.push_back({t > kDrainHorizonMarginNs ? t - kDrainHorizonMarginNs : 0, flush});
  }
  return Status::ok();
}

struct Round {
  uint64_t wall_ns = 0, cpu_ns = 0;
  uint64_t faults = 0;  // minor page faults: memory the pipeline touched first
  uint64_t decoded = 0, written = 0, bytes = 0;
};

// One drain of every record into a fresh writer at `out`, timed from the
// first lane read to the end of finish().
Result<Round> run_round(const Input& in, const std::string& out) {
  const uint32_t cpus = static_cast<uint32_t>(in.lanes.size());
  // Set up as recorder.cpp does before the workload starts (not timed).
  RingMerger merger(cpus);
  merger.reserve((uint64_t{BpfOptions{}.buffer_mib} << 20) / 4 / 64);  // as recorder.cpp: a quarter of a default lane
  FSR_ASSIGN_OR_RETURN(std::unique_ptr<TraceWriter> writer_p, TraceWriter::create(out, in.header));
  TraceWriter& writer = *writer_p;
  EventDecoder decoder(in.header.mono_start_ns, [&](std::string_view s) { return writer.add_string(s); });
  decoder.paths().set_root(in.header.root);
  for (const auto& [path, target] : in.links) decoder.paths().add_link(path, target);
  decoder.seed_process(in.header.initial);

  Round round;
  Event ev;
  Status werr;
  auto emit = [&](const void* rec, size_t size) {
    if (!decoder.decode(rec, size, ev)) return;
    ++round.decoded;
    if (werr.is_ok()) werr = writer.append(ev);
  };
  std::vector<uint64_t> tails(cpus, 0);
  const uint64_t faults0 = minor_faults();
  const uint64_t wall0 = now_ns(CLOCK_MONOTONIC), cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
  const uint64_t* heads = in.heads.data();
  for (const Drain& d : in.drains) {
    for (uint32_t c = 0; c < cpus; ++c, ++heads)
      tails[c] = read_lane(in.lanes[c].view, tails[c], *heads,
                           [&](const void* rec, size_t size, uint64_t next) { merger.push(c, rec, size, next); });
    merger.release(d.horizon, emit);
    if (d.flush && werr.is_ok()) werr = writer.flush();
  }
  merger.release(UINT64_MAX, emit);
  if (werr.is_ok()) werr = writer.finish(in.footer);
  round.cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
  round.wall_ns = now_ns(CLOCK_MONOTONIC) - wall0;
  round.faults = minor_faults() - faults0;
  if (!werr) return Status::error(fmt::format("{}: writing failed: {}", out, werr.message()));
  round.written = writer.records_written();
  round.bytes = writer.bytes_written();
  return round;
}

// How the drained trace `got` compares with `want`: events equal (strings
// by text) at the same index, and thread by thread (the interleaving of
// threads aside: quantised times can swap events of two threads that the
// recording ordered by their true times).
struct Comparison {
  uint64_t in_order = 0, per_thread = 0;
  std::string first;  // the first event that differs thread by thread
};

Result<Comparison> compare_traces(const std::string& want, const std::string& got) {
  FSR_ASSIGN_OR_RETURN(std::unique_ptr<TraceReader> a, TraceReader::open(want));
  FSR_ASSIGN_OR_RETURN(std::unique_ptr<TraceReader> b, TraceReader::open(got));
  auto read_all = [](TraceReader& r, std::vector<Event>& out) -> Status {
    std::vector<Event> chunk;
    for (;;) {
      FSR_ASSIGN_OR_RETURN(const bool more, r.next(chunk));
      if (!more) return Status::ok();
      out.insert(out.end(), chunk.begin(), chunk.end());
    }
  };
  std::vector<Event> ea, eb;
  FSR_RETURN_IF_ERROR(read_all(*a, ea));
  FSR_RETURN_IF_ERROR(read_all(*b, eb));
  auto same = [&](const Event& x, const Event& y) {
    return x.ts == y.ts && x.dur == y.dur && x.ret == y.ret && std::equal(x.args, x.args + 6, y.args) &&
           x.dev == y.dev && x.ino == y.ino && x.size == y.size && x.mode == y.mode && x.pid == y.pid &&
           x.tid == y.tid && x.nr == y.nr && rebuilt_flags(x.flags) == rebuilt_flags(y.flags) &&
           a->str(x.path[0]) == b->str(y.path[0]) && a->str(x.path[1]) == b->str(y.path[1]);
  };
  Comparison c;
  const size_t n = std::min(ea.size(), eb.size());
  for (size_t i = 0; i < n; ++i) c.in_order += same(ea[i], eb[i]);
  auto by_tid = [](const Event& x, const Event& y) { return x.tid < y.tid; };
  std::stable_sort(ea.begin(), ea.end(), by_tid);
  std::stable_sort(eb.begin(), eb.end(), by_tid);
  for (size_t i = 0; i < n; ++i) {
    if (same(ea[i], eb[i])) {
      ++c.per_thread;
    } else if (c.first.empty()) {
      c.first = fmt::format("{} of tid {} at ts {} (path \"{}\"): drained as {} (path \"{}\", flags {:#x} for {:#x})",
                            syscall_name(ea[i].nr), ea[i].tid, ea[i].ts, a->str(ea[i].path[0]), syscall_name(eb[i].nr),
                            b->str(eb[i].path[0]), eb[i].flags, ea[i].flags);
    }
  }
  return c;
}

// A scratch file on tmpfs where there is one: the bench times the drain, not a disk.
std::string temp_trace() {
  std::string dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  std::string path = dir + "/fsreplay-drain-XXXXXX";
  int fd = mkstemp(path.data());
  if (fd < 0) return {};
  close(fd);
  return path;
}

int usage() {
  fmt::print(stderr, "usage: fsreplay_bench_drain [--rounds R] [--cpus C] [--warm-mib M] TRACE\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 5;
  uint32_t cpus = 2;
  int warm_mib = 0;
  std::string trace;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "--rounds" || a == "--cpus" || a == "--warm-mib") && i + 1 < argc) {
      const int v = atoi(argv[++i]);
      if (v < (a == "--warm-mib" ? 0 : 1) || v > 1024) return usage();
      if (a == "--rounds")
        rounds = v;
      else if (a == "--warm-mib")
        warm_mib = v;
      else
        cpus = static_cast<uint32_t>(v);
    } else if (!a.empty() && a[0] != '-' && trace.empty()) {
      trace = a;
    } else {
      return usage();
    }
  }
  if (trace.empty()) return usage();

  Input in;
  if (Status st = build_input(trace, cpus, in); !st) {
    fmt::print(stderr, "fsreplay_bench_drain: {}\n", st.message());
    return 1;
  }
  fmt::print("{}: {} events -> {} records in {} lanes, {:.1f} MiB ({:.0f} B/record), {} drains\n", trace, in.events,
             in.records, cpus, in.record_bytes / 1048576.0, in.records ? double(in.record_bytes) / in.records : 0.0,
             in.drains.size());
  if (in.unbuildable)
    fmt::print(
        "warning: {} events have no kernel record form (a syscall number outside the table, or a path "
        "over 64 KiB): left out, not decoded\n",
        in.unbuildable);
  if (in.records == 0) return fmt::print(stderr, "fsreplay_bench_drain: {}: no events\n", trace), 1;

  if (warm_mib > 0)
    fmt::print("warmed: {} MiB of heap, and the pages mapped\n", warm_up(static_cast<size_t>(warm_mib) << 20) >> 20);
  const std::string out = temp_trace();
  if (out.empty()) return fmt::print(stderr, "fsreplay_bench_drain: no scratch file: {}\n", strerror(errno)), 1;
  std::vector<double> per_event;
  Round last;
  for (int i = 1; i <= rounds; ++i) {
    auto r = run_round(in, out);
    if (!r) {
      unlink(out.c_str());
      fmt::print(stderr, "fsreplay_bench_drain: {}\n", r.message());
      return 1;
    }
    last = r.value();
    const double ns = double(last.wall_ns) / double(in.records);
    per_event.push_back(ns);
    fmt::print(
        "round {}: {:.0f} ns/event (cpu {:.0f}), {:.0f} events/s, {} page faults, decoded {} of {}, wrote {} "
        "({:.1f} MiB)\n",
        i, ns, double(last.cpu_ns) / double(in.records), 1e9 / ns, last.faults, last.decoded, in.events, last.written,
        last.bytes / 1048576.0);
  }
  std::sort(per_event.begin(), per_event.end());
  const double median = per_event[per_event.size() / 2];
  fmt::print("median: {:.0f} ns/event, {:.0f} events/s over {} rounds\n", median, 1e9 / median, rounds);
  if (last.decoded < in.records)
    fmt::print("warning: decode dropped {} of {} records (records that do not parse, or of an unknown syscall)\n",
               in.records - last.decoded, in.records);

  // Fidelity: the drain of the rebuilt records should give back the trace.
  auto cmp = compare_traces(trace, out);
  unlink(out.c_str());
  if (!cmp) return fmt::print(stderr, "fsreplay_bench_drain: reading back: {}\n", cmp.message()), 1;
  fmt::print("same as the input: {} of {} events thread by thread, {} in the input's order\n", cmp->per_thread,
             in.events, cmp->in_order);
  if (!cmp->first.empty()) fmt::print("  first difference: {}\n", cmp->first);
  return 0;
}

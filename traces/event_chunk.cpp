// SPDX-License-Identifier: Apache-2.0
#include "traces/event_chunk.h"

#include <capnp/serialize.h>

#include <algorithm>
#include <string>

#include "traces/frame.h"
#include "traces/syscalls.h"
#include "traces/timing_quant.h"

namespace fsr {
namespace {

// Stored in the flags column only: this event's inode facts are coded
// against a reference (inode_facts.h; EventFlag never uses the bit).
constexpr uint64_t kFactsCodedBit = 1u << 15;

// Path ids are interned in order of first use, so a path never seen before is
// usually "the next id"; a path seen before is usually near the thread's last
// one. 0 = none, 1 = next new id, else 2 + zigzag(delta to the thread's last path).
uint64_t code_path(uint32_t id, uint32_t& max_id, uint32_t& last) {
  if (id == kNoStr) return 0;
  uint64_t v = id == max_id + 1 ? 1 : 2 + zigzag(static_cast<int64_t>(id) - static_cast<int64_t>(last));
  max_id = std::max(max_id, id);
  last = id;
  return v;
}
bool decode_path(uint64_t v, uint32_t& max_id, uint32_t& last, uint32_t& id) {
  if (v == 0) {
    id = kNoStr;
    return true;
  }
  int64_t x = v == 1 ? static_cast<int64_t>(max_id) + 1 : static_cast<int64_t>(last) + unzigzag(v - 2);
  if (x <= 0 || x > UINT32_MAX) return false;
  id = static_cast<uint32_t>(x);
  max_id = std::max(max_id, id);
  last = id;
  return true;
}

// Durations at or above this are coded without a residual (no overflow in
// duration + residual; no real syscall lasts 146 years).
constexpr uint64_t kResidualDurLimit = uint64_t{1} << 62;

// A quantised value from its exponent and mantissa columns; false if out of range.
inline bool read_timing(uint64_t exp, uint64_t mant, uint64_t& v) {
  const TimingCode c{static_cast<uint32_t>(std::min<uint64_t>(exp, UINT32_MAX)), mant};
  if (!timing_code_valid(c)) return false;
  v = dequantise(c);
  return true;
}

// The codings a chunk declares (schema.capnp "Chunk"): known values only,
// and only the columns of its codings.
Status check_codings(wire::Chunk::Reader chunk, const std::vector<bool>& present) {
  const auto timing = chunk.getTiming();
  if (timing != wire::Chunk::Timing::NS && timing != wire::Chunk::Timing::QUANTISED)
    return Status::error("chunk has unknown timing coding " + std::to_string(static_cast<unsigned>(timing)));
  const bool quantised = timing == wire::Chunk::Timing::QUANTISED;
  if (quantised ? present[kEcTs] || present[kEcDur]
                : present[kEcTsExp] || present[kEcTsMant] || present[kEcDurExp] || present[kEcDurMant])
    return Status::error(std::string("chunk with ") + (quantised ? "quantised" : "ns") +
                         " timing stores columns of the other coding");
  const auto facts = chunk.getFacts();
  if (facts != wire::Chunk::Facts::PREVIOUS && facts != wire::Chunk::Facts::THREAD)
    return Status::error("chunk has unknown inode facts coding " + std::to_string(static_cast<unsigned>(facts)));
  if (facts == wire::Chunk::Facts::THREAD && present[kEcIno])
    return Status::error("chunk with inode facts coded by thread stores the XOR-coded inode column");
  return Status::ok();
}

inline uint64_t at(const std::vector<uint64_t>& c, size_t i) { return c[i]; }

}  // namespace

uint32_t EventChunkEncoder::thread_index(const Event& e) {
  if (last_thread_ < threads_.size() && threads_[last_thread_].tid == e.tid && threads_[last_thread_].pid == e.pid)
    return last_thread_;
  uint64_t key = (static_cast<uint64_t>(e.pid) << 32) | e.tid;
  auto [it, inserted] = thread_map_.try_emplace(key, static_cast<uint32_t>(threads_.size()));
  if (inserted) {
    // A thread seen before continues from its previous end as decoded; a new
    // one starts at its exact enter time.
    ThreadTiming t{e.ts, e.ts, 0};
    if (auto c = carried_.find(key); c != carried_.end()) t = c->second;
    std::unique_ptr<ThreadColumns> cols;
    if (auto p = parked_.find(key); p != parked_.end()) {
      cols = std::move(p->second);
      parked_.erase(p);
    } else if (!spare_.empty()) {
      cols = std::move(spare_.back());
      spare_.pop_back();
    } else {
      cols = std::make_unique<ThreadColumns>();
      for (int c = 0; c < kEcCount; ++c) cols->cols[c].reserve(len_hint_[c] + len_hint_[c] / 4);
    }
    in_use_.push_back(std::move(cols));
    threads_.push_back({e.pid, e.tid, t, t.end, 0, false, {}, in_use_.back()->cols});
  }
  last_thread_ = it->second;
  return it->second;
}

void EventChunkEncoder::add(const Event& e) {
  if (count_ == 0) base_ts_ = e.ts;
  uint32_t ti = thread_index(e);
  ThreadSlot& t = threads_[ti];
  ThreadTiming& tm = t.timing;
  cols_[kEcThread].put(ti);
  ColumnBuilder* cols = t.cols;  // every other column is thread-major
  // The thread's compute gap: enter time minus the thread's previous exit as
  // the decoder will see it, so that earlier rounding is made good here.
  // Calls of one thread do not overlap, and the replayer relies on it: a gap
  // that is not negative in truth is not coded negative (which a duration
  // rounded up could otherwise cause).
  const int64_t gap = static_cast<int64_t>(e.ts - tm.end);
  TimingCode g = quantise(gap < 0 ? 0 - static_cast<uint64_t>(gap) : static_cast<uint64_t>(gap));
  bool negative = gap < 0;
  if (negative && e.ts >= tm.true_end) {
    g = {};
    negative = false;
  }
  cols[kEcTsExp].put(2 * g.exp + (negative ? 1 : 0));
  cols[kEcTsMant].put(g.mant);
  const uint64_t enter = negative ? tm.end - dequantise(g) : tm.end + dequantise(g);
  // The duration carries what the thread's earlier durations lost to
  // rounding. Short ones (the 0 of a pseudo event) stay exact and leave the
  // residual to the next.
  TimingCode d;
  if (e.dur < kTimingExact) {
    d = quantise(e.dur);
  } else if (e.dur < kResidualDurLimit) {
    const int64_t want = static_cast<int64_t>(e.dur) + tm.dur_residual;
    d = quantise(want > 0 ? static_cast<uint64_t>(want) : 0);
    tm.dur_residual = want - static_cast<int64_t>(dequantise(d));
  } else {
    d = quantise(e.dur);
    tm.dur_residual = 0;
  }
  cols[kEcDurExp].put(d.exp);
  cols[kEcDurMant].put(d.mant);
  tm.end = enter + dequantise(d);
  tm.true_end = e.ts + e.dur;
  if (e.nr == kEvProcExit) t.exited = true;  // its state need not outlive the chunk
  cols[kEcNr].put(e.nr);
  cols[kEcRet].put_signed(e.ret);
  for (int a = 0; a < 6; ++a) cols[kEcArg0 + a].put_signed(static_cast<int64_t>(e.args[a]));
  cols[kEcPath0].put(code_path(e.path[0], max_path_, t.last_path));
  cols[kEcPath1].put(code_path(e.path[1], max_path_, t.last_path));
  const FactsCode f = facts_.code(e, t.facts);
  cols[kEcDev].put(f.dev);
  cols[kEcInoDelta].put_signed(f.ino);
  cols[kEcSize].put_signed(f.size);
  cols[kEcMode].put(f.mode);
  cols[kEcFlags].put(e.flags | (f.coded ? kFactsCodedBit : 0));
  ++count_;
  if (e.nr == kEvProcExit)  // the thread's last event: its columns are as long as they get
    for (int c = 0; c < kEcCount; ++c) len_hint_[c] = (3 * len_hint_[c] + cols[c].size()) / 4;
}

void EventChunkEncoder::finish(Compressor& z, uint64_t first_record, std::vector<uint8_t>& out) {
  // Thread-major columns (columns.h): each thread's part, in table order.
  for (int c = kEcThread + 1; c < kEcCount; ++c)
    for (const ThreadSlot& t : threads_) cols_[c].append(t.cols[c]);
  capnp::MallocMessageBuilder mb(first_segment(segment_, estimate_words(cols_, kEcCount) + threads_.size() + 8));
  build_chunk(mb, cols_, kEcCount, count_, first_record, base_ts_, z, zbuf_);
  mb.getRoot<wire::Chunk>().setBasePath(base_path_);
  mb.getRoot<wire::Chunk>().setTiming(wire::Chunk::Timing::QUANTISED);
  mb.getRoot<wire::Chunk>().setFacts(wire::Chunk::Facts::THREAD);
  mb.getRoot<wire::Chunk>().setColumnOrder(wire::Chunk::ColumnOrder::THREAD);
  auto th = mb.getRoot<wire::Chunk>().initThreads(static_cast<unsigned>(threads_.size()));
  for (size_t i = 0; i < threads_.size(); ++i) {
    th[i].setPid(threads_[i].pid);
    th[i].setTid(threads_[i].tid);
    th[i].setPrevEnd(threads_[i].prev_end);
  }
  serialise(mb, out);
  for (auto& c : cols_) c.clear();
  if (carried_.size() + threads_.size() > kMaxCarriedThreads) carried_.clear();
  for (size_t i = 0; i < threads_.size(); ++i) {
    const ThreadSlot& t = threads_[i];
    for (int c = 0; c < kEcCount; ++c) t.cols[c].clear();
    uint64_t key = (static_cast<uint64_t>(t.pid) << 32) | t.tid;
    if (t.exited) {
      carried_.erase(key);
      spare_.push_back(std::move(in_use_[i]));
    } else {
      carried_[key] = t.timing;
      parked_[key] = std::move(in_use_[i]);
    }
  }
  in_use_.clear();
  if (parked_.size() + spare_.size() > kMaxPooledThreads) {
    spare_.clear();
    if (parked_.size() > kMaxPooledThreads) parked_.clear();
  }
  threads_.clear();
  thread_map_.clear();
  last_thread_ = UINT32_MAX;
  count_ = 0;
  base_path_ = max_path_;
  facts_.next_chunk();
}

Status decode_event_chunk(std::span<const capnp::word> msg, Decompressor& z, ChunkScratch& s, std::vector<Event>& out,
                          uint64_t* first_record, size_t string_count) {
  try {
    capnp::FlatArrayMessageReader mr(kj::arrayPtr(msg.data(), msg.size()), untrusted_options(msg.size()));
    auto chunk = mr.getRoot<wire::Chunk>();
    const auto order = chunk.getColumnOrder();
    if (order != wire::Chunk::ColumnOrder::EVENT && order != wire::Chunk::ColumnOrder::THREAD)
      return Status::error("chunk has unknown column order " + std::to_string(static_cast<unsigned>(order)));
    auto wire_threads = chunk.getThreads();
    FSR_RETURN_IF_ERROR(
        read_columns(chunk, kEcCount, z, s, order == wire::Chunk::ColumnOrder::THREAD, wire_threads.size()));
    const auto& cols = s.cols;
    const uint32_t n = chunk.getCount();
    FSR_RETURN_IF_ERROR(check_codings(chunk, s.present));
    const bool quantised = chunk.getTiming() == wire::Chunk::Timing::QUANTISED;
    std::vector<std::pair<uint32_t, uint32_t>> threads;
    std::vector<uint64_t> last_ts;
    threads.reserve(wire_threads.size());
    last_ts.reserve(wire_threads.size());
    for (auto t : wire_threads) {
      threads.emplace_back(t.getPid(), t.getTid());
      last_ts.push_back(quantised ? t.getPrevEnd() : chunk.getBaseTs());
    }
    std::vector<uint32_t> last_path(threads.size(), 0);
    uint32_t max_path = chunk.getBasePath();
    const FactsCoding facts_coding =
        chunk.getFacts() == wire::Chunk::Facts::THREAD ? FactsCoding::kThread : FactsCoding::kPrevious;
    const bool ino_delta = s.present[kEcInoDelta];
    FactsDecoder facts(s.facts, facts_coding, ino_delta, threads.size());
    out.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      Event& e = out[i];
      const uint64_t ti = at(cols[kEcThread], i);
      if (ti >= threads.size())
        return Status::error("event " + std::to_string(i) + " names thread " + std::to_string(ti) + " of " +
                             std::to_string(threads.size()));
      e.pid = threads[ti].first;
      e.tid = threads[ti].second;
      if (quantised) {
        uint64_t x = at(cols[kEcTsExp], i), gap;
        if (!read_timing(x >> 1, at(cols[kEcTsMant], i), gap))
          return Status::error("event " + std::to_string(i) + " has an out-of-range quantised gap");
        e.ts = x & 1 ? last_ts[ti] - gap : last_ts[ti] + gap;
        if (!read_timing(at(cols[kEcDurExp], i), at(cols[kEcDurMant], i), e.dur))
          return Status::error("event " + std::to_string(i) + " has an out-of-range quantised duration");
      } else {
        e.ts = last_ts[ti] + static_cast<uint64_t>(unzigzag(at(cols[kEcTs], i)));
        e.dur = at(cols[kEcDur], i);
      }
      last_ts[ti] = e.ts + e.dur;
      e.nr = static_cast<uint16_t>(at(cols[kEcNr], i));
      e.ret = unzigzag(at(cols[kEcRet], i));
      for (int a = 0; a < 6; ++a) e.args[a] = static_cast<uint64_t>(unzigzag(at(cols[kEcArg0 + a], i)));
      for (int k = 0; k < 2; ++k)
        if (!decode_path(at(cols[kEcPath0 + k], i), max_path, last_path[ti], e.path[k]) || e.path[k] >= string_count)
          return Status::error("event " + std::to_string(i) + " names a path id beyond the string table (" +
                               std::to_string(string_count) + " strings)");
      e.dev = at(cols[kEcDev], i);
      e.ino = ino_delta ? static_cast<uint64_t>(unzigzag(at(cols[kEcInoDelta], i))) : at(cols[kEcIno], i);
      e.size = static_cast<uint64_t>(unzigzag(at(cols[kEcSize], i)));
      e.mode = static_cast<uint32_t>(at(cols[kEcMode], i));
      uint64_t fl = at(cols[kEcFlags], i);
      e.flags = static_cast<uint16_t>(fl & ~kFactsCodedBit);
      if (fl & kFactsCodedBit) facts.decode(e, ti);
    }
    if (first_record) *first_record = chunk.getFirstRecord();
    return Status::ok();
  } catch (const kj::Exception& ex) {
    return Status::error(std::string("malformed chunk message: ") + ex.getDescription().cStr());
  }
}

}  // namespace fsr

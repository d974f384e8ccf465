// SPDX-License-Identifier: Apache-2.0
#include "traces/op_chunk.h"

#include <capnp/serialize.h>

#include <string>

namespace fsr {
namespace {

inline uint64_t at(const std::vector<uint64_t>& c, size_t i) { return c[i]; }

}  // namespace

void OpChunkEncoder::add(const OpRecord& r) {
  cols_[kOcEventIndex].put_signed(static_cast<int64_t>(r.event_index - prev_index_));
  cols_[kOcStart].put_signed(static_cast<int64_t>(r.start - prev_start_));
  prev_index_ = r.event_index;
  prev_start_ = r.start;
  cols_[kOcLatency].put(r.latency);
  cols_[kOcLateness].put_signed(r.lateness);
  cols_[kOcDepWait].put(r.dep_wait);
  cols_[kOcGap].put(r.gap);
  cols_[kOcRet].put_signed(r.ret);
  cols_[kOcRecordedRet].put_signed(r.recorded_ret);
  cols_[kOcWaitedOn].put(r.waited_on);
  cols_[kOcRecordedDur].put(r.recorded_dur);
  cols_[kOcPid].put(r.pid);
  cols_[kOcTid].put(r.tid);
  cols_[kOcWorker].put(r.worker);
  cols_[kOcPath].put(r.path);
  cols_[kOcNr].put(r.nr);
  cols_[kOcFlags].put(r.flags);
  ++count_;
}

void OpChunkEncoder::finish(Compressor& z, uint64_t first_record, std::vector<uint8_t>& out) {
  capnp::MallocMessageBuilder mb(first_segment(segment_, estimate_words(cols_, kOcCount)));
  build_chunk(mb, cols_, kOcCount, count_, first_record, 0, z, zbuf_);
  serialise(mb, out);
  for (auto& c : cols_) c.clear();
  prev_index_ = prev_start_ = 0;
  count_ = 0;
}

Status decode_op_chunk(std::span<const capnp::word> msg, Decompressor& z, ChunkScratch& s, std::vector<OpRecord>& out,
                       uint64_t* first_record) {
  try {
    capnp::FlatArrayMessageReader mr(kj::arrayPtr(msg.data(), msg.size()), untrusted_options(msg.size()));
    auto chunk = mr.getRoot<wire::Chunk>();
    FSR_RETURN_IF_ERROR(read_columns(chunk, kOcCount, z, s, false, 0));
    const auto& cols = s.cols;
    const uint32_t n = chunk.getCount();
    out.resize(n);
    uint64_t idx = 0, start = 0;
    for (uint32_t i = 0; i < n; ++i) {
      OpRecord& r = out[i];
      idx += static_cast<uint64_t>(unzigzag(at(cols[kOcEventIndex], i)));
      start += static_cast<uint64_t>(unzigzag(at(cols[kOcStart], i)));
      r.event_index = idx;
      r.start = start;
      r.latency = at(cols[kOcLatency], i);
      r.lateness = unzigzag(at(cols[kOcLateness], i));
      r.dep_wait = at(cols[kOcDepWait], i);
      r.gap = at(cols[kOcGap], i);
      r.ret = unzigzag(at(cols[kOcRet], i));
      r.recorded_ret = unzigzag(at(cols[kOcRecordedRet], i));
      r.waited_on = at(cols[kOcWaitedOn], i);
      r.recorded_dur = at(cols[kOcRecordedDur], i);
      r.pid = static_cast<uint32_t>(at(cols[kOcPid], i));
      r.tid = static_cast<uint32_t>(at(cols[kOcTid], i));
      r.worker = static_cast<uint32_t>(at(cols[kOcWorker], i));
      r.path = static_cast<StrId>(at(cols[kOcPath], i));
      r.nr = static_cast<uint16_t>(at(cols[kOcNr], i));
      r.flags = static_cast<uint16_t>(at(cols[kOcFlags], i));
    }
    if (first_record) *first_record = chunk.getFirstRecord();
    return Status::ok();
  } catch (const kj::Exception& ex) {
    return Status::error(std::string("malformed chunk message: ") + ex.getDescription().cStr());
  }
}

}  // namespace fsr

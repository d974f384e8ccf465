// SPDX-License-Identifier: Apache-2.0
// Reading side of a lane (bpf/fsreplay_record.h): the frames one CPU's BPF
// programs wrote between the reader's tail and the writer's published head.
// Pure over memory, so the framing is tested without the kernel.
#pragma once

#include <cstddef>
#include <cstdint>

#include "bpf/fsreplay_record.h"

namespace fsr {

struct LaneView {
  const uint8_t* segs = nullptr;  // the lane's segments, FSR_SEG_SIZE bytes each
  uint64_t seg_mask = 0;          // segments - 1 (a power of two minus one)
  uint64_t rewind_from = 0;       // the lane's last rewind (fsr_lane_ctl), read after head
  uint64_t floor = 0;
};

// Calls fn(const void* record, size_t size, uint64_t next) for every frame in
// [tail, head), `next` being the position just past the frame,
// in order, following the rewind. Returns the new tail: head, also when a
// damaged frame stops the walk (a length above FSR_REC_MAX, which the writer
// never produces, would send the reader into memory it does not own); then
// `damaged` is set and the rest of [tail, head) is skipped.
template <typename Fn>
uint64_t read_lane(const LaneView& lane, uint64_t tail, uint64_t head, Fn&& fn, bool* damaged = nullptr) {
  for (;;) {
    if (tail == lane.rewind_from && lane.floor > tail) tail = lane.floor;
    const uint64_t at = fsr_frame_at(tail);
    if (at >= head) return tail;
    const uint8_t* frame =
        lane.segs + (((at >> FSR_SEG_SHIFT) & lane.seg_mask) << FSR_SEG_SHIFT) + (at & (FSR_SEG_SIZE - 1));
    const uint64_t len = *reinterpret_cast<const uint64_t*>(frame);
    if (len > FSR_REC_MAX || at + fsr_frame_size(len) > head) {
      if (damaged) *damaged = true;
      return head;
    }
    tail = at + fsr_frame_size(len);
    fn(static_cast<const void*>(frame + FSR_FRAME_HDR), static_cast<size_t>(len), tail);
  }
}

}  // namespace fsr

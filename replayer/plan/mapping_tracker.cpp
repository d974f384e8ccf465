// SPDX-License-Identifier: Apache-2.0
#include "replayer/plan/mapping_tracker.h"

#include <sys/mman.h>

#include <algorithm>
#include <stdexcept>

namespace fsr {
namespace {

constexpr uint64_t kPage = 4096;
uint64_t page_up(uint64_t n) { return (n + kPage - 1) & ~(kPage - 1); }

}  // namespace

uint32_t MappingTracker::new_space(uint32_t pid) {
  const uint32_t s = static_cast<uint32_t>(spaces_.size());
  spaces_.emplace_back();
  if (plan_.fixed_tables && plan_.spaces.size() == plan_.spaces.capacity())
    throw std::logic_error("plan: more address spaces than the survey counted");
  plan_.spaces.emplace_back();
  current_[pid] = s;
  return s;
}

uint32_t MappingTracker::join(uint32_t tid, uint32_t pid) {
  auto [it, fresh] = space_of_tid_.try_emplace(tid, kNoSpace);
  if (it->second != kNoSpace) return it->second;
  auto cur = current_.find(pid);
  const uint32_t s = cur != current_.end() && !spaces_[cur->second].ended ? cur->second : new_space(pid);
  it->second = s;
  ++spaces_[s].threads_in;
  ++plan_.spaces[s].threads;
  return s;
}

void MappingTracker::saw_thread(uint32_t tid, uint32_t pid) { join(tid, pid); }

MappingTracker::Space* MappingTracker::space_of(uint32_t tid) {
  auto it = space_of_tid_.find(tid);
  return it == space_of_tid_.end() || it->second == kNoSpace ? nullptr : &spaces_[it->second];
}

void MappingTracker::add_vmas(Space& sp, int64_t n) {
  sp.vmas += n;
  live_vmas_ += n;
  if (n > 0 && !sp.held) {
    sp.held = true;
    plan_.peak_spaces = std::max(plan_.peak_spaces, ++live_spaces_);
  }
  plan_.peak_mappings =
      std::max<uint64_t>(plan_.peak_mappings, static_cast<uint64_t>(std::max<int64_t>(live_vmas_, 0)));
}

void MappingTracker::leave(uint32_t i, uint32_t tid) {
  auto it = space_of_tid_.find(tid);
  if (it == space_of_tid_.end() || it->second == kNoSpace) return;
  const uint32_t s = it->second;
  it->second = kNoSpace;
  plan_.op(i).space = s;
  if (--spaces_[s].threads_in == 0) end_space(s);
}

// The space's bases still mapped are unmapped when the replay's last thread
// leaves it (whatever lies inside a base goes with it).
void MappingTracker::end_space(uint32_t s) {
  Space& sp = spaces_[s];
  sp.ended = true;
  PlanSpace& ps = plan_.spaces[s];
  ps.unmap_begin = plan_.unmap_pos;
  for (const Mapping& m : sp.maps)
    if (m.base == kNoOp) arena_push(plan_.unmaps, plan_.unmap_mask, plan_.unmap_pos, PlanUnmap{m.id, 1, 0, 0});
  ps.unmap_end = plan_.unmap_pos;
  live_vmas_ -= sp.vmas;
  if (sp.held) --live_spaces_;
  sp.vmas = 0;
  std::vector<Mapping>().swap(sp.maps);
}

void MappingTracker::exec(uint32_t i, uint32_t tid, uint32_t pid) {
  leave(i, tid);
  // A new image: a new address space, even while the old one waits for
  // threads the exec killed to leave it.
  new_space(pid);
  join(tid, pid);
}

void MappingTracker::exit(uint32_t i, uint32_t tid) { leave(i, tid); }

void MappingTracker::mmap(uint32_t i, const Event& e) {
  const uint32_t s = join(e.tid, e.pid);
  Space& sp = spaces_[s];
  PlanOp& op = plan_.op(i);
  op.space = s;
  const uint64_t addr = static_cast<uint64_t>(e.ret), len = page_up(e.args[1]);
  uint32_t base = kNoOp, base_id = kNoMap;
  // The dynamic loader maps a whole library, then each segment MAP_FIXED
  // over it. The replay places such a segment at the same offset in its own
  // copy of the first mapping (same thread, so program order makes that copy
  // exist first): separate mappings would need more address space and page
  // tables than the original ever had.
  if (e.args[3] & MAP_FIXED) {
    for (size_t k = sp.maps.size(); k-- > 0;) {
      Mapping& m = sp.maps[k];
      if (m.base == kNoOp && m.tid == e.tid && addr >= m.addr && addr - m.addr + len <= m.len) {
        base = m.op;
        base_id = m.id;
        op.ref_op = m.op;
        op.ref_off = addr - m.addr;
        m.vmas += 2;  // it splits the base's mapping around itself, at most
        break;
      }
    }
  }
  if (plan_.fixed_tables && plan_.maps.size() == plan_.maps.capacity())
    throw std::logic_error("plan: more mappings than the survey counted");
  op.map = static_cast<uint32_t>(plan_.maps.size());
  plan_.maps.push_back({len, base_id, static_cast<uint32_t>(i)});
  sp.maps.push_back({addr, len, i, e.tid, base, base == kNoOp ? 1u : 0u, op.map});
  add_vmas(sp, base == kNoOp ? 1 : 2);
}

void MappingTracker::munmap(uint32_t i, const Event& e) {
  PlanOp& op = plan_.op(i);
  op.action = OpAction::kSkip;
  Space* sp = space_of(e.tid);
  if (!sp) sp = &spaces_[join(e.tid, e.pid)];
  const uint64_t a = e.args[0], end = a + page_up(e.args[1]);
  auto overlaps = [&](const Mapping& m) { return m.addr < end && m.addr + m.len > a; };
  auto covers = [&](const Mapping& m) { return a <= m.addr && end >= m.addr + m.len; };
  std::vector<uint32_t> gone;  // bases taken whole: what lies in them goes along
  for (const Mapping& m : sp->maps)
    if (m.base == kNoOp && covers(m)) gone.push_back(m.op);
  auto in_gone = [&](uint32_t op_index) { return std::find(gone.begin(), gone.end(), op_index) != gone.end(); };
  op.unmap_begin = plan_.unmap_pos;
  uint32_t first_op = kNoOp;
  std::vector<uint32_t> holed;                  // bases a segment of which it takes: the rest of them stays
  for (size_t k = sp->maps.size(); k-- > 0;) {  // (segments come after their base)
    Mapping& m = sp->maps[k];
    if (!overlaps(m) || (m.base != kNoOp && in_gone(m.base))) continue;
    PlanUnmap u{m.id, covers(m) ? 1u : 0u, 0, 0};
    if (m.base != kNoOp)
      holed.push_back(m.base);
    else if (!u.whole && std::find(holed.begin(), holed.end(), m.op) != holed.end())
      continue;
    if (!u.whole) {
      u.off = std::max(a, m.addr) - m.addr;
      u.len = std::min(end, m.addr + m.len) - m.addr - u.off;
      // An inaccessible reservation fills the hole, so the range stays the
      // replay's own: it splits the mapping it lies in, at most twice.
      Mapping* owner = &m;
      if (m.base != kNoOp)
        for (Mapping& b : sp->maps)
          if (b.op == m.base) owner = &b;
      owner->vmas += 2;
      add_vmas(*sp, 2);
    }
    if (first_op == kNoOp) first_op = m.op;
    arena_push(plan_.unmaps, plan_.unmap_mask, plan_.unmap_pos, u);
  }
  op.unmap_end = plan_.unmap_pos;
  if (op.unmap_end == op.unmap_begin) return;  // not one of the replay's mappings (anonymous memory)
  op.action = OpAction::kIssue;
  op.ref_op = first_op;  // orders it after that mmap (deps.cpp)
  // Forget what went: bases taken whole, with what lies in them, and whole segments.
  int64_t freed = 0;
  std::erase_if(sp->maps, [&](const Mapping& m) {
    const bool went = in_gone(m.op) || (m.base != kNoOp && (in_gone(m.base) || covers(m)));
    if (went && m.base == kNoOp) freed += m.vmas;
    return went;
  });
  add_vmas(*sp, -freed);
}

bool MappingTracker::fault(uint32_t i, const Event& e) {
  Space* sp = space_of(e.tid);
  if (!sp) return false;
  const uint64_t addr = e.args[1];
  for (size_t k = sp->maps.size(); k-- > 0;) {
    const Mapping& m = sp->maps[k];
    if (addr >= m.addr && addr < m.addr + m.len) {
      plan_.op(i).ref_op = m.op;
      plan_.op(i).map = m.id;
      plan_.op(i).ref_off = addr - m.addr;
      return true;
    }
  }
  return false;
}

}  // namespace fsr

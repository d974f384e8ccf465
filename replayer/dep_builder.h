// The dependency builder's state (deps.h says what it orders): resource edges
// in deps.cpp, causal waits and the plan's edge lists in deps_causal.cpp.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "replayer/deps.h"

namespace fsr::deps_detail {

struct Edge {
  uint32_t to, from;
  DepKind kind;
};

class DepBuilder {
 public:
  DepBuilder(const std::vector<Event>& ev, const std::vector<OpFacts>& facts, Plan& plan)
      : ev_(ev), facts_(facts), plan_(plan), key_end_(ev.size(), false), key_(ev.size(), 0),
        parent_(plan.paths.size(), kUnset) {}

  // Resource edges are built again, with raised keys, while edges ask for it
  // (edge); a few passes settle any real trace, and what is left is dropped.
  void run();

 private:
  void reset_resources();

  uint64_t end(uint32_t i) const { return ev_[i].ts + ev_[i].dur; }
  uint64_t key(uint32_t i) const { return key_[i]; }
  bool key_less(uint32_t a, uint32_t b) const {
    return key(a) < key(b) || (key(a) == key(b) && a < b);
  }
  bool same_thread(uint32_t a, uint32_t b) const {
    return plan_.ops[a].thread == plan_.ops[b].thread;
  }

  // An edge on plan path `p` (kNoPath: a resource that is no path). Two calls
  // that overlapped on a path may have taken effect in the other order than
  // they entered (a mkdir(d/x) entering after mkdir(d) can fail with ENOENT);
  // their results decide the order then (ns_order.h).
  void path_edge(uint32_t from, uint32_t to, uint32_t p, DepKind kind);

  // The latest op before `o` on its recorded thread that names `p` or a
  // name in it (kNoOp when none in the last 256).
  uint32_t prev_on_thread(uint32_t o, uint32_t p);

  // Op `o`'s relation to plan path `p`: `p` is its path[k] (direct) or the
  // directory holding its path[k].
  bool relation(uint32_t o, uint32_t p, int& k, bool& direct);

  // An edge whose keys disagree (`to` entered first but must follow `from`,
  // which entered inside `to`'s call) raises `to`'s key, within its own call,
  // for the next pass; when that cannot be, the edge is dropped and counted.
  void edge(uint32_t from, uint32_t to, DepKind kind);

  bool is_blocking_read(uint32_t i) const;

  // Ops that get a causal dependency sort by their exit time (see deps.h).
  void classify_waiters();

  // An op's key is its enter time (exit time for a waiter), raised to the key
  // of the op before it on its worker: keys must not decrease in any worker's
  // issue order, or two workers could each wait for an op the other issues
  // later. A recorded thread's calls never overlap and a worker takes a thread
  // only after its previous one ended, so this changes only hand-made or
  // damaged traces (a call entered before its thread's previous one
  // returned); those are counted.
  // A key raised by edge() stays within its own call (at most its end).
  void monotone_keys();

  // Readers of a resource since its last writer: the latest op of each
  // thread. Appended, and compacted to one per thread when it grows (a path
  // every process reads, such as a shared library, is read by thousands).
  struct Readers {
    std::vector<uint32_t> ops;
    size_t compact_at = 16;
  };
  void add_reader(Readers& r, uint32_t i);

  struct Shared {
    uint32_t last_ns = kNoOp;
    Readers readers;
  };

  // `p`: the plan path `s` stands for (kNoPath for a directory's entries).
  void writer(Shared& s, uint32_t i, DepKind kind, uint32_t p = kNoPath);
  void reader(Shared& s, uint32_t i, DepKind kind, uint32_t p = kNoPath);

  // A directory's entries (ROOT/ARTC): a listing follows the namespace
  // changes in the directory before it, and a change follows the listings
  // before it; changes of different names in one directory need no order
  // among themselves (the same name is ordered by its path), nor do listings.
  struct Contents {
    bool listing = false;        // what the current group is
    Readers cur;                 // the current group, latest op per thread
    std::vector<uint32_t> prev;  // the group before it
  };
  void contents(Contents& c, uint32_t i, bool listing);

  void ofd_use(uint32_t ofd, uint32_t i);

  // The plan path of the directory holding path `p` (kNoPath when no op
  // names it): its namespace ops order the ops beneath it.
  static constexpr uint32_t kUnset = UINT32_MAX - 1;
  uint32_t parent_path(uint32_t p);

  void resources(uint32_t i);

  static uint64_t futex_key(const Event& e);

  // Latest event of another thread that completed while `i` was blocked.
  uint32_t approximate(uint32_t i);

  void causal_edge(uint32_t from, uint32_t i);

  void causal();

  // A process's exit event comes from inside the kernel's exit path, before
  // its address space is torn down; its parent's wait returns after that. The
  // time between the exit event and the wait's return, less a wake-up (the
  // trace's smallest such lag, at most kWakeNs), is the exit's own work: the
  // replay holds the exit op for it (PlanOp::own_ns).
  static constexpr uint64_t kWakeNs = 100'000;
  void exit_holds();

  void finish();

  const std::vector<Event>& ev_;
  const std::vector<OpFacts>& facts_;
  Plan& plan_;
  std::vector<bool> key_end_;
  std::vector<std::pair<uint32_t, uint64_t>> exit_lags_;  // (exit op, its waiter's return - its end)
  std::vector<uint64_t> key_;
  std::vector<uint64_t> key_floor_;  // per op: the least key an edge asked for
  size_t raises_ = 0;                // key floors raised in this pass
  bool may_raise_ = true;
  std::vector<Edge> edges_;
  std::vector<uint32_t> by_end_;
  std::unordered_map<uint32_t, Shared> paths_, dirs_;
  std::unordered_map<uint32_t, Contents> contents_;
  std::vector<uint32_t> parent_;                             // per plan path: parent_path(), memoised
  std::unordered_map<std::string_view, uint32_t> by_abs_;    // plan path ids by text (parent_path)
  std::unordered_map<uint32_t, uint32_t> last_on_ofd_;
  std::unordered_map<uint32_t, uint64_t> last_of_pid_;  // pid -> event index + 1
  std::unordered_map<uint32_t, std::vector<std::pair<uint64_t, uint32_t>>> chan_writes_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> futex_wakes_;
};

}  // namespace fsr::deps_detail

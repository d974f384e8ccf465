// SPDX-License-Identifier: Apache-2.0
#include "replayer/exec/address_space.h"

#include <sched.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <mutex>

namespace fsr {
namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kInside = 1;  // placed inside its base (PlanOp::ref_op)
constexpr uint64_t kBusy = 2;    // claimed: being unmapped or placed in
constexpr int kExtraShift = 2;   // bits 2-11: kernel mappings it was split into, beyond one, halved
constexpr uint64_t kExtraMax = 1023;
constexpr uint64_t kAddrMask = ~(kPage - 1);

uint64_t page_up(uint64_t n) { return (n + kPage - 1) & ~(kPage - 1); }
uint64_t extra(uint64_t v) { return (v >> kExtraShift) & kExtraMax; }
uint64_t with_extra(uint64_t v, uint64_t add) {
  const uint64_t x = std::min(kExtraMax, extra(v) + add);
  return (v & ~(kExtraMax << kExtraShift)) | x << kExtraShift;
}
char* addr_of(uint64_t v) { return reinterpret_cast<char*>(v & kAddrMask); }

// An inaccessible reservation over [p, p + len): keeps a range the replay
// owns from being handed to another mapping (which a later munmap of the
// whole would take along).
bool reserve(char* p, uint64_t len) {
  return ::mmap(p, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) != MAP_FAILED;
}

// Page touches: a page past the end of the mapped file raises SIGBUS, and a
// mapping another worker just unmapped raises SIGSEGV. Rather than a check
// before every touch (timed, and racy), the touch runs under a per-thread
// jump buffer that the handler returns through. SA_NODEFER: the jump leaves
// no signal blocked.
thread_local sigjmp_buf* volatile t_touch_jump = nullptr;  // volatile: the stores around the touch must stay
struct sigaction g_old[2];

void on_touch_fault(int sig, siginfo_t* si, void* uc) {
  if (sigjmp_buf* j = t_touch_jump) siglongjmp(*j, 1);
  // Not ours: whatever was there before, else die as the default would.
  const struct sigaction& old = g_old[sig == SIGSEGV ? 1 : 0];
  if (old.sa_flags & SA_SIGINFO) {
    if (old.sa_sigaction) return old.sa_sigaction(sig, si, uc);
  } else if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN) {
    return old.sa_handler(sig);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void install_touch_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = on_touch_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &g_old[0]);
    sigaction(SIGSEGV, &sa, &g_old[1]);
  });
}

// Reads one byte at `p`; false if that faulted.
bool touch_page(const char* p) {
  sigjmp_buf jump;
  if (sigsetjmp(jump, 0) != 0) {
    t_touch_jump = nullptr;
    return false;
  }
  t_touch_jump = &jump;
  volatile char v = *p;
  (void)v;
  t_touch_jump = nullptr;
  return true;
}

}  // namespace

uint64_t max_map_count() {
  unsigned long long v = 0;
  FILE* f = fopen("/proc/sys/vm/max_map_count", "re");
  if (f && fscanf(f, "%llu", &v) != 1) v = 0;
  if (f) fclose(f);
  return v ? v : 65530;
}

uint64_t own_mapping_count() {
  FILE* f = fopen("/proc/self/maps", "re");
  if (!f) return 0;
  uint64_t n = 0;
  for (int c; (c = getc(f)) != EOF;) n += c == '\n';
  fclose(f);
  return n;
}

namespace {
std::string raise_hint(uint64_t need) {
  const uint64_t to = std::max<uint64_t>(need * 2, 262144);
  return "raise it (as root): sysctl -w vm.max_map_count=" + std::to_string(to);
}
}  // namespace

std::string map_limit_warning(const Plan& plan, uint64_t baseline, uint64_t limit) {
  const uint64_t need = baseline + plan.peak_mappings;
  if (need < limit) return {};
  return "this trace's processes hold up to " + std::to_string(plan.peak_mappings) + " file mappings at once (" +
         std::to_string(plan.peak_spaces) + " address spaces; " + std::to_string(need) +
         " with the replayer's own), past vm.max_map_count = " + std::to_string(limit) +
         ": mmaps beyond it will fail with ENOMEM and diverge; " + raise_hint(need);
}

std::string map_failure_warning(const MappingStats& s, uint64_t baseline, uint64_t limit) {
  if (s.enomem == 0) return {};
  return std::to_string(s.enomem) + " mmaps failed with ENOMEM; the replay held up to " +
         std::to_string(baseline + s.peak) + " mappings (vm.max_map_count = " + std::to_string(limit) +
         (baseline + s.peak + 64 >= limit ? "): the limit was reached; " + raise_hint(baseline + s.peak)
                                          : "): memory ran short");
}

void ReplayMappings::init(const Plan& plan, const std::vector<uint32_t>& space_threads, size_t maps) {
  plan_ = &plan;
  n_maps_ = maps;
  slot_.reset(new std::atomic<uint64_t>[maps]);
  for (size_t i = 0; i < maps; ++i) slot_[i].store(0, std::memory_order_relaxed);
  left_.reset(new std::atomic<uint32_t>[space_threads.size()]);
  holds_.reset(new std::atomic<uint8_t>[space_threads.size()]);
  for (size_t s = 0; s < space_threads.size(); ++s) {
    left_[s].store(space_threads[s], std::memory_order_relaxed);
    holds_[s].store(0, std::memory_order_relaxed);
  }
  live_ = 0;
  peak_ = 0;
  live_spaces_ = peak_spaces_ = enomem_ = 0;
  install_touch_handler();
}

uint64_t ReplayMappings::len_of(uint32_t m) const { return plan_->maps[m].len; }

uint64_t ReplayMappings::claim(uint32_t m) {
  uint64_t v = slot_[m].load(std::memory_order_acquire);
  for (int spin = 0;; ++spin) {
    if (v == 0) return 0;
    if (!(v & kBusy) && slot_[m].compare_exchange_weak(v, v | kBusy, std::memory_order_acquire)) return v;
    if (v & kBusy) {
      if (spin > 100) sched_yield();  // another worker's munmap is under way
      v = slot_[m].load(std::memory_order_acquire);
    }
  }
}

void ReplayMappings::add_live(int64_t n) {
  const int64_t now = live_.fetch_add(n, std::memory_order_relaxed) + n;
  if (n <= 0) return;
  uint64_t p = peak_.load(std::memory_order_relaxed);
  while (static_cast<uint64_t>(now) > p &&
         !peak_.compare_exchange_weak(p, static_cast<uint64_t>(now), std::memory_order_relaxed)) {}
}

void ReplayMappings::space_holds(uint32_t s) {
  if (s == kNoSpace || holds_[s].exchange(1, std::memory_order_relaxed)) return;
  const uint64_t now = live_spaces_.fetch_add(1, std::memory_order_relaxed) + 1;
  uint64_t p = peak_spaces_.load(std::memory_order_relaxed);
  while (now > p && !peak_spaces_.compare_exchange_weak(p, now, std::memory_order_relaxed)) {}
}

bool ReplayMappings::alive(uint32_t m) const {
  const uint64_t v = slot_[m].load(std::memory_order_acquire);
  if (!v) return false;
  return !(v & kInside) || slot_[plan_->maps[m].base].load(std::memory_order_acquire) != 0;
}

int64_t ReplayMappings::mmap(uint32_t i, int fd) {
  const PlanOp& op = plan_->op(i);
  const uint64_t* a = plan_->event(i).args;
  const uint32_t self = op.map;
  if (self == kNoMap) return -EINVAL;
  const int prot = static_cast<int>(a[2]);
  const int fl =
      static_cast<int>(a[3]) & (MAP_SHARED | MAP_PRIVATE | MAP_SHARED_VALIDATE | MAP_POPULATE | MAP_NORESERVE);
  const off_t off = static_cast<off_t>(a[5]);
  if (plan_->maps[self].base != kNoMap) {  // MAP_FIXED inside the replay's copy of its base, while that copy is there
    const uint32_t b = plan_->maps[self].base;
    const uint64_t bv = claim(b);
    if (bv && !(bv & kInside) && op.ref_off + page_up(a[1]) <= len_of(b)) {
      char* at = addr_of(bv) + op.ref_off;
      void* p = ::mmap(at, a[1], prot, fl | MAP_FIXED, fd, off);
      if (p == MAP_FAILED) {
        const int err = errno;
        if (err == ENOMEM) enomem_.fetch_add(1, std::memory_order_relaxed);
        reserve(at, page_up(a[1]));  // (the kernel keeps the old mapping on failure; in case it did not)
        put(b, bv);
        return -err;
      }
      put(self, reinterpret_cast<uint64_t>(p) | kInside);
      put(b, with_extra(bv, 1));
      add_live(2);
      space_holds(op.space);
      return static_cast<int64_t>(reinterpret_cast<uintptr_t>(p) & 0x7fffffffffffull);
    }
    if (bv) put(b, bv);
  }
  void* p = ::mmap(nullptr, a[1], prot, fl, fd, off);
  if (p == MAP_FAILED) {
    if (errno == ENOMEM) enomem_.fetch_add(1, std::memory_order_relaxed);
    return -errno;
  }
  put(self, reinterpret_cast<uint64_t>(p));
  add_live(1);
  space_holds(op.space);
  return static_cast<int64_t>(reinterpret_cast<uintptr_t>(p) & 0x7fffffffffffull);
}

void ReplayMappings::unmap_base(uint32_t m, uint64_t v) {
  ::munmap(addr_of(v), len_of(m));
  add_live(-static_cast<int64_t>(1 + 2 * extra(v)));
  put(m, 0);
}

// Takes what `u` names of one mapping; false when that mapping is not there.
bool ReplayMappings::take(const PlanUnmap& u) {
  const uint32_t m = u.map;
  const uint64_t mv = slot_[m].load(std::memory_order_acquire);
  if (!mv) return false;
  const uint64_t len = len_of(m);
  const uint64_t off = u.whole ? 0 : std::min(u.off, len);
  const uint64_t n = u.whole ? len : std::min(page_up(u.len), len - off);
  if (mv & kInside) {
    // A segment: its range stays the base's (an inaccessible reservation),
    // so that the base's munmap takes only what is the replay's own.
    const uint32_t b = plan_->maps[m].base;
    const uint64_t bv = claim(b);
    if (!bv) return false;
    const uint64_t sv =
        u.whole ? slot_[m].exchange(0, std::memory_order_acq_rel) : slot_[m].load(std::memory_order_acquire);
    bool ok = sv != 0 && n > 0 && reserve(addr_of(sv) + off, n);
    put(b, u.whole ? bv : with_extra(bv, 1));
    if (ok && !u.whole) add_live(2);
    return ok || (sv != 0 && n == 0);
  }
  const uint64_t bv = claim(m);
  if (!bv) return false;
  if (u.whole) {
    unmap_base(m, bv);
    return true;
  }
  const bool ok = n == 0 || reserve(addr_of(bv) + off, n);
  put(m, ok && n ? with_extra(bv, 1) : bv);
  if (ok && n) add_live(2);
  return ok;
}

int64_t ReplayMappings::munmap(uint32_t i) {
  const PlanOp& op = plan_->op(i);
  bool all = true;
  for (uint32_t k = op.unmap_begin; k != op.unmap_end; ++k) all = take(plan_->unmap(k)) && all;
  return all ? 0 : -EINVAL;
}

bool ReplayMappings::touch(uint32_t i) {
  const PlanOp& op = plan_->op(i);
  const uint32_t m = op.map;
  if (m == kNoMap || !alive(m) || op.ref_off >= len_of(m)) return false;
  const uint64_t v = slot_[m].load(std::memory_order_acquire);
  return v && touch_page(addr_of(v) + (op.ref_off & ~(kPage - 1)));
}

void ReplayMappings::leave(uint32_t i) {
  const uint32_t s = plan_->op(i).space;
  if (s == kNoSpace || left_[s].fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  const PlanSpace& ps = plan_->spaces[s];
  for (uint32_t k = ps.unmap_begin; k != ps.unmap_end; ++k) {
    const uint32_t m = plan_->unmap(k).map;
    if (const uint64_t v = claim(m)) {
      if (v & kInside)
        put(m, v);  // (the plan lists bases only; a segment goes with its base)
      else
        unmap_base(m, v);
    }
  }
  if (holds_[s].load(std::memory_order_relaxed)) live_spaces_.fetch_sub(1, std::memory_order_relaxed);
  if (on_space_end) on_space_end(s, live_.load(std::memory_order_relaxed));
}

void ReplayMappings::release_all() {
  if (!plan_) return;
  for (size_t m = 0; m < n_maps_; ++m) {
    const uint64_t v = slot_[m].load(std::memory_order_relaxed);
    if (v && !(v & kInside)) unmap_base(static_cast<uint32_t>(m), v);
  }
  for (size_t m = 0; m < n_maps_; ++m) slot_[m].store(0, std::memory_order_relaxed);
}

MappingStats ReplayMappings::stats() const {
  MappingStats s;
  s.live = live_.load(std::memory_order_relaxed);
  s.peak = peak_.load(std::memory_order_relaxed);
  s.live_spaces = live_spaces_.load(std::memory_order_relaxed);
  s.peak_spaces = peak_spaces_.load(std::memory_order_relaxed);
  s.enomem = enomem_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace fsr

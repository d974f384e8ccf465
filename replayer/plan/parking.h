// SPDX-License-Identifier: Apache-2.0
// Sleeping until another thread publishes, with no system call on the
// publisher's side while nobody sleeps.
//
// std::atomic<uint64_t>::wait/notify (libstdc++) hash every address into 16
// shared waiter buckets, spin with sched_yield before they sleep, and wake the
// whole bucket: with one worker parked on a long wait, every tenth op's
// publish made a futex call and woke it for nothing. Here a waiter parks in
// one of kBuckets buckets chosen by its key (the op it waits for); a
// publisher pays a fence and one load unless someone sleeps in its key's
// bucket; one that publishes many keys at a time pays one fence for all of
// them while nobody sleeps (anyone_parked).
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace fsr {

class ParkingLot {
 public:
  static constexpr size_t kBuckets = 256;

  // Returns once ready() holds. A thread that makes it hold calls
  // unpark(key) with the same key after its store.
  template <typename Ready>
  void park(uint64_t key, Ready ready) {
    Bucket& b = bucket(key);
    while (!ready()) {
      const uint32_t seq = b.seq.load(std::memory_order_acquire);
      b.waiters.fetch_add(1, std::memory_order_relaxed);
      parked_.fetch_add(1, std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_seq_cst);  // pairs with unpark's (and anyone_parked's caller's)
      if (!ready()) futex(&b.seq, FUTEX_WAIT_PRIVATE, seq);
      parked_.fetch_sub(1, std::memory_order_relaxed);
      b.waiters.fetch_sub(1, std::memory_order_relaxed);
    }
  }

  // For a publisher that makes many keys ready between wake-ups: after its
  // stores and one std::atomic_thread_fence(seq_cst), false means no thread
  // sleeps in any bucket, and none of those keys needs its unpark.
  bool anyone_parked() const { return parked_.load(std::memory_order_relaxed) != 0; }
  // Threads in park now (a sample: for a watchdog, not for synchronisation).
  uint32_t parked() const { return parked_.load(std::memory_order_relaxed); }

  void unpark(uint64_t key) {
    std::atomic_thread_fence(std::memory_order_seq_cst);  // the caller's store before the count's load
    Bucket& b = bucket(key);
    if (b.waiters.load(std::memory_order_relaxed) == 0) return;
    b.seq.fetch_add(1, std::memory_order_release);
    futex(&b.seq, FUTEX_WAKE_PRIVATE, INT_MAX);
  }

  // Wakes every sleeper (the replay stops: what they wait for is released).
  void unpark_all() {
    for (size_t k = 0; k < kBuckets; ++k) unpark(k);
  }

 private:
  struct alignas(64) Bucket {
    std::atomic<uint32_t> seq{0};
    std::atomic<uint32_t> waiters{0};
  };
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t), "futex word");

  Bucket& bucket(uint64_t key) { return buckets_[key & (kBuckets - 1)]; }
  static void futex(std::atomic<uint32_t>* word, int op, uint32_t val) {
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), op, val, nullptr, nullptr, 0);
  }

  std::unique_ptr<Bucket[]> buckets_{new Bucket[kBuckets]};
  alignas(64) std::atomic<uint32_t> parked_{0};  // threads in park, over all buckets
};

}  // namespace fsr

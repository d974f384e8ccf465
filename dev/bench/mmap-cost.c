// SPDX-License-Identifier: Apache-2.0
/* Address-space cost benchmark: what a replayed short-lived process's file
 * mappings cost the replayer, depending on where they live. Each simulated
 * "process" maps a library the way the dynamic loader does (the whole file,
 * then three segments MAP_FIXED over it), touches a few pages of each, and
 * ends. Strategies, all in one run so that the figures compare:
 *   keep        mappings of ended processes stay (the address space grows);
 *   unmap       one munmap per process at its end, the process running alone;
 *   unmap+peer  the same with a second thread of this process alive on the
 *               other CPU (the replayer's situation: the munmap must shoot
 *               down that CPU's TLB);
 *   zap+peer    the pages dropped (MADV_DONTNEED) and the range kept
 *               PROT_NONE instead of unmapped, peer thread alive;
 *   fork        each process in a forked child (its own address space,
 *               freed by its exit), the parent waiting for it.
 * Prints per-process microseconds (median of the per-batch means) and the
 * ratio to "fork", the cost the original processes paid themselves (less
 * the fork+wait of a child that maps nothing, measured alongside).
 *   mmap-cost [PROCESSES] [FILE]   (defaults 4000, the C library)
 * It never asserts: timing is machine-dependent (on a paravirtualised VM
 * with shadow page tables the page-table work dominates). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kBatches = 8, kTouches = 4 };

static int fd;
static size_t flen;
static atomic_int stop_peer;

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* One simulated process's mappings; returns the base (to unmap). */
static char* map_like_ld_so(unsigned seed) {
  char* base = mmap(NULL, flen, PROT_READ, MAP_PRIVATE, fd, 0);
  if (base == MAP_FAILED) {
    perror("mmap");
    exit(1);
  }
  size_t page = 4096, third = (flen / 3) & ~(page - 1);
  for (int s = 0; s < 3; s++) {
    size_t off = third * (size_t)s, len = s == 2 ? flen - off : third;
    char* seg = mmap(base + off, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, (off_t)off);
    if (seg == MAP_FAILED) {
      perror("mmap fixed");
      exit(1);
    }
    for (int k = 0; k < kTouches; k++) {
      size_t at = ((seed * 2654435761u + (unsigned)(s * 97 + k * 131)) % (len / page)) * page;
      volatile char c = seg[at];
      (void)c;
    }
  }
  return base;
}

static void* peer(void* arg) {
  (void)arg;
  /* Alive and running now and then, as a replay worker is between ops. */
  while (!atomic_load(&stop_peer)) {
    struct timespec d = {0, 200000};
    nanosleep(&d, NULL);
  }
  return NULL;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* Median over batches of the mean per-process time, us. */
static double run(const char* mode, int n) {
  double per[kBatches];
  int per_batch = n / kBatches;
  char** kept = calloc((size_t)n, sizeof *kept);
  for (int b = 0; b < kBatches; b++) {
    long long t0 = now_ns();
    for (int i = 0; i < per_batch; i++) {
      unsigned seed = (unsigned)(b * per_batch + i);
      if (!strncmp(mode, "fork", 4)) {
        pid_t p = fork();
        if (p == 0) {
          if (!strcmp(mode, "fork")) map_like_ld_so(seed);
          _exit(0);
        }
        waitpid(p, NULL, 0);
      } else {
        char* base = map_like_ld_so(seed);
        if (!strcmp(mode, "keep"))
          kept[b * per_batch + i] = base;
        else if (!strcmp(mode, "zap")) {
          /* Drop the pages, keep the range: no page table is freed, so the
           * TLB flush skips CPUs that merely last ran this process. */
          madvise(base, flen, MADV_DONTNEED);
          mprotect(base, flen, PROT_NONE);
          kept[b * per_batch + i] = base;
        } else
          munmap(base, flen);
      }
    }
    per[b] = (double)(now_ns() - t0) / per_batch / 1000.0;
  }
  for (int i = 0; i < n; i++)
    if (kept[i]) munmap(kept[i], flen);
  free(kept);
  qsort(per, kBatches, sizeof *per, cmp);
  return (per[kBatches / 2 - 1] + per[kBatches / 2]) / 2;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4000;
  const char* file = argc > 2 ? argv[2] : "/lib/x86_64-linux-gnu/libc.so.6";
  struct stat st;
  fd = open(file, O_RDONLY);
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < 3 * 65536) {
    fprintf(stderr, "mmap-cost: %s: need a readable file of at least 192 KiB\n", file);
    return 2;
  }
  if (n < kBatches) n = kBatches;
  flen = (size_t)st.st_size;
  printf("mmap-cost: %d processes, each: map %s (%zu KiB) + 3 MAP_FIXED segments, %d touches per segment\n", n, file,
         flen / 1024, kTouches);
  double empty_us = run("fork-empty", n);
  double fork_us = run("fork", n) - empty_us;
  double unmap_us = run("unmap", n);
  pthread_t t;
  pthread_create(&t, NULL, peer, NULL);
  double peer_us = run("unmap", n);
  double zap_us = run("zap", n);
  atomic_store(&stop_peer, 1);
  pthread_join(t, NULL);
  double keep_us = run("keep", n);
  printf("%-12s %10s %10s\n", "strategy", "us/process", "vs fork");
  printf("%-12s %10.1f %10.2f   (own address space, freed by exit; an empty child's fork+wait, %.1f us, subtracted)\n",
         "fork", fork_us, 1.0, empty_us);
  printf("%-12s %10.1f %10.2f\n", "unmap", unmap_us, unmap_us / fork_us);
  printf("%-12s %10.1f %10.2f   (another thread of this process alive)\n", "unmap+peer", peer_us, peer_us / fork_us);
  printf("%-12s %10.1f %10.2f   (MADV_DONTNEED + PROT_NONE instead of munmap, peer alive)\n", "zap+peer", zap_us,
         zap_us / fork_us);
  printf("%-12s %10.1f %10.2f   (%d processes' mappings left in place)\n", "keep", keep_us, keep_us / fork_us, n);
  return 0;
}

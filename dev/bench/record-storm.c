// SPDX-License-Identifier: Apache-2.0
/* Syscall storm for dev/bench/record-overhead.sh: N fstat(2) calls per
 * thread (each one recorded event with a stat buffer read), then prints
 * "calls elapsed_ns". Usage: record-storm N THREADS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long n;

static void* run(void* arg) {
  struct stat st;
  (void)arg;
  for (long i = 0; i < n; i++) syscall(SYS_fstat, 0, &st);
  return NULL;
}

int main(int argc, char** argv) {
  n = argc > 1 ? atol(argv[1]) : 1000000;
  int threads = argc > 2 ? atoi(argv[2]) : 1;
  pthread_t t[64];
  struct timespec a, b;
  if (threads < 1 || threads > 64) return 2;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, run, NULL);
  for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("%ld %lld\n", n * threads, (long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec));
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
// fsr_paced CALLS PER_SECOND: access("/fsr-paced/<i mod 1000>") for i in
// [0, CALLS), evenly paced to PER_SECOND calls a second (it spins on the
// vDSO clock between calls: no sleep, so a lane never empties for long), so
// that the recorder's lanes fill at a known, moderate rate. Exit status 0.
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: fsr_paced CALLS PER_SECOND\n");
    return 2;
  }
  const long calls = atol(argv[1]), rate = atol(argv[2]);
  if (calls <= 0 || rate <= 0) {
    fprintf(stderr, "fsr_paced: CALLS and PER_SECOND must be positive\n");
    return 2;
  }
  auto now_ns = [] {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1'000'000'000LL + t.tv_nsec;
  };
  const long long start = now_ns();
  char path[64];
  for (long i = 0; i < calls; ++i) {
    const long long due = start + i * 1'000'000'000LL / rate;
    while (now_ns() < due) {}
    snprintf(path, sizeof path, "/fsr-paced/%ld", i % 1000);
    syscall(SYS_access, path, F_OK);
  }
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
/* For stat-state.sh: fstatat() of a list of paths (one per line, relative to
 * ROOT) in a loop, each call timed, with SPIN ns of pause-spinning before
 * each call (no memory touched): how a stat's cost depends on the time
 * since the kernel data it walks was last touched.
 *   stat-loop ROOT PATHS SPIN...    prints per SPIN: "spin S median_ns p90_ns"
 * (the median of 3 passes over the list, the first pass dropped). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static unsigned long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

static int cmp(const void* a, const void* b) {
  unsigned long long x = *(const unsigned long long*)a, y = *(const unsigned long long*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: stat-loop ROOT PATHS SPIN_NS...\n");
    return 2;
  }
  int root = open(argv[1], O_PATH | O_DIRECTORY);
  FILE* f = fopen(argv[2], "r");
  if (root < 0 || !f) {
    fprintf(stderr, "stat-loop: cannot open %s or %s\n", argv[1], argv[2]);
    return 1;
  }
  size_t cap = 1024, n = 0;
  char** paths = malloc(cap * sizeof *paths);
  char line[4096];
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (!*line) continue;
    if (n == cap) paths = realloc(paths, (cap *= 2) * sizeof *paths);
    paths[n++] = strdup(line);
  }
  fclose(f);
  if (!n) {
    fprintf(stderr, "stat-loop: no paths in %s\n", argv[2]);
    return 1;
  }
  unsigned long long* lat = malloc(n * sizeof *lat);
  unsigned long long med[3], p90[3];
  struct stat st;
  for (int a = 3; a < argc; ++a) {
    const unsigned long long spin = strtoull(argv[a], NULL, 10);
    for (int pass = 0; pass < 4; ++pass) {
      for (size_t i = 0; i < n; ++i) {
        const unsigned long long until = now_ns() + spin;
        while (now_ns() < until) __builtin_ia32_pause();
        const unsigned long long t = now_ns();
        fstatat(root, paths[i], &st, AT_SYMLINK_NOFOLLOW);
        lat[i] = now_ns() - t;
      }
      qsort(lat, n, sizeof *lat, cmp);
      if (pass) med[pass - 1] = lat[n / 2], p90[pass - 1] = lat[n * 9 / 10];
    }
    qsort(med, 3, sizeof med[0], cmp);
    qsort(p90, 3, sizeof p90[0], cmp);
    printf("spin %llu %llu %llu\n", spin, med[1], p90[1]);
  }
  return 0;
}

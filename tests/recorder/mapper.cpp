// SPDX-License-Identifier: Apache-2.0
// fsr_mapper ROUNDS PAUSE_MS FILE...: ROUNDS times, a child maps each FILE
// read-only and reads every page of it (page faults on file mappings), then
// exits; the parent waits for it and pauses PAUSE_MS. Before each round it
// stats "round-N" (ENOENT) in its cwd, a marker the trace shows. Exit 0.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: fsr_mapper ROUNDS PAUSE_MS FILE...\n");
    return 2;
  }
  const int rounds = atoi(argv[1]), pause_ms = atoi(argv[2]);
  for (int r = 0; r < rounds; ++r) {
    struct stat st;
    stat(("round-" + std::to_string(r)).c_str(), &st);
    const pid_t c = fork();
    if (c < 0) return 1;
    if (c == 0) {
      volatile char sum = 0;
      for (int k = 3; k < argc; ++k) {
        const int fd = open(argv[k], O_RDONLY | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) _exit(1);
        char* p = static_cast<char*>(mmap(nullptr, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0));
        if (p == MAP_FAILED) _exit(1);
        for (off_t o = 0; o < st.st_size; o += 4096) sum = static_cast<char>(sum + p[o]);
        munmap(p, st.st_size);
        close(fd);
      }
      _exit(0);
    }
    int ws = 0;
    if (waitpid(c, &ws, 0) != c || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) return 1;
    const timespec d{pause_ms / 1000, (pause_ms % 1000) * 1'000'000L};
    nanosleep(&d, nullptr);
  }
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
// wsl1_probe NAME: runs one probe (wsl1_probes.h) and prints the errno it got
// (0 on success). Run under wsl1-harness to check the filter survives exec.
#include <stdio.h>

#include <string_view>

#include "wsl1_probes.h"

int main(int argc, char** argv) {
  const fsr::test::Probe* p = argc == 2 ? fsr::test::find_probe(argv[1]) : nullptr;
  if (p == nullptr) {
    fprintf(stderr, "usage: wsl1_probe NAME (a syscall of wsl1_gaps.h or a control probe)\n");
    return 2;
  }
  printf("%d\n", p->run());
  return 0;
}

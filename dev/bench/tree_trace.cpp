// SPDX-License-Identifier: Apache-2.0
// Writes a synthetic trace whose prestate is a checkout-shaped tree of
// exactly ENTRIES entries (traces/synthetic/synthetic_tree.h), with about EVENTS events
// on it, streaming: memory stays flat at any size. For the prepare scale
// bench (dev/bench/prepare-scale.sh). Usage:
//   fsreplay_bench_tree_trace ENTRIES FILE [EVENTS] [SEED]   (EVENTS default 20000)
#include <fmt/core.h>

#include <string>

#include "traces/synthetic/synthetic_tree.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    fmt::print(stderr, "usage: fsreplay_bench_tree_trace ENTRIES FILE [EVENTS] [SEED]\n");
    return 2;
  }
  fsr::TreeTraceShape shape;
  shape.entries = std::stoull(argv[1]);
  if (argc > 3) shape.events = std::stoull(argv[3]);
  if (argc > 4) shape.seed = std::stoull(argv[4]);
  auto r = fsr::write_tree_trace(argv[2], shape);
  if (!r) {
    fmt::print(stderr, "tree_trace: {}\n", r.message());
    return 1;
  }
  const fsr::TreeTraceStats& s = r.value();
  fmt::print(
      "{}: {} entries ({} dirs, {} files, {} symlinks, {} hard-link pairs, {} outside the root), "
      "depth {}, {} MiB of files, {} events\n",
      argv[2], s.entries, s.dirs, s.files, s.symlinks, s.hard_links, s.outside, s.max_depth, s.bytes >> 20, s.events);
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
// Rewrites a recorded trace with today's writer, chunk for chunk (the same
// events, strings, prestate and chunk boundaries), so that a codec change can
// be measured on real recordings instead of recording again: the thread
// interleaving of a workload such as git status changes from run to run, and
// with it the size. Prints the sizes before and after; asserts nothing.
// Usage: fsreplay_trace_rewrite IN OUT [ZSTD_LEVEL]
#include <fmt/core.h>

#include <algorithm>
#include <string>
#include <vector>

#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    fmt::print(stderr, "usage: fsreplay_trace_rewrite IN OUT [ZSTD_LEVEL]\n");
    return 2;
  }
  const int level = argc > 3 ? std::stoi(argv[3]) : fsr::WriterOptions{}.zstd_level;
  auto r = fsr::TraceReader::open(argv[1]);
  if (!r) {
    fmt::print(stderr, "trace_rewrite: {}\n", r.message());
    return 1;
  }
  if ((*r)->kind() != fsr::PayloadKind::kTrace) {
    fmt::print(stderr, "trace_rewrite: {}: not a trace\n", argv[1]);
    return 1;
  }
  auto pre = (*r)->prestate();
  if (!pre) {
    fmt::print(stderr, "trace_rewrite: {}\n", pre.message());
    return 1;
  }
  auto w = fsr::TraceWriter::create(argv[2], (*r)->header(), {.chunk_events = 1u << 20, .zstd_level = level});
  if (!w) {
    fmt::print(stderr, "trace_rewrite: {}\n", w.message());
    return 1;
  }
  for (const auto& p : *pre)
    if (auto st = (*w)->add_prestate(p); !st) return fmt::print(stderr, "trace_rewrite: {}\n", st.message()), 1;
  // Strings are interned when an event first names them, as the recorder does.
  size_t interned = 1;
  auto intern_to = [&](size_t id) {
    for (; interned <= id && interned < (*r)->string_count(); ++interned)
      (*w)->intern((*r)->str(static_cast<fsr::StrId>(interned)));
  };
  std::vector<fsr::Event> chunk;
  uint64_t events = 0;
  while (true) {
    auto got = (*r)->next(chunk);
    if (!got) return fmt::print(stderr, "trace_rewrite: {}\n", got.message()), 1;
    if (!got.value()) break;
    for (const auto& e : chunk) {
      intern_to(std::max(e.path[0], e.path[1]));
      if (auto st = (*w)->append(e); !st) return fmt::print(stderr, "trace_rewrite: {}\n", st.message()), 1;
    }
    events += chunk.size();
    if (auto st = (*w)->flush(); !st) return fmt::print(stderr, "trace_rewrite: {}\n", st.message()), 1;
  }
  intern_to((*r)->string_count());
  if (auto st = (*w)->finish((*r)->footer().value_or(fsr::TraceFooter{})); !st)
    return fmt::print(stderr, "trace_rewrite: {}\n", st.message()), 1;
  const double n = events ? static_cast<double>(events) : 1.0;
  fmt::print("{}: {} events, {} -> {} bytes, {:.2f} -> {:.2f} B/event\n", argv[1], events, (*r)->file_size(),
             (*w)->bytes_written(), (*r)->file_size() / n, (*w)->bytes_written() / n);
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the container reader: any bytes in, never a crash,
// a hang or a large allocation out. Reads sequentially (events and ops),
// the prestate, and by chunk through the (possibly rebuilt) index.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "traces/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::string path = "/tmp/fsreplay-fuzz-" + std::to_string(getpid());
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  auto r = fsr::TraceReader::open(path);
  if (!r) return 0;
  fsr::TraceReader& rd = **r;
  std::vector<fsr::Event> ev;
  std::vector<fsr::OpRecord> ops;
  for (int i = 0; i < 1000; ++i) {
    auto got = rd.kind() == fsr::PayloadKind::kTrace ? rd.next(ev) : rd.next(ops);
    if (!got || !got.value()) break;
    for (const auto& e : ev) (void)rd.str(e.path[0]);
  }
  (void)rd.prestate();
  auto n = rd.chunk_count();
  if (n) {
    for (size_t i = 0; i < n.value() && i < 64; ++i) {
      if (rd.kind() == fsr::PayloadKind::kTrace)
        (void)rd.read_chunk(i, ev);
      else
        (void)rd.read_chunk(i, ops);
    }
  }
  return 0;
}

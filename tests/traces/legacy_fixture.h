// SPDX-License-Identifier: Apache-2.0
// The content of the checked-in files of earlier format versions in
// fixtures/: the same deterministic events, strings, prestate and ops are
// written by fixtures/make_fixtures.cpp (built against old writers) and expected by
// legacy_format_test.cpp (read with today's reader). Plain arithmetic only,
// so the content never changes with a library.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "traces/event.h"
#include "traces/syscalls.h"
#include "traces/trace_model.h"

namespace fsr::legacy {

inline constexpr uint32_t kChunkEvents = 50;

inline uint64_t mix(uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Id i + 1 is strings()[i]: paths with shared prefixes, one with bytes that are not UTF-8.
inline std::vector<std::string> strings() {
  std::vector<std::string> s;
  for (int d = 0; d < 4; ++d)
    for (int f = 0; f < 6; ++f)
      s.push_back("/home/u/repo/dir" + std::to_string(d) + "/file" + std::to_string(f) + ".c");
  s.push_back(std::string("/home/u/repo/\xff\xfe\0bin", 19));
  s.push_back("/usr/lib/x86_64-linux-gnu/libc.so.6");
  return s;
}

// 180 events over 5 threads of 3 processes: ns timings with every low bit
// used, a negative gap, repeated paths with inode facts (XOR / delta coding).
inline std::vector<Event> events() {
  std::vector<Event> out;
  const uint32_t nstr = static_cast<uint32_t>(strings().size());
  uint64_t clock = 1'000'003;
  for (uint64_t i = 0; i < 180; ++i) {
    const uint64_t r = mix(i);
    Event e;
    e.pid = 500 + static_cast<uint32_t>(r % 3);
    e.tid = e.pid + static_cast<uint32_t>((r >> 8) % 2) * 1000;
    clock += 997 + (r >> 16) % 50'000;
    e.ts = clock;
    e.dur = 131 + (r >> 32) % 1'000'000;
    if (i == 77) e.ts -= 40'000;          // enter before the previous event's exit
    if (i == 120) e.dur = 4'000'000'017;  // a 4 s wait
    static const uint16_t kNr[] = {262, 257, 0, 1, 3, 4, 217, 332, 87, 82};
    e.nr = kNr[(r >> 40) % 10];
    e.ret = (r >> 44) % 7 == 0 ? -2 : static_cast<int64_t>((r >> 20) % 4096);
    e.args[0] = kAtFdcwdArg;
    e.args[1] = (r >> 24) & 0x80241;
    e.args[2] = i * 4096;
    const uint32_t p = 1 + static_cast<uint32_t>((r >> 48) % nstr);
    e.path[0] = p;
    if (e.nr == 82) e.path[1] = 1 + (p % nstr);
    if (e.nr == 262 || e.nr == 257 || e.nr == 4 || e.nr == 332) {
      e.dev = 0x803;
      e.ino = 1'000'000 + p * 37 + (i > 100 && p == 3 ? 5 : 0);  // one path's inode changes
      e.size = p * 4096 + (i % 3);
      e.mode = 0100644;
    }
    e.flags = (r >> 56) % 5 == 0 ? kEfFdIsPipe : 0;
    out.push_back(e);
  }
  return out;
}

inline std::vector<PrestateEntry> prestate() {
  return {{"/home/u/repo", PrestateKind::kDir, 040755, 4096, "", 2, 0x803, 6},
          {"/home/u/repo/link", PrestateKind::kSymlink, 0120777, 6, "dir0/x", 3, 0x803, 1}};
}

inline TraceFooter footer() {
  TraceFooter f;
  f.end_ns = 99'000'000;
  f.exit_status = 1;
  f.seen[0] = 180;
  f.notes = "v1 fixture";
  return f;
}

inline std::vector<OpRecord> ops() {
  std::vector<OpRecord> out;
  for (uint64_t i = 0; i < 70; ++i) {
    const uint64_t r = mix(1000 + i);
    OpRecord o;
    o.event_index = i;
    o.start = i * 10'007 + r % 1000;
    o.latency = 300 + r % 77'777;
    o.lateness = static_cast<int64_t>(r % 2001) - 1000;
    o.recorded_dur = 250 + (r >> 20) % 66'666;
    o.ret = (r >> 30) % 5 == 0 ? -13 : 0;
    o.recorded_ret = 0;
    o.pid = 500;
    o.tid = 500 + static_cast<uint32_t>(i % 2);
    o.worker = static_cast<uint32_t>(i % 2);
    o.path = 1 + static_cast<StrId>(i % 26);
    o.nr = 262;
    o.flags = o.ret != o.recorded_ret ? kOfDivergent : 0;
    out.push_back(o);
  }
  return out;
}

}  // namespace fsr::legacy

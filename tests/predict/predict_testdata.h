// SPDX-License-Identifier: Apache-2.0
// Fixed traces and profiles for predict's tests, golden files and CLI test:
// events built in memory (as the recorder would store them) and written with
// the ordinary writer, and profiles with known latencies per case.
#pragma once

#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "tests/replayer/synthetic.h"
#include "traces/event.h"
#include "traces/profile.h"
#include "base/status.h"
#include "traces/trace_model.h"

namespace fsr::testdata {

// A private directory under /tmp, removed with everything in it.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tpl[] = "/tmp/fsr-predict-test-XXXXXX";
    path = mkdtemp(tpl);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

// The replayer tests' in-memory trace (events and strings), with a header
// and a way onto disk.
struct TraceFixture : test::Synth {
  TraceHeader header;
  TraceFooter footer;  // written as given, end_ns from the events when 0
  Status write(const std::string& path) const;
};

// make (pid 10) stats and reads sources under /w/src, forks cc (pid 11),
// which reads /w/src and /usr/include (outside the root: scratch), lists
// /w/src, writes /w/out/a.o; make waits for it, renames the output,
// reads an xattr and removes a temporary file.
TraceFixture small_build_trace();

// One process, `n` rounds of: stat (hit and miss), open, read 4 KiB, close,
// getdents of a directory, create + write 4 KiB + close, with 20 us think
// time between calls.
TraceFixture mixed_trace(uint32_t n);

// make -j2 (pid 10) running `jobs` compiles, two at a time: each child
// (pid 100 + k) is forked, execs cc, reads its source and a header, writes
// its object and exits; make waits for both of a pair, then stats their
// objects. 20 events a pair, so a trace of any length in a window of 1,024.
TraceFixture many_builds(uint32_t jobs);

// Three threads of pid 1 under /w/p: thread 3's mkdir of d/x fails ENOENT,
// thread 2's mkdir of d fails EEXIST, and thread 1's mkdir that made d
// returns `between` of thread 3's stats later (the trace is in completion
// order): the results say the loser came after the maker, an order the
// planner can set only while the loser is within its lookahead.
TraceFixture mkdir_race(uint32_t between);

// One process under /w: `files` times a file /w/d/e/wN created, written (3
// bytes), closed and stat'ed (statx) `gap_ns` after its close.
TraceFixture write_then_stat(uint64_t gap_ns, int files);

// `workers` threads of pid 1 under /w, each `per_worker` stats of its own
// files (2 us calls, 10 us apart): ops in parallel, nothing between them.
TraceFixture parallel_stats(uint32_t workers, uint32_t per_worker);

// Two threads of pid 1 under /w, each creating its own file and writing
// `bytes` to it at the same moment, then closing it.
TraceFixture parallel_writes(uint64_t bytes);

// A profile whose every case costs `base_ns` (bins spread +-10%), except the
// kinds in `slow`, which cost their value; kinds in `absent` are not measured.
// kStatWritten is measured only when it is in `slow` (at idle gaps of 0 and
// 2,000 us, the second at twice its value): without it, a profile prices a
// stat of a written file as version 1 did, which the goldens were made with.
Profile fixed_profile(const std::string& name, uint64_t base_ns, const std::map<ProbeKind, uint64_t>& slow = {},
                      const std::vector<ProbeKind>& absent = {});

}  // namespace fsr::testdata

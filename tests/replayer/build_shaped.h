// SPDX-License-Identifier: Apache-2.0
// A synthetic trace shaped like a recorded build, for the streaming
// planner's tests (stream_diff_test): deterministic for a seed.
#pragma once

#include <cstdint>

#include "tests/replayer/synthetic.h"

namespace fsr::test {

// Shaped like a recorded build: a make process forks compilers (a few at a
// time), each execs, opens sources and headers with the lowest free fd (fd
// numbers reused all the time, OFD slots recycled by the stream), reads,
// stats, writes an object through a temporary it renames, talks to its
// parent through a pipe, sometimes runs a second thread sharing its files,
// chdirs, dups; the parent reads the pipe and waits for each.
Synth build_shaped(uint32_t children, uint64_t seed);

}  // namespace fsr::test

// SPDX-License-Identifier: Apache-2.0
// Test helper: records a command with the real recorder into a temporary
// trace and reads it back with TraceReader.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "recorder/bpf/recorder.h"
#include "traces/event.h"
#include "traces/trace_reader.h"

namespace fsr::test {

struct Recorded {
  RecordSummary summary;
  std::vector<Event> events;
  std::unique_ptr<TraceReader> reader;
  std::string path;
  std::string str(StrId id) const { return std::string(reader->str(id)); }
  // Events with syscall/pseudo number `nr` (optionally of process `pid`).
  std::vector<const Event*> with_nr(uint16_t nr, uint32_t pid = 0) const;
};

// Records `cmd` (workload runs as the current user) with --root `root` and
// lanes of `buffer_mib` MiB per CPU, with the environment's recorder knobs
// (bpf_options_from_env) and FSR_TEST_WORKLOAD_WRAP's words before `cmd`.
// Fails the current test (ADD_FAILURE) and returns an empty result on
// error; also fails it if the trace has overlapping calls.
Recorded record_command(const std::vector<std::string>& cmd, const std::string& root, uint32_t buffer_mib = 8);

// A fresh directory under $FSR_TEST_TMPDIR (default /tmp), removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs a shell command, returns its exit status.
int sh(const std::string& cmd);

// `text` split on whitespace (nullptr: none).
std::vector<std::string> split_words(const char* text);

}  // namespace fsr::test

// SPDX-License-Identifier: Apache-2.0
#include "tests/recorder/record_helper.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <sstream>

#include "traces/trace_summary.h"

namespace fsr::test {

std::vector<const Event*> Recorded::with_nr(uint16_t nr, uint32_t pid) const {
  std::vector<const Event*> out;
  for (const Event& e : events)
    if (e.nr == nr && (pid == 0 || e.pid == pid)) out.push_back(&e);
  return out;
}

std::vector<std::string> split_words(const char* text) {
  std::vector<std::string> out;
  std::istringstream in(text ? text : "");
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

Recorded record_command(const std::vector<std::string>& cmd_in, const std::string& root, uint32_t buffer_mib) {
  Recorded r;
  // FSR_TEST_WORKLOAD_WRAP: words put before the workload (a namespace
  // wrapper); FSR_TEST_WORKLOAD_USER (uid:gid): who owns the root then.
  std::vector<std::string> cmd = split_words(getenv("FSR_TEST_WORKLOAD_WRAP"));
  cmd.insert(cmd.end(), cmd_in.begin(), cmd_in.end());
  if (const char* who = getenv("FSR_TEST_WORKLOAD_USER")) {
    if (sh("chown -R " + std::string(who) + " '" + root + "'") != 0) ADD_FAILURE() << "chown " << who << " " << root;
  }
  char tmpl[] = "/tmp/fsr_rec_XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd >= 0) close(fd);
  r.path = tmpl;
  RecordOptions o;
  o.output = r.path;
  o.root = root;
  o.command = cmd;
  o.run_as_invoker = false;
  auto bpf = bpf_options_from_env();  // FSREPLAY_RECORD_WITHOUT: suites run through a fallback
  if (!bpf) {
    ADD_FAILURE() << bpf.message();
    return r;
  }
  o.bpf = bpf.value();
  o.bpf.buffer_mib = buffer_mib;
  auto s = record(o);
  if (!s) {
    ADD_FAILURE() << "record failed: " << s.message();
    return r;
  }
  r.summary = s.value();
  // Every recording a test makes: no thread's call enters before its
  // previous one returned (the replay relies on it).
  if (auto sum = summarise(r.path)) {
    EXPECT_EQ(sum->overlapping_calls, 0u)
        << "overlapping calls in the recording of " << cmd.front() << ": " << sum->first_overlap;
  } else {
    ADD_FAILURE() << "summarising the trace: " << sum.message();
  }
  auto rd = TraceReader::open(r.path);
  if (!rd) {
    ADD_FAILURE() << "cannot read the trace: " << rd.message();
    return r;
  }
  r.reader = std::move(rd.value());
  std::vector<Event> chunk;
  for (;;) {
    auto more = r.reader->next(chunk);
    if (!more) {
      ADD_FAILURE() << "reading the trace: " << more.message();
      break;
    }
    if (!more.value()) break;
    r.events.insert(r.events.end(), chunk.begin(), chunk.end());
  }
  unlink(r.path.c_str());
  return r;
}

TempDir::TempDir() {
  // FSR_TEST_TMPDIR: where the test trees go (e.g. an overlayfs mount).
  const char* base = getenv("FSR_TEST_TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/fsr_test_XXXXXX";
  const char* p = mkdtemp(tmpl.data());
  path_ = p ? p : "";
}

TempDir::~TempDir() {
  if (!path_.empty()) sh("rm -rf '" + path_ + "'");
}

int sh(const std::string& cmd) { return system(cmd.c_str()); }

}  // namespace fsr::test

#include "tests/recorder/record_helper.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

namespace fsr::test {

std::vector<const Event*> Recorded::with_nr(uint16_t nr, uint32_t pid) const {
  std::vector<const Event*> out;
  for (const Event& e : events)
    if (e.nr == nr && (pid == 0 || e.pid == pid)) out.push_back(&e);
  return out;
}

Recorded record_command(const std::vector<std::string>& cmd, const std::string& root,
                        uint32_t buffer_mib) {
  Recorded r;
  char tmpl[] = "/tmp/fsr_rec_XXXXXX";
  int fd = mkstemp(tmpl);
  if (fd >= 0) close(fd);
  r.path = tmpl;
  RecordOptions o;
  o.output = r.path;
  o.root = root;
  o.command = cmd;
  o.run_as_invoker = false;
  o.buffer_mib = buffer_mib;
  auto s = record(o);
  if (!s) {
    ADD_FAILURE() << "record failed: " << s.message();
    return r;
  }
  r.summary = s.value();
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
  char tmpl[] = "/tmp/fsr_test_XXXXXX";
  const char* p = mkdtemp(tmpl);
  path_ = p ? p : "";
}

TempDir::~TempDir() {
  if (!path_.empty()) sh("rm -rf '" + path_ + "'");
}

int sh(const std::string& cmd) { return system(cmd.c_str()); }

}  // namespace fsr::test

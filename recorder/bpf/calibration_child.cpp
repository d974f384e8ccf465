// SPDX-License-Identifier: Apache-2.0
#include "recorder/bpf/calibration_child.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "recorder/core/event_decoder.h"
#include "base/clock.h"

namespace fsr {
namespace {

void release_all(BpfSession& session, RingMerger& merger, uint64_t horizon,
                 const std::function<void(const void*, size_t)>& sink) {
  merger.release(horizon, sink);
  for (uint32_t cpu = 0; cpu < session.cpu_count(); ++cpu)
    session.free_through(cpu, merger.staged(cpu) ? merger.released_through(cpu) : session.read_through(cpu));
}

}  // namespace

Status run_calibration_child(BpfSession& session, RingMerger& merger, bool tracked,
                             const std::function<void(int go)>& child, std::vector<Event>& ev) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) return Status::error(std::string("pipe: ") + strerror(errno));
  pid_t pid = fork();
  if (pid < 0) {
    close(p[0]);
    close(p[1]);
    return Status::error(std::string("fork: ") + strerror(errno));
  }
  if (pid == 0) {
    close(p[1]);
    child(p[0]);
    _exit(1);  // (child returned)
  }
  close(p[0]);
  Status st = tracked ? session.track(static_cast<uint32_t>(pid)) : Status::ok();
  EventDecoder decoder(0, [n = StrId{0}](std::string_view) mutable { return ++n; });
  Event e;
  auto sink = [&](const void* rec, size_t size) {
    if (decoder.decode(rec, size, e) && e.pid == static_cast<uint32_t>(pid) && e.nr < kEvProcExec) ev.push_back(e);
  };
  if (!st || write(p[1], "g", 1) != 1) {
    close(p[1]);
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    return st ? Status::error("cannot start the calibration child") : st;
  }
  close(p[1]);
  int ws = 0;
  while (waitpid(pid, &ws, WNOHANG) == 0) {
    // Drained as the real drain does while the workload runs.
    timespec d{0, 5'000'000};
    nanosleep(&d, nullptr);
    if (tracked) {
      FSR_RETURN_IF_ERROR(session.consume());
      uint64_t now = now_ns();
      release_all(session, merger, now > 2'000'000 ? now - 2'000'000 : 0, sink);
    }
  }
  if (tracked) {
    FSR_RETURN_IF_ERROR(session.consume());
    release_all(session, merger, UINT64_MAX, sink);
  }
  if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) return Status::error("the calibration child failed");
  return Status::ok();
}

}  // namespace fsr

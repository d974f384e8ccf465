// SPDX-License-Identifier: Apache-2.0
#include "recorder/bpf/fault_cost.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "recorder/bpf/calibration_child.h"
#include "base/unique_fd.h"

namespace fsr {
namespace {

enum Kind : int {
  kAnon = RecordCost::kFaultAnon,
  kFile = RecordCost::kFaultRecorded,
  kSkipped = RecordCost::kFaultSkipped,
  kNone = RecordCost::kFaultKinds,  // the pass of no touches
};
constexpr size_t kPage = 4096, kWindow = 64 << 10, kFileBytes = 16 * kWindow;

// The two mapped files (recorded, skipped), written now: in the page cache
// when touched.
struct Files {
  std::string path[2];
  UniqueFd fd[2];
  struct stat skipped {};
  uint32_t skipped_gen = 0;
  bool skip_known = false;  // the generation could be read (not on tmpfs)
  ~Files() {
    for (const auto& p : path)
      if (!p.empty()) unlink(p.c_str());
  }
};

bool make_files(const std::string& dir, Files& f) {
  char buf[4096];
  memset(buf, 'x', sizeof buf);
  for (int m = 0; m < 2; ++m) {
    f.path[m] = dir + "/m" + std::to_string(m);
    f.fd[m] = UniqueFd(open(f.path[m].c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    if (!f.fd[m].valid()) return false;
    for (size_t off = 0; off < kFileBytes; off += sizeof buf)
      if (pwrite(f.fd[m].get(), buf, sizeof buf, static_cast<off_t>(off)) != static_cast<ssize_t>(sizeof buf))
        return false;
  }
  f.skip_known = fstat(f.fd[1].get(), &f.skipped) == 0 && ioctl(f.fd[1].get(), FS_IOC_GETVERSION, &f.skipped_gen) == 0;
  return true;
}

// A pass's child: the touches of one kind.
[[noreturn]] void touch(int go, const Files& f, int kind) {
  char c;
  if (read(go, &c, 1) != 1) _exit(1);
  if (kind == kNone) _exit(0);
  const uint32_t n = kFaultTouches;
  if (kind == kAnon) {
    auto* anon = static_cast<volatile uint8_t*>(
        mmap(nullptr, n * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (anon == MAP_FAILED) _exit(1);
    madvise(const_cast<uint8_t*>(anon), n * kPage, MADV_NOHUGEPAGE);  // a fault per page
    for (uint32_t i = 0; i < n; ++i) anon[i * kPage] = 1;
    _exit(0);
  }
  constexpr uint32_t kWindows = kFileBytes / kWindow;
  const int fd = f.fd[kind == kFile ? 0 : 1].get();
  for (uint32_t i = 0; i < n;) {
    auto* p = static_cast<volatile uint8_t*>(mmap(nullptr, kFileBytes, PROT_READ, MAP_PRIVATE, fd, 0));
    if (p == MAP_FAILED) _exit(1);
    for (uint32_t w = 0; w < kWindows && i < n; ++w, ++i) (void)p[w * kWindow];
    munmap(const_cast<uint8_t*>(p), kFileBytes);
  }
  _exit(0);
}

}  // namespace

FaultCostRun measure_fault_cost(BpfSession& session, RingMerger& merger, const std::string& dir) {
  FaultCostRun run;
  Files f;
  if (!make_files(dir, f)) return run;
  struct Timing {  // the fault programs time themselves for the passes only
    BpfSession& s;
    explicit Timing(BpfSession& session) : s(session) { s.time_fault_programs(true); }
    ~Timing() { s.time_fault_programs(false); }
  } timing(session);
  const auto dev = static_cast<uint32_t>(f.skipped.st_dev);
  run.skipped_measured = f.skip_known && session.skip_faults_of(dev, f.skipped.st_ino, f.skipped_gen);
  std::array<uint64_t, RecordCost::kFaultKinds + 1> ns{};
  run.measured = true;
  std::vector<Event> ev;
  for (int k : {int{kNone}, int{kAnon}, int{kFile}, int{kSkipped}}) {
    ev.clear();
    const uint64_t before = session.fault_programs_run_ns();
    if (!run_calibration_child(
            session, merger, true, [&](int go) { touch(go, f, k); }, ev)) {
      run.measured = false;
      break;
    }
    ns[k] = session.fault_programs_run_ns() - before;
  }
  if (run.skipped_measured) session.skip_faults_of(dev, f.skipped.st_ino, f.skipped_gen, false);
  if (!run.measured) return run;
  for (int k = 0; k < RecordCost::kFaultKinds; ++k)
    run.ns[k] = static_cast<uint32_t>(
        std::min<uint64_t>(ns[k] > ns[kNone] ? (ns[k] - ns[kNone]) / kFaultTouches : 0, 1'000'000));
  if (!run.skipped_measured) run.ns[kSkipped] = run.ns[kAnon];  // (a lower bound)
  return run;
}

uint64_t fault_cost_ns(const RecordCost& c, uint64_t user_faults, uint64_t records, uint64_t skips) {
  if (!c.present) return 0;
  const auto& f = c.fault_ns;
  const auto more = [&](int k) { return f[k] > f[kAnon] ? f[k] - f[kAnon] : 0; };
  return user_faults * f[kAnon] + records * more(kFile) + skips * more(kSkipped);
}

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
#include "probe/server_probe.h"

#include <algorithm>
#include <iterator>
#include <thread>

#include "probe/server_bandwidth.h"
#include "probe/server_fit.h"
#include "probe/server_sweep.h"
#include "base/clock.h"

namespace fsr {

Status probe_server(int dir_fd, const std::string& where, double budget_s, const std::atomic<bool>* stop, Profile& p) {
  SweepOptions so;
  so.dir_fd = dir_fd;
  so.where = where;
  so.stop = stop;
  const double points = double(sweep_case_count() * std::size(kSweepStreams));
  so.point_s = std::clamp(budget_s * kSweepShare / points, kMinPointS, 1.0);
  so.deadline_ns = now_ns() + static_cast<uint64_t>(budget_s * kSweepShare * 1e9);
  FSR_RETURN_IF_ERROR(run_sweep(so, p.server, p.notes));
  BandwidthOptions bo;
  bo.dir_fd = dir_fd;
  bo.where = where;
  bo.stop = stop;
  bo.budget_s = budget_s * kBandwidthShare;
  FSR_RETURN_IF_ERROR(run_bandwidth(bo, p.server, p.notes));
  fit_server(p.server, p.syscall_overhead_ns, std::max(1u, std::thread::hardware_concurrency()));
  return Status::ok();
}

}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// The server part of a probe: the concurrency sweep (server_sweep.h), the
// bandwidth run (server_bandwidth.h) and the fit (server_fit.h), within
// their share of the probe's time budget, into Profile::server.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "traces/profile.h"
#include "base/status.h"

namespace fsr {

// Shares of the probe's budget: the sweep's windows, the bandwidth runs.
inline constexpr double kSweepShare = 0.25;
inline constexpr double kBandwidthShare = 0.15;

// Works in the empty directory dir_fd (`where` its path, for messages),
// leaving files there for the caller to remove; fills p.server and adds
// notes to p.notes.
Status probe_server(int dir_fd, const std::string& where, double budget_s, const std::atomic<bool>* stop, Profile& p);

}  // namespace fsr

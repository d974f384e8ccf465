// SPDX-License-Identifier: Apache-2.0
// The server model fitted on probe's concurrency sweep: a pure function of
// the sweep's points, so that tests can feed it synthetic ones.
//
// Model: a mount serves at most `slots` requests at once, each holding its
// slot for `service` and spending the rest of its single-stream latency L1
// outside the server (syscall, transport), in parallel with the others. With
// c streams back to back its throughput is X(c) = min(c / L1, slots / service).
// The sweep's points (1, 2, 4, 8 streams) give L1 and the ceiling
// X_sat = max X(c), so slots / service = X_sat; they cannot split it further
// (3 slots of 150 us and 4 of 200 us draw the same curve when L1 is 230 us).
// The fit takes the most slots the data allows, service <= L1, i.e. the
// least time outside the server: slots = floor(X_sat * L1), with 6% for
// noise, and service = slots / X_sat. A mount that scaled nearly linearly
// to the largest measured concurrency (X_sat at least 85% of 8 X(1)) has no
// limit seen: slots kNoSlotLimit, service L1 less the syscall round trip.
//
// Slots and service come from the small requests that reach the server
// (stat, open, read of a small file, create, unlink, 4 KiB direct reads):
// the median over those kinds. 1 MiB transfers are bandwidth's business and
// buffered reads the page cache's: they stay in the sweep, out of the fit.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "traces/profile.h"

namespace fsr {

// One kind's fit (its points share kind, param and direct).
struct KindFit {
  ProbeKind kind = ProbeKind::kStat;
  uint64_t param = 0;
  bool direct = false;
  uint32_t max_streams = 0;  // the largest concurrency measured
  double parallelism = 0;    // X_sat / X(1)
  uint32_t slots = 0;        // kNoSlotLimit: still scaling at max_streams
  uint64_t service_ns = 0;
};

// nullopt without a one-stream point or with no ops.
std::optional<KindFit> fit_kind(std::span<const ConcurrencyPoint> points, uint64_t syscall_ns);

// Whether the kind's points feed the server's slots and service time.
bool kind_fits_server(const ConcurrencyPoint& p);

// Fills m.slots, m.service_ns and m.fit_note from m.sweep; `cpus` is the
// probing machine's (a limit at or below it may be the CPUs', said).
// Without a kind to fit, m.slots stays 0 (not measured) and the note says why.
void fit_server(ServerModel& m, uint64_t syscall_ns, unsigned cpus);

}  // namespace fsr

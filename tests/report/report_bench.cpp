// SPDX-License-Identifier: Apache-2.0
// Benchmark (prints figures, asserts nothing): statistics, critical path and
// each renderer over a synthetic result of N ops (default 1,000,000).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "tests/report/test_results.h"
#include "report/render.h"
#include "traces/syscalls.h"

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  fsr::testdata::SimWorkload w;
  w.header.root = "/w";
  std::mt19937 rng(1);
  const uint16_t nrs[] = {*fsr::syscall_from_name("newfstatat"), *fsr::syscall_from_name("openat"),
                          *fsr::syscall_from_name("read"), *fsr::syscall_from_name("close")};
  for (size_t i = 0; i < n; ++i) {
    fsr::testdata::SimOp op{uint32_t(rng() % 8),
                            uint32_t(100 + rng() % 50),
                            nrs[rng() % 4],
                            1000 + rng() % 50000,
                            rng() % 4 ? uint64_t{0} : uint64_t{2000},
                            {},
                            "/w/d" + std::to_string(rng() % 300) + "/f" + std::to_string(rng() % 50)};
    if (i > 10 && rng() % 16 == 0) op.deps.push_back(i - 1 - rng() % 10);
    w.ops.push_back(std::move(op));
  }
  const fsr::ResultSet base = fsr::testdata::simulate(w, [](const auto& o) { return o.latency; });
  const fsr::ResultSet slow = fsr::testdata::simulate(w, [](const auto& o) { return o.latency * 3; });
  for (auto [name, fmt] :
       {std::pair{"text", fsr::OutputFormat::kText}, std::pair{"json", fsr::OutputFormat::kJson},
        std::pair{"html", fsr::OutputFormat::kHtml}, std::pair{"perfetto", fsr::OutputFormat::kPerfetto}}) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::string out = fsr::render_report(slow, &base, fmt, {});
    const double s = seconds_since(t0);
    // perfetto renders the target only; the others read both results.
    const double ops = fmt == fsr::OutputFormat::kPerfetto ? double(n) : 2.0 * double(n);
    std::printf("%-9s %.0f ops: %.2f s (%.2f M ops/s), %zu bytes\n", name, ops, s, ops / s / 1e6, out.size());
  }
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
// slowfs_server without mounting: --server-slots and --bandwidth parsing, the
// FIFO slots (peak in service, waits), the byte pipe's counters and its
// pacing clock (pace_pipe, on synthetic times). Counts and arithmetic only,
// and one lower bound on time that follows from the configuration.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "emulators/slowfs/slowfs_config.h"
#include "emulators/slowfs/slowfs_server.h"

namespace fsr {
namespace {

std::string parse(std::vector<std::string> args, SlowfsOptions& o) {
  args.insert(args.end(), {"b", "m"});
  return parse_slowfs_args(args, o);
}

TEST(SlowfsServerConfig, ParsesSlotsAndBandwidth) {
  SlowfsOptions o;
  ASSERT_EQ(parse({"--server-slots", "4", "--bandwidth", "read=40MB,write=20MB/s"}, o), "");
  EXPECT_EQ(o.server_slots, 4u);
  EXPECT_EQ(o.bandwidth, (Bandwidth{40e6, 20e6}));
  Bandwidth bw;
  ASSERT_EQ(apply_bandwidth_list("all=1MiB", bw), "");
  EXPECT_EQ(bw, (Bandwidth{1048576.0, 1048576.0}));
  ASSERT_EQ(apply_bandwidth_list("write=2.5", bw), "");  // a bare number is MB/s
  EXPECT_EQ(bw.write_bps, 2.5e6);
  ASSERT_EQ(apply_bandwidth_list("read=none", bw), "");
  EXPECT_EQ(bw.read_bps, 0);
  EXPECT_EQ(format_bandwidth(Bandwidth{40e6, 0}), "read 40 MB/s, write unlimited");
}

TEST(SlowfsServerConfig, DefaultIsUnlimitedAndWsl2NinePIsOneSlot) {
  SlowfsOptions o;
  ASSERT_EQ(parse({}, o), "");
  EXPECT_EQ(o.server_slots, 0u);
  EXPECT_EQ(o.bandwidth, Bandwidth{});
  ASSERT_EQ(parse({"--profile", "wsl2-9p"}, o), "");
  EXPECT_EQ(o.server_slots, 1u);  // the 9p server's global lock (#41301)
  SlowfsOptions p;
  ASSERT_EQ(parse({"--profile", "wsl2-9p", "--server-slots", "none"}, p), "");
  EXPECT_EQ(p.server_slots, 0u);  // the switch overrides the profile
}

TEST(SlowfsServerConfig, BadValuesAreOneLineNamingTheOption) {
  for (const std::vector<std::string>& bad : {std::vector<std::string>{"--server-slots", "0"},
                                              {"--server-slots", "-2"},
                                              {"--server-slots", "four"},
                                              {"--bandwidth", "read=-5MB"},
                                              {"--bandwidth", "read=fast"},
                                              {"--bandwidth", "read=0"},
                                              {"--bandwidth", "up=5MB"},
                                              {"--bandwidth", "read=5furlongs"},
                                              {"--bandwidth", ""}}) {
    SlowfsOptions o;
    std::string err = parse(bad, o);
    EXPECT_FALSE(err.empty()) << bad[0] << " " << bad[1];
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
    EXPECT_NE(err.find(bad[0].substr(2, 6)), std::string::npos) << err;  // "server" or "bandwi"
  }
}

// `threads` threads each enter, hold the slot `hold`, leave; `rounds` times.
ServerCounters run_threads(ServerModel& m, int threads, int rounds, std::chrono::microseconds hold) {
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([&] {
      for (int i = 0; i < rounds; ++i) {
        ServerSlot slot(m);
        std::this_thread::sleep_for(hold);
      }
    });
  for (auto& t : ts) t.join();
  return m.counters();
}

TEST(SlowfsServerModel, OneSlotServesOneAtATimeAndOthersWait) {
  ServerModel m;
  m.configure(1, {});
  ServerCounters c = run_threads(m, 8, 20, std::chrono::microseconds(200));
  EXPECT_EQ(c.requests, 160u);
  EXPECT_EQ(c.peak_in_service, 1u);
  EXPECT_GT(c.waited, 0u);
  EXPECT_GT(c.wait_ns, 0u);
}

TEST(SlowfsServerModel, FourSlotsServeUpToFour) {
  ServerModel m;
  m.configure(4, {});
  ServerCounters c = run_threads(m, 8, 20, std::chrono::microseconds(500));
  EXPECT_LE(c.peak_in_service, 4u);
  EXPECT_GT(c.peak_in_service, 1u);
  EXPECT_GT(c.waited, 0u);  // 8 threads on 4 slots, each holding 0.5 ms
}

TEST(SlowfsServerModel, UnlimitedNeverWaits) {
  ServerModel m;
  m.configure(0, {});
  ServerCounters c = run_threads(m, 8, 20, std::chrono::microseconds(500));
  EXPECT_EQ(c.waited, 0u);
  EXPECT_GT(c.peak_in_service, 1u);
  EXPECT_NE(m.format().find("peak_in_service " + std::to_string(c.peak_in_service) + "\n"), std::string::npos);
}

TEST(SlowfsServerModel, PipeCountsBytesAndTakesAtLeastBytesOverBandwidth) {
  ServerModel m;
  m.configure(0, Bandwidth{0, 40e6});
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)  // 4 writers x 8 x 128 KiB = 4 MiB through 40 MB/s
    ts.emplace_back([&] {
      for (int i = 0; i < 8; ++i) m.transfer(128 * 1024, true);
    });
  for (auto& t : ts) t.join();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ServerCounters c = m.counters();
  EXPECT_EQ(c.write_bytes, 4u << 20);
  EXPECT_EQ(c.read_bytes, 0u);
  EXPECT_GE(secs, 4194304 / 40e6 * 0.99);  // the pipe cannot be faster than configured
  EXPECT_NEAR(static_cast<double>(c.pipe_busy_ns) / 1e9, 4194304 / 40e6, 1e-3);
  EXPECT_GT(c.pipe_waited, 0u);  // four writers shared one pipe
  m.transfer(1000, false);       // reads are unlimited here: counted, not slowed
  EXPECT_EQ(m.counters().read_bytes, 1000u);
}

// N back-to-back transfers of S bytes at R, each arriving `gap_ns` after the
// previous one ended (the client's turnaround): returns when the last ends,
// from the first's arrival at t = 1 s. Pure arithmetic on pace_pipe.
int64_t stream_ns(int n, int64_t busy_ns, int64_t gap_ns, int64_t* overlapped = nullptr) {
  int64_t free_at = 0, arrival = 1'000'000'000;
  const int64_t first = arrival;
  for (int i = 0; i < n; ++i) {
    const PipeBooking b = pace_pipe(free_at, arrival, busy_ns);
    EXPECT_GE(b.start_ns, free_at);  // the link is never busy twice at once
    if (overlapped) *overlapped += b.overlapped_ns;
    free_at = b.end_ns;
    arrival = b.end_ns + gap_ns;
  }
  return free_at - first;
}

TEST(SlowfsPipePacing, AStreamGetsTheRateWhateverItsTurnaroundBelowOneTransfer) {
  // 128 KiB (readahead) and 1 MiB (O_DIRECT) requests at 40 MB/s.
  for (const int64_t bytes : {int64_t{131072}, int64_t{1} << 20}) {
    const int64_t busy = bytes * 1'000'000'000 / 40'000'000;
    for (const int64_t gap : {int64_t{0}, int64_t{50'000}, busy / 2, busy - 1, busy}) {
      int64_t overlapped = 0;
      EXPECT_EQ(stream_ns(100, busy, gap, &overlapped), 100 * busy) << bytes << " B, turnaround " << gap << " ns";
      EXPECT_EQ(overlapped, 99 * gap);  // every pause but the first transfer's was overlapped
    }
  }
}

TEST(SlowfsPipePacing, LongerPausesCostTheirExcessAndAnIsolatedTransferItsFullTime) {
  const int64_t busy = 1'000'000;  // 1 ms per transfer
  // Between one and two transfer times the credit shrinks: at 1.5x, half a transfer.
  EXPECT_EQ(stream_ns(11, busy, busy * 3 / 2), 11 * busy + 10 * busy);
  // At twice the transfer or more nothing is credited: each takes busy from its arrival.
  EXPECT_EQ(stream_ns(11, busy, 2 * busy), 11 * busy + 10 * 2 * busy);
  EXPECT_EQ(stream_ns(11, busy, 5 * busy), 11 * busy + 10 * 5 * busy);
  const PipeBooking idle = pace_pipe(0, 1'000'000'000, busy);  // nothing before it
  EXPECT_EQ(idle.start_ns, 1'000'000'000);
  EXPECT_EQ(idle.end_ns, 1'000'000'000 + busy);
  EXPECT_EQ(idle.overlapped_ns, 0);
}

TEST(SlowfsPipePacing, ABusyLinkQueuesTheTransferBehindTheEarlierOnes) {
  const PipeBooking b = pace_pipe(5'000, 2'000, 1'000);
  EXPECT_EQ(b.start_ns, 5'000);
  EXPECT_EQ(b.end_ns, 6'000);
  EXPECT_EQ(b.waited_ns, 3'000);
  EXPECT_EQ(b.overlapped_ns, 0);
  // Four clients that all arrive at once share the rate: the last ends at 4 transfers.
  int64_t free_at = 0;
  for (int i = 0; i < 4; ++i) free_at = pace_pipe(free_at, 10'000, 1'000).end_ns;
  EXPECT_EQ(free_at, 14'000);
}

}  // namespace
}  // namespace fsr

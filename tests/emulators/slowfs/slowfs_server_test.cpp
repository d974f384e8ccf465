// SPDX-License-Identifier: Apache-2.0
// slowfs_server without mounting: --server-slots and --bandwidth parsing, the
// FIFO slots (peak in service, waits) and the byte pipe's counters. Counts
// only, and one lower bound on time that follows from the configuration.
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

}  // namespace
}  // namespace fsr

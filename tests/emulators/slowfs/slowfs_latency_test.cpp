// SPDX-License-Identifier: Apache-2.0
// Latency injection measured through a slowfs mount: the configured class gets
// slower by about the configured amount and the others do not. Structural
// checks: lower bounds on times (a sleep is never shorter) and the daemon's
// own account of what it slept, never an upper bound on a time (the machine
// is shared).
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "tests/emulators/slowfs/slowfs_test_mount.h"

namespace fsr::testing {
namespace {

double now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

struct Means {
  double stat_ms = 0;
  double read_ms = 0;
};

// 50 stat() of a path (a FUSE lookup/getattr each, as caching is off) and 50
// pread()s on an open direct-I/O file (a FUSE read each, nothing else).
Means measure(const std::string& mnt) {
  Means m;
  std::string f = mnt + "/file";
  int fd = open(f.c_str(), O_RDWR | O_CREAT, 0644);
  EXPECT_GE(fd, 0) << std::strerror(errno);
  if (fd < 0) return m;
  char buf[4096] = {};
  EXPECT_EQ(pwrite(fd, buf, sizeof buf, 0), static_cast<ssize_t>(sizeof buf));
  constexpr int kN = 50;
  struct stat st {};
  double t0 = now_ms();
  for (int i = 0; i < kN; ++i) EXPECT_EQ(stat(f.c_str(), &st), 0);
  m.stat_ms = (now_ms() - t0) / kN;
  t0 = now_ms();
  for (int i = 0; i < kN; ++i) EXPECT_EQ(pread(fd, buf, sizeof buf, 0), static_cast<ssize_t>(sizeof buf));
  m.read_ms = (now_ms() - t0) / kN;
  close(fd);
  return m;
}

class LatencyInjection : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "mounting slowfs with allow_other needs root";
    if (access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "kernel has no /dev/fuse";
  }
  // Mounts with `lat`, measures, unmounts; the daemon's --stats (class ->
  // requests, ms slept) into `slept`.
  Means mount_and_measure(const std::string& lat, std::map<std::string, std::pair<uint64_t, double>>& slept) {
    const std::string dir = make_temp_dir("slowfs-lat-");
    EXPECT_FALSE(dir.empty());
    const std::string stats = dir + "/stats.txt";
    Means m;
    {
      SlowfsMount mnt;
      std::string err = mnt.mount(
          {"--lat", lat, "--attr-timeout", "0", "--entry-timeout", "0", "--direct-io", "--realtime", "--stats", stats});
      EXPECT_EQ(err, "");
      if (!err.empty()) return {};
      m = measure(mnt.mountpoint());
    }  // unmounted: the daemon writes its stats as it exits
    std::ifstream in(stats);
    EXPECT_TRUE(in.good()) << "no stats file " << stats;
    std::string header, name;
    std::getline(in, header);
    uint64_t count;
    double ms;
    while (in >> name >> count >> ms) slept[name] = {count, ms};
    remove_tree(dir);
    RecordProperty("lat", lat);
    std::printf("  --lat %s: stat mean %.3f ms, read mean %.3f ms\n", lat.c_str(), m.stat_ms, m.read_ms);
    return m;
  }
};

// The configured class is slower by at least its latency (a lower bound:
// a sleep is never shorter), and the daemon slept for no other class: the
// ground truth, which a loaded machine cannot move (no upper bound on a time).
TEST_F(LatencyInjection, StatClassRisesByConfiguredAmount) {
  std::map<std::string, std::pair<uint64_t, double>> slept;
  Means m = mount_and_measure("all=0,stat=2ms", slept);
  // A stat() is at least one 2 ms getattr/lookup round trip.
  EXPECT_GE(m.stat_ms, 1.5);
  EXPECT_GE(slept["stat"].second + slept["lookup"].second, 50 * 2 * 0.9);
  EXPECT_GE(slept["read"].first, 50u);
  EXPECT_EQ(slept["read"].second, 0.0);
}

TEST_F(LatencyInjection, ReadClassRisesByConfiguredAmount) {
  std::map<std::string, std::pair<uint64_t, double>> slept;
  Means m = mount_and_measure("all=0,read=2ms", slept);
  EXPECT_GE(m.read_ms, 1.5);
  EXPECT_GE(slept["read"].second, 50 * 2 * 0.9);
  EXPECT_GE(slept["stat"].first + slept["lookup"].first, 50u);
  EXPECT_EQ(slept["stat"].second, 0.0);
  EXPECT_EQ(slept["lookup"].second, 0.0);
}

TEST_F(LatencyInjection, ExponentialJitterAddsItsMean) {
  // 1 ms fixed plus an exponential extra with mean 1 ms: mean ~ 2 ms per stat
  // round trip; the fixed part alone cannot exceed 1.5 ms on average.
  std::map<std::string, std::pair<uint64_t, double>> slept;
  Means m = mount_and_measure("all=0,stat=1ms+exp1ms", slept);
  EXPECT_GE(m.stat_ms, 1.5);
  EXPECT_EQ(slept["read"].second, 0.0);
}

// --stats is the ground truth attribution tests compare against: it must count
// each request in its class.
TEST_F(LatencyInjection, StatsFileCountsRequestsPerClass) {
  std::string dir = make_temp_dir("slowfs-stats-");
  ASSERT_FALSE(dir.empty());
  std::string stats = dir + "/stats.txt";
  {
    SlowfsMount mnt;
    ASSERT_EQ(mnt.mount({"--lat", "all=0,mkdir=100us", "--stats", stats}), "");
    for (int i = 0; i < 10; ++i) ASSERT_EQ(mkdir((mnt.mountpoint() + "/d" + std::to_string(i)).c_str(), 0755), 0);
    for (int i = 0; i < 4; ++i) ASSERT_EQ(rmdir((mnt.mountpoint() + "/d" + std::to_string(i)).c_str()), 0);
  }  // unmounted: the daemon writes the file as it exits
  std::ifstream in(stats);
  ASSERT_TRUE(in.good()) << "no stats file " << stats;
  std::map<std::string, std::pair<uint64_t, double>> rows;
  std::string header, name;
  std::getline(in, header);
  EXPECT_EQ(header, "class count slept_ms");
  uint64_t count;
  double ms;
  while (in >> name >> count >> ms) rows[name] = {count, ms};
  EXPECT_EQ(rows["mkdir"].first, 10u);
  EXPECT_EQ(rows["rmdir"].first, 4u);
  EXPECT_GE(rows["mkdir"].second, 10 * 0.1 * 0.9);  // 10 x 100 us actually slept
  EXPECT_EQ(rows["rmdir"].second, 0.0);
  EXPECT_EQ(rows.size(), 15u);  // every class listed
  remove_tree(dir);
}

}  // namespace
}  // namespace fsr::testing

// SPDX-License-Identifier: Apache-2.0
// slowfs --server-slots and --bandwidth through a real FUSE mount: 8 threads
// stat and read at once; --server-stats says how many were in service at
// once, how many waited, and how many bytes crossed the pipe. Counts only,
// plus one lower bound on time that the configured bandwidth implies.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/emulators/slowfs/slowfs_test_mount.h"

namespace fsr::testing {
namespace {

using Stats = std::map<std::string, uint64_t>;

Stats read_server_stats(const std::string& path) {
  std::ifstream in(path);
  std::string header, name;
  if (!std::getline(in, header) || header != "counter value") return {};
  Stats s;
  uint64_t v = 0;
  while (in >> name >> v) s[name] = v;
  return s;
}

class ServerSlots : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "mounting slowfs with allow_other needs root";
    if (access("/dev/fuse", R_OK | W_OK) != 0) GTEST_SKIP() << "kernel has no /dev/fuse";
    dir_ = make_temp_dir("slowfs-server-");
    ASSERT_FALSE(dir_.empty());
    file_ = dir_ + "/server.txt";
  }
  void TearDown() override {
    if (!dir_.empty()) remove_tree(dir_);
  }
  // Mounts with 1 ms per lookup/stat/open/read and no caching, runs 8 threads
  // that each stat and read (O_DIRECT) a 5000-byte file 15 times, unmounts, returns the counters.
  Stats run_concurrent(const std::vector<std::string>& extra) {
    {
      SlowfsMount mnt;
      std::vector<std::string> args = {"--lat",           "all=0,lookup=1ms,stat=1ms,open=1ms,read=1ms",
                                       "--attr-timeout",  "0",
                                       "--entry-timeout", "0",
                                       "--server-stats",  file_};
      args.insert(args.end(), extra.begin(), extra.end());
      if (auto err = mnt.mount(args); !err.empty()) {
        ADD_FAILURE() << err;
        return {};
      }
      const std::string f = mnt.mountpoint() + "/f";
      std::ofstream(f) << std::string(5000, 'x');
      std::vector<std::thread> ts;
      for (int t = 0; t < 8; ++t)
        ts.emplace_back([&] {
          alignas(4096) static thread_local char buf[8192];
          for (int i = 0; i < 15; ++i) {
            struct stat st {};
            EXPECT_EQ(stat(f.c_str(), &st), 0) << std::strerror(errno);
            int fd = open(f.c_str(), O_RDONLY | O_DIRECT);  // every read is a READ
            EXPECT_GE(fd, 0) << std::strerror(errno);
            EXPECT_EQ(read(fd, buf, sizeof buf), 5000);
            close(fd);
          }
        });
      for (auto& t : ts) t.join();
    }  // unmounted: the daemon wrote the counters as it exited
    return read_server_stats(file_);
  }
  std::string dir_, file_;
};

TEST_F(ServerSlots, OneSlotServesOneRequestAtATime) {
  Stats s = run_concurrent({"--server-slots", "1"});
  ASSERT_FALSE(s.empty()) << "no or malformed " << file_;
  EXPECT_EQ(s["slots"], 1u);
  EXPECT_EQ(s["peak_in_service"], 1u);
  EXPECT_GT(s["waited"], 0u);
  EXPECT_GT(s["wait_us"], 0u);
  EXPECT_GE(s["requests"], 8u * 15 * 3);       // at least stat + open + read per round
  EXPECT_EQ(s["read_bytes"], 8u * 15 * 5000);  // O_DIRECT: each read() is one READ of the whole file
}

TEST_F(ServerSlots, FourSlotsServeMoreThanOneAndAtMostFour) {
  Stats s = run_concurrent({"--server-slots", "4"});
  ASSERT_FALSE(s.empty()) << "no or malformed " << file_;
  EXPECT_EQ(s["slots"], 4u);
  EXPECT_LE(s["peak_in_service"], 4u);
  EXPECT_GT(s["peak_in_service"], 1u);
}

TEST_F(ServerSlots, WithoutTheOptionNothingWaits) {
  Stats s = run_concurrent({});
  ASSERT_FALSE(s.empty()) << "no or malformed " << file_;
  EXPECT_EQ(s["slots"], 0u);
  EXPECT_EQ(s["waited"], 0u);
  EXPECT_GT(s["peak_in_service"], 1u);  // concurrent requests overlap, as before
}

TEST_F(ServerSlots, BandwidthCountsTheBytesWrittenAndBoundsTheTime) {
  const size_t kBytes = 4u << 20;
  double secs = 0;
  {
    SlowfsMount mnt;
    ASSERT_EQ(mnt.mount({"--lat", "all=0", "--bandwidth", "read=80MB,write=40MB", "--server-stats", file_}), "");
    std::unique_ptr<char, decltype(&std::free)> data(static_cast<char*>(std::aligned_alloc(4096, kBytes)), &std::free);
    std::memset(data.get(), 'y', kBytes);
    const auto start = std::chrono::steady_clock::now();
    // O_DIRECT, as dd oflag=direct: slowfs must not pass it to the backing fd.
    int fd = open((mnt.mountpoint() + "/big").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644);
    ASSERT_GE(fd, 0) << std::strerror(errno);
    for (size_t off = 0; off < kBytes; off += 1u << 20)
      ASSERT_EQ(write(fd, data.get() + off, 1u << 20), 1 << 20) << std::strerror(errno);
    ASSERT_EQ(fsync(fd), 0);
    ASSERT_EQ(close(fd), 0);
    secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  Stats s = read_server_stats(file_);
  ASSERT_FALSE(s.empty()) << "no or malformed " << file_;
  EXPECT_EQ(s["write_bytes"], kBytes);
  EXPECT_EQ(s["write_bps"], 40'000'000u);
  EXPECT_GE(secs, kBytes / 40e6 * 0.99);  // 4 MiB through 40 MB/s takes at least ~105 ms
  EXPECT_GE(s["pipe_busy_us"], kBytes / 40);
}

}  // namespace
}  // namespace fsr::testing

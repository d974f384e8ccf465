// SPDX-License-Identifier: Apache-2.0
// Parsing of slowfs latency specs, command lines, config files and profiles.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "emulators/slowfs/slowfs_config.h"

namespace fsr {
namespace {

TEST(SlowfsLatency, ParsesDurationsWithUnits) {
  EXPECT_EQ(parse_duration_ns("1500us"), 1'500'000);
  EXPECT_EQ(parse_duration_ns("2ms"), 2'000'000);
  EXPECT_EQ(parse_duration_ns("0.5ms"), 500'000);
  EXPECT_EQ(parse_duration_ns("300ns"), 300);
  EXPECT_EQ(parse_duration_ns("1s"), 1'000'000'000);
  EXPECT_EQ(parse_duration_ns("0"), 0);
  EXPECT_FALSE(parse_duration_ns("5"));  // a unit is required unless 0
  EXPECT_FALSE(parse_duration_ns("ms"));
  EXPECT_FALSE(parse_duration_ns("1 hour"));
  EXPECT_FALSE(parse_duration_ns("120s"));  // over a minute per op
}

TEST(SlowfsLatency, ParsesJitterForms) {
  EXPECT_EQ(parse_latency_spec("1ms"), (LatencySpec{1'000'000, Jitter::kNone, 0}));
  EXPECT_EQ(parse_latency_spec("1ms+-200us"), (LatencySpec{1'000'000, Jitter::kUniform, 200'000}));
  EXPECT_EQ(parse_latency_spec("1ms+exp300us"), (LatencySpec{1'000'000, Jitter::kExponential, 300'000}));
  EXPECT_FALSE(parse_latency_spec("1ms+-"));
  EXPECT_EQ(format_latency_spec(LatencySpec{1'000'000, Jitter::kUniform, 200'000}), "1000us+-200us");
}

TEST(SlowfsLatency, DrawStaysWithinUniformBoundsAndExponentialMean) {
  uint64_t rng = 42;
  LatencySpec u{1'000'000, Jitter::kUniform, 200'000};
  double sum = 0;
  for (int i = 0; i < 10000; ++i) {
    int64_t v = draw_latency_ns(u, rng);
    ASSERT_GE(v, 800'000);
    ASSERT_LE(v, 1'200'000);
    sum += static_cast<double>(v);
  }
  EXPECT_NEAR(sum / 10000, 1'000'000, 10'000);
  LatencySpec e{0, Jitter::kExponential, 500'000};
  sum = 0;
  for (int i = 0; i < 20000; ++i) sum += static_cast<double>(draw_latency_ns(e, rng));
  EXPECT_NEAR(sum / 20000, 500'000, 25'000);
  LatencySpec neg{100, Jitter::kUniform, 1'000'000};
  for (int i = 0; i < 1000; ++i) ASSERT_GE(draw_latency_ns(neg, rng), 0);
}

TEST(SlowfsLatency, LatencyListSetsClassesAndRejectsUnknownNames) {
  LatencyTable t;
  EXPECT_EQ(apply_latency_list("all=10us, stat=1ms,lookup=2ms", t), "");
  EXPECT_EQ(t[OpClass::kStat].base_ns, 1'000'000);
  EXPECT_EQ(t[OpClass::kLookup].base_ns, 2'000'000);
  EXPECT_EQ(t[OpClass::kRead].base_ns, 10'000);
  std::string err = apply_latency_list("stta=1ms", t);
  EXPECT_NE(err.find("unknown operation class 'stta'"), std::string::npos) << err;
  err = apply_latency_list("stat=fast", t);
  EXPECT_NE(err.find("'fast'"), std::string::npos) << err;
  err = apply_latency_list("stat", t);
  EXPECT_NE(err.find("no '='"), std::string::npos) << err;
}

TEST(SlowfsLatency, EveryProfileParsesAndOrdersAsPublished) {
  for (const char* name : {"wsl2-9p", "wsl2-virtiofs", "wsl1-drvfs", "wsl2-9p-lab", "wsl2-virtiofs-lab", "none"}) {
    const Profile* p = find_profile(name);
    ASSERT_NE(p, nullptr) << name;
    LatencyTable t;
    EXPECT_EQ(apply_latency_list(p->latencies, t), "") << name;
  }
  EXPECT_EQ(find_profile("wsl3"), nullptr);
  // 9p is slower than virtiofs per stat (measurements.md), and uncached.
  LatencyTable p9, vfs;
  apply_latency_list(find_profile("wsl2-9p")->latencies, p9);
  apply_latency_list(find_profile("wsl2-virtiofs")->latencies, vfs);
  EXPECT_GT(p9[OpClass::kStat].base_ns, vfs[OpClass::kStat].base_ns);
  EXPECT_EQ(find_profile("wsl2-9p")->attr_timeout, 0.0);
  // The lab's profiles: 9p dearer than virtiofs per stat and open, as measured there.
  LatencyTable l9, lv;
  apply_latency_list(find_profile("wsl2-9p-lab")->latencies, l9);
  apply_latency_list(find_profile("wsl2-virtiofs-lab")->latencies, lv);
  EXPECT_GT(l9[OpClass::kStat].base_ns, lv[OpClass::kStat].base_ns);
  EXPECT_GT(l9[OpClass::kOpen].base_ns, lv[OpClass::kOpen].base_ns);
  EXPECT_EQ(find_profile("wsl2-9p")->entry_timeout, 0.0);
}

TEST(SlowfsArgs, ProfileThenLatThenSwitchesWhateverTheOrder) {
  SlowfsOptions o;
  ASSERT_EQ(parse_slowfs_args({"--lat", "stat=5ms", "back", "--attr-timeout=2", "mnt", "--profile", "wsl2-9p", "-o",
                               "allow_other", "-f", "--direct-io"},
                              o),
            "");
  EXPECT_EQ(o.backing, "back");
  EXPECT_EQ(o.mountpoint, "mnt");
  EXPECT_EQ(o.profile, "wsl2-9p");
  EXPECT_EQ(o.latency[OpClass::kStat].base_ns, 5'000'000);  // --lat wins over the profile
  EXPECT_GT(o.latency[OpClass::kOpen].base_ns, 0);          // the profile still applies
  EXPECT_EQ(o.attr_timeout, 2.0);
  EXPECT_EQ(o.entry_timeout, 0.0);
  EXPECT_TRUE(o.direct_io);
  EXPECT_TRUE(o.foreground);
  EXPECT_EQ(o.mount_options, std::vector<std::string>{"allow_other"});
}

TEST(SlowfsArgs, ErrorsAreOneLineAndNameTheProblem) {
  SlowfsOptions o;
  EXPECT_NE(parse_slowfs_args({"only-one"}, o).find("expected BACKING and MOUNTPOINT"), std::string::npos);
  EXPECT_NE(parse_slowfs_args({"a", "b", "--profile", "wsl3"}, o).find("unknown profile 'wsl3'"), std::string::npos);
  EXPECT_NE(parse_slowfs_args({"a", "b", "--bogus"}, o).find("unknown option '--bogus'"), std::string::npos);
  EXPECT_NE(parse_slowfs_args({"a", "b", "--lat"}, o).find("--lat needs a value"), std::string::npos);
  EXPECT_NE(parse_slowfs_args({"a", "b", "--attr-timeout", "soon"}, o).find("attr-timeout 'soon'"), std::string::npos);
  for (const auto& args : std::vector<std::vector<std::string>>{{"x"}, {"a", "b", "--profile", "q"}})
    EXPECT_EQ(parse_slowfs_args(args, o).find('\n'), std::string::npos);
  SlowfsOptions h;
  EXPECT_EQ(parse_slowfs_args({"--help"}, h), "");
  EXPECT_TRUE(h.show_help);
}

TEST(SlowfsArgs, ConfigFileAppliesBetweenProfileAndLat) {
  char path[] = "/tmp/slowfs-config-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << "# test\nstat = 3ms+-1ms\nopen=700us\nattr-timeout = 0.5\nwriteback-cache = yes\n";
  SlowfsOptions o;
  EXPECT_EQ(parse_slowfs_args({"b", "m", "--lat", "open=1ms", "--config", path, "--profile", "wsl2-virtiofs"}, o), "");
  EXPECT_EQ(o.latency[OpClass::kStat], (LatencySpec{3'000'000, Jitter::kUniform, 1'000'000}));
  EXPECT_EQ(o.latency[OpClass::kOpen].base_ns, 1'000'000);  // --lat after the file
  EXPECT_EQ(o.attr_timeout, 0.5);
  EXPECT_TRUE(o.writeback_cache);
  std::ofstream(path) << "stat = 3ms\nbogus line\n";
  SlowfsOptions bad;
  std::string err = parse_slowfs_args({"b", "m", "--config", path}, bad);
  EXPECT_NE(err.find(std::string(path) + ":2:"), std::string::npos) << err;
  unlink(path);
  EXPECT_NE(parse_slowfs_args({"b", "m", "--config", path}, bad).find("cannot read config file"), std::string::npos);
}

}  // namespace
}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// Profiles in the container: round trip, and one clear line for every bad input.
#include <algorithm>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "traces/profile.h"
#include "traces/trace_writer.h"

namespace fsr {
namespace {

struct Tmp {
  std::string dir;
  Tmp() {
    char tpl[] = "/tmp/fsr-profile-test-XXXXXX";
    dir = mkdtemp(tpl);
  }
  ~Tmp() { std::filesystem::remove_all(dir); }
};

Profile sample_profile() {
  Profile p;
  p.name = "wsl2-9p";
  p.target = "/mnt/c/probe";
  p.environment_json = R"({"platform":"wsl2","mount":{"kind":"9p-drvfs","fs_type":"9p"}})";
  p.started_wall_ns = 1'764'590'400'000'000'000ull;
  p.duration_ns = 58'000'000'000ull;
  p.syscall_overhead_ns = 900;
  p.ref_depth = 3;
  p.cache_lifetime_ns = 750'000'000ull;
  p.cold_measured = true;
  p.rounds = 17;
  p.busy_cpus = 3;
  p.notes = {"link: 8 timed calls returned -1 (Operation not permitted); not measured on this mount"};
  for (uint64_t d : {2, 3, 9}) {
    std::vector<uint64_t> s;
    for (uint64_t i = 0; i < 300; ++i) s.push_back(1'000'000 + d * 400'000 + (i * 7919) % 50'000);
    p.cases.push_back(make_case(ProbeKind::kStat, Temp::kWarm, d, s));
  }
  std::vector<uint64_t> r{4000, 9000, 5000};
  p.cases.push_back(make_case(ProbeKind::kRead, Temp::kCold, 65536, r));
  return p;
}

std::string error_of(const std::string& path) {
  auto r = read_profile(path);
  EXPECT_FALSE(r);
  return r ? std::string() : r.message();
}

TEST(Profile, RoundTrip) {
  Tmp t;
  const Profile p = sample_profile();
  ASSERT_TRUE(write_profile(t.dir + "/p.profile", p));
  auto r = read_profile(t.dir + "/p.profile");
  ASSERT_TRUE(r) << r.message();
  const Profile& q = r.value();
  EXPECT_EQ(q.version, kProfileVersion);
  EXPECT_EQ(q.name, p.name);
  EXPECT_EQ(q.target, p.target);
  EXPECT_EQ(q.environment_json, p.environment_json);
  EXPECT_EQ(q.started_wall_ns, p.started_wall_ns);
  EXPECT_EQ(q.duration_ns, p.duration_ns);
  EXPECT_EQ(q.syscall_overhead_ns, p.syscall_overhead_ns);
  EXPECT_EQ(q.ref_depth, p.ref_depth);
  EXPECT_EQ(q.cache_lifetime_ns, p.cache_lifetime_ns);
  EXPECT_EQ(q.cold_measured, p.cold_measured);
  EXPECT_EQ(q.rounds, p.rounds);
  EXPECT_EQ(q.busy_cpus, p.busy_cpus);
  EXPECT_EQ(q.notes, p.notes);
  EXPECT_EQ(q.mount_kind(), "9p-drvfs");
  ASSERT_EQ(q.cases.size(), p.cases.size());
  for (size_t i = 0; i < p.cases.size(); ++i) {
    const ProfileCase &a = p.cases[i], &b = q.cases[i];
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.temp, b.temp);
    EXPECT_EQ(a.param, b.param);
    EXPECT_EQ(a.count, b.count);
    EXPECT_EQ(a.sum_ns, b.sum_ns);
    EXPECT_EQ(a.min_ns, b.min_ns);
    EXPECT_EQ(a.max_ns, b.max_ns);
    EXPECT_EQ(a.bins, b.bins);
  }
  ASSERT_NE(q.find(ProbeKind::kStat, Temp::kWarm, 9), nullptr);
  EXPECT_EQ(q.find(ProbeKind::kStat, Temp::kCold, 9), nullptr);
}

// The fingerprint's mount: who it is (advise's same-mount warning) and how
// deep the probed directory lies on it (predict's absolute walks).
TEST(Profile, TheFingerprintsMountNamesItAndTheTargetsDepthOnIt) {
  Profile p;
  p.environment_json = R"({"hostname":"h","mount":{"mount_point":"/m","source":"srv:/x","kind":"fuse"}})";
  p.target = "/m/w/probe";
  EXPECT_EQ(p.mount_identity(), "h:/m (srv:/x)");
  EXPECT_EQ(p.target_depth_on_mount(), 2u);
  p.target = "/m";
  EXPECT_EQ(p.target_depth_on_mount(), 0u);
  p.target = "/mnt/w";  // not on /m: unknown
  EXPECT_EQ(p.target_depth_on_mount(), 0u);
  p.environment_json = R"({"hostname":"h","mount":{"mount_point":"/","kind":"ext4"}})";
  p.target = "/var/tmp/w";
  EXPECT_EQ(p.target_depth_on_mount(), 3u);
  EXPECT_EQ(p.mount_identity(), "");  // no source: no mount known
}

TEST(Profile, ServerModelRoundTrips) {
  Tmp t;
  Profile p = sample_profile();
  p.server.slots = 4;
  p.server.service_ns = 210'000;
  p.server.sweep = {{ProbeKind::kStat, 1, 900, 200'000'000, 220'000},
                    {ProbeKind::kStat, 8, 3'700, 200'000'000, 430'000}};
  p.server.read_bw_direct = 40'000'000;
  p.server.write_bw_direct = 20'000'000;
  p.server.read_bw_buffered = 900'000'000;
  p.server.write_bw_buffered = 77'000'000;
  p.server.fit_note = "4 slots of 210 us";
  ASSERT_TRUE(write_profile(t.dir + "/s.profile", p));
  auto r = read_profile(t.dir + "/s.profile");
  ASSERT_TRUE(r) << r.message();
  const ServerModel& m = r.value().server;
  EXPECT_TRUE(m.measured());
  EXPECT_EQ(m.slots, 4u);
  EXPECT_EQ(m.service_ns, 210'000u);
  ASSERT_EQ(m.sweep.size(), 2u);
  EXPECT_EQ(m.sweep[1].kind, ProbeKind::kStat);
  EXPECT_EQ(m.sweep[1].streams, 8u);
  EXPECT_EQ(m.sweep[1].ops, 3'700u);
  EXPECT_EQ(m.sweep[1].median_ns, 430'000u);
  EXPECT_DOUBLE_EQ(m.sweep[1].ops_per_s(), 18'500.0);
  EXPECT_EQ(m.read_bw_direct, 40'000'000u);
  EXPECT_EQ(m.write_bw_direct, 20'000'000u);
  EXPECT_EQ(m.read_bw_buffered, 900'000'000u);
  EXPECT_EQ(m.write_bw_buffered, 77'000'000u);
  EXPECT_EQ(m.fit_note, p.server.fit_note);
  // A profile written without a model (an older probe) reads as not measured.
  ASSERT_TRUE(write_profile(t.dir + "/n.profile", sample_profile()));
  auto n = read_profile(t.dir + "/n.profile");
  ASSERT_TRUE(n) << n.message();
  EXPECT_FALSE(n.value().server.measured());
  EXPECT_TRUE(n.value().server.sweep.empty());
}

TEST(Profile, CaseBinsAreQuantilesOfTheSamples) {
  std::vector<uint64_t> s;
  for (uint64_t i = 1000; i >= 1; --i) s.push_back(i);
  const ProfileCase c = make_case(ProbeKind::kWrite, Temp::kWarm, 4096, s);
  ASSERT_EQ(c.bins.size(), kProfileBins);
  EXPECT_EQ(c.count, 1000u);
  EXPECT_EQ(c.min_ns, 1u);
  EXPECT_EQ(c.max_ns, 1000u);
  EXPECT_EQ(c.sum_ns, 500500u);
  EXPECT_TRUE(std::is_sorted(c.bins.begin(), c.bins.end()));
  EXPECT_NEAR(double(c.median()), 500.0, 5.0);
  EXPECT_NEAR(double(c.bins.front()), 4.0, 2.0);  // the quantile at 1/256
}

TEST(Profile, AnotherProfileVersionIsOneClearLine) {
  Tmp t;
  Profile p = sample_profile();
  p.version = kProfileVersion + 1;
  ASSERT_TRUE(write_profile(t.dir + "/new.profile", p));
  const std::string m = error_of(t.dir + "/new.profile");
  EXPECT_NE(m.find("profile format version " + std::to_string(kProfileVersion + 1) + " is not supported"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("probe the mount again"), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos);
  p.version = kProfileMinVersion - 1;
  ASSERT_TRUE(write_profile(t.dir + "/old.profile", p));
  EXPECT_NE(
      error_of(t.dir + "/old.profile").find("version " + std::to_string(kProfileMinVersion - 1) + " is not supported"),
      std::string::npos);
}

// Version 1 (before kStatWritten) has the same message: it reads, as a profile without that case.
TEST(Profile, VersionOneProfileStillReads) {
  Tmp t;
  Profile p = sample_profile();
  p.version = 1;
  ASSERT_TRUE(write_profile(t.dir + "/v1.profile", p));
  auto q = read_profile(t.dir + "/v1.profile");
  ASSERT_TRUE(q) << q.message();
  EXPECT_EQ(q.value().version, 1);
  EXPECT_EQ(q.value().cases.size(), p.cases.size());
}

TEST(Profile, AnotherContainerVersionIsOneClearLine) {
  Tmp t;
  ASSERT_TRUE(write_profile(t.dir + "/p.profile", sample_profile()));
  {
    std::fstream f(t.dir + "/p.profile", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(8);
    const uint16_t v = 99;
    f.write(reinterpret_cast<const char*>(&v), 2);
  }
  const std::string m = error_of(t.dir + "/p.profile");
  EXPECT_NE(m.find("format version 99 is not supported"), std::string::npos) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos);
}

TEST(Profile, TruncatedProfileIsOneClearLineAtEveryCut) {
  Tmp t;
  const std::string path = t.dir + "/p.profile";
  ASSERT_TRUE(write_profile(path, sample_profile()));
  const auto full = std::filesystem::file_size(path);
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t readable = 0;
  for (size_t cut = 0; cut < full; cut += 7) {
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(cut));
    auto r = read_profile(path);
    if (r) {  // cut after the measurements frame (footer, index): still a whole profile
      ++readable;
      EXPECT_EQ(r->cases.size(), sample_profile().cases.size());
      continue;
    }
    EXPECT_EQ(r.message().find('\n'), std::string::npos) << r.message();
    EXPECT_NE(r.message().find(path), std::string::npos) << r.message();
  }
  EXPECT_LT(readable, full / 7);
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(full / 2));
  const std::string m = error_of(path);
  EXPECT_NE(m.find("truncated profile"), std::string::npos) << m;
}

TEST(Profile, TraceGivenAsProfileIsRefused) {
  Tmp t;
  TraceHeader h;
  auto w = TraceWriter::create(t.dir + "/t.trace", h);
  ASSERT_TRUE(w);
  ASSERT_TRUE(w.value()->finish({}));
  const std::string m = error_of(t.dir + "/t.trace");
  EXPECT_NE(m.find("is a trace, not a profile"), std::string::npos) << m;
}

TEST(Profile, TextAndJsonNameEveryCase) {
  const Profile p = sample_profile();
  const std::string text = profile_to_text(p), json = profile_to_json(p);
  EXPECT_NE(text.find("wsl2-9p"), std::string::npos);
  EXPECT_NE(text.find("depth 9"), std::string::npos);
  EXPECT_NE(text.find("read"), std::string::npos);
  EXPECT_NE(text.find("0.8 s after a touch"), std::string::npos) << text;
  EXPECT_NE(json.find("\"schema\": \"fsreplay.profile/1\""), std::string::npos);
  EXPECT_NE(json.find("\"kind\": \"stat\""), std::string::npos);
  for (int k = 0; k < kProbeKindCount; ++k) {
    const auto kind = static_cast<ProbeKind>(k);
    EXPECT_EQ(probe_kind_from_name(probe_kind_name(kind)), kind);
  }
}

}  // namespace
}  // namespace fsr

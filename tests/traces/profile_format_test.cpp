// SPDX-License-Identifier: Apache-2.0
// `inspect PROFILE` with a server model: the model, the fit, the bandwidths
// and the sweep table (kind x streams), text and JSON, against golden files
// (golden/; FSR_UPDATE_GOLDEN=1 rewrites them, then review the diff).
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "traces/profile.h"
#include "tests/report/golden.h"

namespace fsr {
namespace {

Profile server_profile() {
  Profile p;
  p.name = "slowfs-4";
  p.target = "/mnt/slow/probe";
  p.environment_json = R"({"hostname":"h","kernel_release":"6.18","mount":{"kind":"fuse","fs_type":"fuse"}})";
  p.started_wall_ns = 1'796'616'000'000'000'000ull;
  p.duration_ns = 60'000'000'000ull;
  p.syscall_overhead_ns = 300;
  p.ref_depth = 3;
  p.rounds = 9;
  std::vector<uint64_t> s{210'000, 220'000, 230'000};
  p.cases.push_back(make_case(ProbeKind::kStat, Temp::kWarm, 3, s));
  ServerModel& m = p.server;
  m.slots = 4;
  m.service_ns = 1'004'000;
  m.fit_note = "4 slots (stat, open agree); service 1004 us (median of the kinds, 1000 us-1008 us)";
  for (uint32_t n : {1u, 2u, 4u, 8u}) {
    const uint64_t stat_ops = 290 * std::min(n, 4u), open_ops = 285 * std::min(n, 4u);
    m.sweep.push_back({ProbeKind::kStat, n, stat_ops, 300'000'000, 1'030'000 * std::max(1u, n / 4)});
    m.sweep.push_back({ProbeKind::kOpenFile, n, open_ops, 300'000'000, 1'050'000 * std::max(1u, n / 4)});
    m.sweep.push_back({ProbeKind::kReadSeq, n, 15, 300'000'000, 20'000'000 * n, 1 << 20, true});
  }
  m.read_bw_direct = 52'428'800;
  m.write_bw_direct = 20'971'520;
  m.read_bw_buffered = 52'000'000;
  m.write_bw_buffered = 0;
  return p;
}

TEST(ProfileFormat, ServerModelTextMatchesGolden) {
  EXPECT_EQ(testdata::check_golden("profile-server.txt", profile_to_text(server_profile())), "");
}

TEST(ProfileFormat, ServerModelJsonMatchesGolden) {
  const std::string j = profile_to_json(server_profile());
  EXPECT_EQ(testdata::check_golden("profile-server.json", j), "");
  auto doc = nlohmann::json::parse(j);
  EXPECT_EQ(doc["server"]["slots"], 4);
  EXPECT_EQ(doc["server"]["sweep"].size(), 12u);
}

TEST(ProfileFormat, NoLimitAndNotMeasuredAreSaid) {
  Profile p = server_profile();
  p.server.slots = kNoSlotLimit;
  EXPECT_NE(profile_to_text(p).find("no slot limit seen"), std::string::npos);
  auto doc = nlohmann::json::parse(profile_to_json(p));
  EXPECT_TRUE(doc["server"]["slots"].is_null());
  EXPECT_TRUE(doc["server"]["no_slot_limit"].get<bool>());
  p.server = ServerModel{};
  EXPECT_NE(profile_to_text(p).find("server     not measured (probe --quick"), std::string::npos);
}

}  // namespace
}  // namespace fsr

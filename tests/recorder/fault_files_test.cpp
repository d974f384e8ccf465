// SPDX-License-Identifier: Apache-2.0
// Page faults on files outside the recorded root are recorded until the
// drain has seen their file, then not at all (bpf/record_fault.bpf.h
// fault_skip); files under the root keep every fault; --all-page-faults
// records both throughout.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/recorder/record_helper.h"
#include "traces/trace_reader.h"

namespace fsr::test {
namespace {

struct RoundFaults {
  std::vector<int> in, out;  // per round: faults on the file under the root, on the one outside it
  std::vector<std::string> choices;
};

void make_file(const std::string& path) {
  std::ofstream f(path, std::ios::binary);
  const std::string page(4096, 'x');
  for (int k = 0; k < 64; ++k) f << page;
}

RoundFaults record_rounds(const std::string& extra) {
  constexpr int kRounds = 8;
  TempDir root, other;
  const std::string in = root.path() + "/in.bin", out = other.path() + "/out.bin", trace = other.path() + "/t.trace";
  make_file(in);
  make_file(out);
  const std::string cmd = "cd '" + root.path() + "' && " FSR_FSREPLAY_PATH " record -q " + extra + " -o '" + trace +
                          "' --root '" + root.path() + "' -- " FSR_MAPPER_PATH " " + std::to_string(kRounds) + " 40 '" +
                          in + "' '" + out + "' > /dev/null 2>&1";
  RoundFaults r;
  EXPECT_EQ(sh(cmd), 0) << cmd;
  auto rd = TraceReader::open(trace);
  EXPECT_TRUE(rd) << rd.message();
  if (!rd) return r;
  r.choices = (*rd)->header().recorder_choices;
  r.in.assign(kRounds, 0);
  r.out.assign(kRounds, 0);
  int round = -1;
  std::vector<Event> chunk;
  while (true) {
    auto more = (*rd)->next(chunk);
    if (!more || !more.value()) break;
    for (const Event& e : chunk) {
      const std::string p = e.path[0] != kNoStr ? std::string((*rd)->str(e.path[0])) : std::string();
      if (e.nr == SYS_newfstatat && p.find("/round-") != std::string::npos)
        round = std::stoi(p.substr(p.rfind('-') + 1));
      if (e.nr != kEvPageFault || round < 0 || round >= kRounds) continue;
      if (p == in) ++r.in[round];
      if (p == out) ++r.out[round];
    }
  }
  return r;
}

bool has_choice(const RoundFaults& r, const std::string& prefix) {
  for (const std::string& c : r.choices)
    if (c.rfind(prefix, 0) == 0) return true;
  return false;
}

TEST(FaultFiles, AFileOutsideTheRootStopsBeingRecordedOnceTheDrainKnowsIt) {
  const RoundFaults r = record_rounds("");
  ASSERT_EQ(r.in.size(), 8u);
  EXPECT_TRUE(has_choice(r, "fault_files=under_root")) << ::testing::PrintToString(r.choices);
  // The drain runs at least every 10 ms; a round lasts 40 ms and more.
  for (int k = 4; k < 8; ++k) {
    EXPECT_GT(r.in[k], 0) << "round " << k << ": the file under the root lost its faults";
    EXPECT_EQ(r.out[k], 0) << "round " << k << ": the file outside the root is still recorded";
  }
}

TEST(FaultFiles, AllPageFaultsRecordsTheFilesOutsideTheRootToo) {
  const RoundFaults r = record_rounds("--all-page-faults");
  ASSERT_EQ(r.in.size(), 8u);
  EXPECT_TRUE(has_choice(r, "fault_files=all")) << ::testing::PrintToString(r.choices);
  for (int k = 0; k < 8; ++k) {
    EXPECT_GT(r.in[k], 0) << "round " << k;
    EXPECT_GT(r.out[k], 0) << "round " << k;
  }
}

}  // namespace
}  // namespace fsr::test

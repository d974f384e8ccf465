// SPDX-License-Identifier: Apache-2.0
// The environment fingerprint in a result comes from the caller: the
// replayer stores what ReplayOptions::environment_json holds (it detects
// nothing itself, so that replayer/ never reaches into detect), and
// the `replay` verb fills it in by detecting the target.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/replayer/replay_fixture.h"

namespace fsr {
namespace {

using test::kAtCwd;
using test::ReplayDirs;
using test::run_cli;
using test::Synth;

class Environment : public ReplayDirs {
 protected:
  std::string small_trace() {
    Synth t;
    t.add(1, 1, SYS_newfstatat, 10, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/a");
    return write_trace(t, "/w/p", {ReplayDirs::entry("/w/p/a", PrestateKind::kFile, 10)});
  }
  static nlohmann::json environment_of(const std::string& result) {
    auto r = TraceReader::open(result);
    EXPECT_TRUE(r.is_ok()) << r.message();
    if (!r.is_ok()) return {};
    return nlohmann::json::parse(r.value()->header().environment_json, nullptr, false);
  }
};

TEST_F(Environment, LibraryStoresWhatTheCallerGives) {
  const std::string trace = small_trace();
  ReplayOptions o = options();
  o.environment_json = R"({"platform":"linux","mount":{"kind":"ext4"}})";
  auto r = run_replay(trace, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(environment_of(r->result_path), nlohmann::json::parse(o.environment_json));
}

TEST_F(Environment, LibraryWithoutOneSaysNotDetected) {
  const std::string trace = small_trace();
  auto r = run_replay(trace, options());
  ASSERT_TRUE(r.is_ok()) << r.message();
  const nlohmann::json env = environment_of(r->result_path);
  ASSERT_TRUE(env.is_object()) << env.dump();
  EXPECT_EQ(env.value("error", ""), "environment not detected");
}

TEST_F(Environment, ReplayVerbDetectsTheTarget) {
  const std::string trace = small_trace();
  const std::string out = base + "/verb.result";
  int st = 0;
  const std::string text =
      run_cli("replay " + trace + " --target " + target + " --scratch " + scratch + " --timing afap -o " + out, st);
  ASSERT_EQ(st, 0) << text;
  const nlohmann::json env = environment_of(out);
  ASSERT_TRUE(env.is_object()) << env.dump();
  EXPECT_FALSE(env.contains("error")) << env.dump();
  ASSERT_TRUE(env.contains("mount")) << env.dump();
  EXPECT_FALSE(env["mount"].value("fs_type", "").empty()) << env.dump();
  EXPECT_NE(env.value("path", "").find("target"), std::string::npos) << env.dump();
}

}  // namespace
}  // namespace fsr

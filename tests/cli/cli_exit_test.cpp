// SPDX-License-Identifier: Apache-2.0
// The fsreplay command's exit codes and messages across verbs, on small
// written files (no root): one meaning per exit code (4 for damaged input
// in every verb), the top-level help listing them all, an unknown verb, and
// a file of the wrong kind (a profile, a directory) named for what it is.
// Runs the real binary.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_run.h"
#include "tests/predict/predict_testdata.h"
#include "traces/profile.h"
#include "traces/trace_summary.h"

namespace fsr {
namespace {

using testdata::TempDir;

// Inputs: a trace, a profile, the trace cut before its footer (events
// readable, damaged), and cut inside its first chunk (no event readable).
class CliFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(testdata::small_build_trace().write(trace));
    ASSERT_TRUE(write_profile(profile, testdata::fixed_profile("base", 20'000)));
    const auto size = std::filesystem::file_size(trace);
    // Cut where a killed recorder leaves it: its events readable, no footer.
    std::filesystem::copy_file(trace, cut_footer);
    bool cut = false;
    for (auto len = size - 1; len > 0 && !cut; --len) {
      std::filesystem::resize_file(cut_footer, len);
      auto s = summarise(cut_footer);
      cut = s && !s->footer && !s->problems.complete();
    }
    auto s = summarise(cut_footer);
    ASSERT_TRUE(cut && s) << "no cut leaves a trace without its footer";
    ASSERT_GT(s->records, 0u);
    // The longest cut that leaves no event readable: inside the first chunk.
    std::filesystem::copy_file(trace, no_events);
    cut = false;
    for (auto len = size - 1; len > 0 && !cut; --len) {
      std::filesystem::resize_file(no_events, len);
      auto n = summarise(no_events);
      cut = n && n->records == 0 && !n->problems.complete();
    }
    ASSERT_TRUE(cut) << "no cut leaves a trace whose events are all unreadable";
    std::filesystem::create_directory(target);
  }

  TempDir d;
  const std::string trace = d.file("build.trace"), profile = d.file("base.profile");
  const std::string cut_footer = d.file("cut-footer.trace"), no_events = d.file("no-events.trace");
  const std::string target = d.file("target");
};

TEST(Cli, UnknownVerbIsNamedAndTheVerbsListed) {
  const CliRun r = fsreplay({"bogus"});
  EXPECT_EQ(r.code, 2) << show(r);
  EXPECT_NE(r.err.find("fsreplay: 'bogus' is not a verb; the verbs are record, inspect, dump, prepare, replay, "
                       "report, compare, detect, probe, predict, advise"),
            std::string::npos)
      << show(r);
  EXPECT_EQ(r.err.find("subcommand is required"), std::string::npos) << show(r);
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << show(r);
}

TEST(Cli, TopLevelHelpListsEveryExitCode) {
  const CliRun r = fsreplay({"--help"});
  EXPECT_EQ(r.code, 0) << show(r);
  for (const char* code : {"0 ok", "1 error", "2 usage", "3 record lost events", "4 damaged or truncated", "5 missing",
                           "6 replay diverged", "7 record: the workload exited non-zero", "128+N stopped by signal N"})
    EXPECT_NE(r.out.find(code), std::string::npos) << code << "\n" << r.out;
}

TEST_F(CliFiles, InspectShowsTheWorkloadsExitCode) {
  testdata::TraceFixture t = testdata::small_build_trace();
  t.footer.exit_status = 3 << 8;  // as waitpid gives `exit 3`
  ASSERT_TRUE(t.write(d.file("exit3.trace")));
  const CliRun r = fsreplay({"inspect", d.file("exit3.trace")});
  EXPECT_EQ(r.code, 0) << show(r);
  EXPECT_NE(r.out.find("exit status        exit 3\n"), std::string::npos) << show(r);
  const CliRun j = fsreplay({"inspect", "--json", d.file("exit3.trace")});
  EXPECT_NE(j.out.find("\"exit_code\": 3"), std::string::npos) << show(j);
}

TEST_F(CliFiles, ADirectoryGivenAsAFileIsCalledADirectory) {
  for (const char* verb : {"inspect", "dump"}) {
    const CliRun r = fsreplay({verb, d.path.string()});
    EXPECT_EQ(r.code, 1) << verb << ": " << show(r);
    EXPECT_NE(r.err.find(d.path.string() + ": is a directory, not an fsreplay file"), std::string::npos) << show(r);
  }
}

TEST_F(CliFiles, DumpOfAProfileSaysWhatItIsAndFails) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"dump", profile}, std::vector<std::string>{"dump", "--prestate", profile}}) {
    const CliRun r = fsreplay(args);
    EXPECT_EQ(r.code, 1) << show(r);
    EXPECT_TRUE(r.out.empty()) << show(r);
    EXPECT_NE(r.err.find(profile + ": is a profile, not a trace or a replay result"), std::string::npos) << show(r);
    EXPECT_NE(r.err.find("fsreplay inspect"), std::string::npos) << show(r);
  }
}

TEST_F(CliFiles, AProfileGivenForAResultIsCalledAProfile) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"report", profile}, std::vector<std::string>{"compare", profile, profile}}) {
    const CliRun r = fsreplay(args);
    EXPECT_EQ(r.code, 1) << show(r);
    EXPECT_NE(r.err.find(profile + ": is a profile, not a replay result"), std::string::npos) << show(r);
    EXPECT_EQ(r.err.find("is a trace"), std::string::npos) << show(r);
  }
}

TEST_F(CliFiles, AProfileGivenForATraceIsCalledAProfile) {
  for (const char* verb : {"replay", "prepare"}) {
    const CliRun r = fsreplay({verb, profile, "--target", target});
    EXPECT_EQ(r.code, 1) << verb << ": " << show(r);
    EXPECT_NE(r.err.find(profile + ": is a profile, not a trace"), std::string::npos) << verb << ": " << show(r);
    EXPECT_EQ(r.err.find("replay result"), std::string::npos) << verb << ": " << show(r);
  }
}

// A trace whose recorder was killed (no footer): each verb gives what it
// read and exits 4, and says so on stderr.
TEST_F(CliFiles, ADamagedTraceExits4InEveryVerbAfterItsOutput) {
  const CliRun i = fsreplay({"inspect", cut_footer});
  EXPECT_EQ(i.code, 4) << show(i);
  EXPECT_NE(i.out.find("events"), std::string::npos) << show(i);
  const CliRun du = fsreplay({"dump", cut_footer});
  EXPECT_EQ(du.code, 4) << show(du);
  EXPECT_FALSE(du.out.empty()) << show(du);
  const CliRun p = fsreplay({"predict", cut_footer, "-p", profile});
  EXPECT_EQ(p.code, 4) << show(p);
  EXPECT_NE(p.out.find("predicted (base)"), std::string::npos) << show(p);
  const std::string result = d.file("cut.result");
  const CliRun r = fsreplay(
      {"replay", cut_footer, "--target", target, "--timing", "afap", "--max-divergence", "100", "-o", result, "-q"});
  EXPECT_EQ(r.code, 4) << show(r);
  EXPECT_TRUE(std::filesystem::exists(result)) << "the result of what was readable is written first";
  EXPECT_NE(r.err.find("fsreplay replay: " + cut_footer + ": damaged ("), std::string::npos) << show(r);
  EXPECT_NE(r.err.find("replayed what was readable into " + result), std::string::npos) << show(r);
  const std::string target2 = d.file("target2");
  std::filesystem::create_directory(target2);
  const CliRun pr = fsreplay({"prepare", cut_footer, "--target", target2, "-q"});
  EXPECT_EQ(pr.code, 4) << show(pr);
  EXPECT_NE(pr.err.find("fsreplay prepare: " + cut_footer + ": damaged ("), std::string::npos) << show(pr);
  const std::string target3 = d.file("target3");
  std::filesystem::create_directory(target3);
  const CliRun c = fsreplay({"compare", cut_footer, "--target", target3, "--results-dir", d.file(""), "-q"});
  EXPECT_EQ(c.code, 4) << show(c);
  EXPECT_NE(c.err.find("fsreplay compare: " + cut_footer + ": damaged ("), std::string::npos) << show(c);
}

// Cut inside its first chunk: nothing readable. Every verb exits 4 (as
// inspect and dump always did), not 1.
TEST_F(CliFiles, ATraceWithNoReadableEventExits4InEveryVerb) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"inspect", no_events}, std::vector<std::string>{"dump", no_events},
        std::vector<std::string>{"predict", no_events, "-p", profile},
        std::vector<std::string>{"prepare", no_events, "--target", target},
        std::vector<std::string>{"replay", no_events, "--target", target, "--timing", "afap", "-o",
                                 d.file("none.result")}}) {
    const CliRun r = fsreplay(args);
    EXPECT_EQ(r.code, 4) << args[0] << ": " << show(r);
  }
}

}  // namespace
}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// Where a replay may write: open_roots refuses a target and scratch that
// overlap (the same directory, one inside the other, by any spelling of the
// path), a trace or result file inside either, and '/'; directories that only
// share a name prefix are separate.
#include "replayer/session/root_policy.h"

#include <sys/stat.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/replayer/replay_fixture.h"

namespace fsr {
namespace {

// ReplayDirs' base directory (removed after each test) holds t, t/sub, t2 and s.
class RootPolicy : public test::ReplayDirs {
 protected:
  void SetUp() override {
    ReplayDirs::SetUp();
    for (const char* d : {"/t", "/t/sub", "/t2", "/s"}) ASSERT_EQ(mkdir((base + d).c_str(), 0755), 0) << d;
    test::write_file(base + "/x.trace", "not read here");
  }
  // open_roots with this target and scratch, the trace beside them; its message, "" when it accepted.
  std::string refusal(const std::string& target, const std::string& scratch, const std::string& trace = "",
                      const std::string& output = "") {
    ReplayOptions o;
    o.target = target;
    o.scratch = scratch;
    o.output = output;
    Roots r;
    Status s = open_roots(trace.empty() ? base + "/x.trace" : trace, o, r);
    if (s) {
      EXPECT_GE(r.fd[0], 0);
      EXPECT_GE(r.fd[1], 0);
    }
    return s ? std::string() : s.message();
  }
};

TEST_F(RootPolicy, SeparateDirectoriesAreAccepted) { EXPECT_EQ(refusal(base + "/t", base + "/s"), ""); }

TEST_F(RootPolicy, SameDirectoryOverlapsByAnySpelling) {
  EXPECT_NE(refusal(base + "/t", base + "/t").find("overlap"), std::string::npos);
  EXPECT_NE(refusal(base + "/t/", base + "/t").find("overlap"), std::string::npos);
  EXPECT_NE(refusal(base + "/t", base + "//t/./sub/..").find("overlap"), std::string::npos);
}

TEST_F(RootPolicy, OneInsideTheOtherOverlaps) {
  EXPECT_NE(refusal(base + "/t", base + "/t/sub").find("overlap"), std::string::npos);
  EXPECT_NE(refusal(base + "/t/sub/", base + "/t/").find("overlap"), std::string::npos);
}

TEST_F(RootPolicy, ASharedNamePrefixIsNotInside) {
  EXPECT_EQ(refusal(base + "/t", base + "/t2"), "");
  EXPECT_EQ(refusal(base + "/t2", base + "/t"), "");
}

TEST_F(RootPolicy, TraceOrResultInsideTargetOrScratchIsRefused) {
  test::write_file(base + "/t/sub/in.trace", "x");
  test::write_file(base + "/t2/next.trace", "x");
  EXPECT_NE(refusal(base + "/t", base + "/s", base + "/t/sub/in.trace").find("lies inside"), std::string::npos);
  EXPECT_NE(refusal(base + "/s", base + "/t", base + "/t/sub/in.trace").find("lies inside"), std::string::npos);
  EXPECT_EQ(refusal(base + "/t", base + "/s", base + "/t2/next.trace"), "");
  EXPECT_NE(refusal(base + "/t", base + "/s", "", base + "/s/out.result").find("would lie inside"), std::string::npos);
  EXPECT_NE(refusal(base + "/t", base + "/s", "", base + "/t/out.result").find("would lie inside"), std::string::npos);
  EXPECT_EQ(refusal(base + "/t", base + "/s", "", base + "/t2/out.result"), "");
}

TEST_F(RootPolicy, RootDirectoryIsRefused) {
  EXPECT_NE(refusal("/", base + "/s").find("is '/'"), std::string::npos);
  EXPECT_NE(refusal(base + "/t", "/").find("is '/'"), std::string::npos);
}

// The system's own directories, as target and as scratch, with no override;
// /tmp and /var/tmp themselves are shared, a directory beneath them is fine.
TEST_F(RootPolicy, SystemDirectoriesAreRefusedAsTargetAndScratch) {
  for (const char* d : {"/etc", "/usr", "/usr/lib", "/bin", "/sbin", "/boot", "/var", "/var/lib", "/var/cache", "/proc",
                        "/sys", "/dev", "/dev/pts", "/run"}) {
    struct stat st;
    if (stat(d, &st) != 0) continue;  // (not on this machine)
    const std::string real = real_path(d);
    EXPECT_NE(refusal(d, base + "/s").find("target " + real + " is one of the system's own directories"),
              std::string::npos)
        << d << ": " << refusal(d, base + "/s");
    EXPECT_NE(refusal(base + "/t", d).find("scratch " + real + " is one of the system's own directories"),
              std::string::npos)
        << d;
  }
  struct stat st;
  for (const char* lib : {"/lib", "/lib64"}) {
    if (stat(lib, &st) != 0) continue;
    EXPECT_NE(refusal(lib, base + "/s").find("system's own"), std::string::npos) << lib;
  }
  EXPECT_NE(refusal("/tmp", base + "/s").find("target /tmp is shared by every program"), std::string::npos);
  EXPECT_NE(refusal(base + "/t", "/var/tmp").find("scratch /var/tmp is shared by every program"), std::string::npos);
  EXPECT_NE(refusal("/dev/shm", base + "/s").find("is shared by every program"), std::string::npos);
  char tpl[] = "/var/tmp/fsreplay-policy-XXXXXX";
  ASSERT_NE(mkdtemp(tpl), nullptr);
  EXPECT_EQ(refusal(tpl, base + "/s"), "") << "a directory beneath /var/tmp is fine";
  rmdir(tpl);
  EXPECT_EQ(refusal(base + "/t", base + "/s"), "") << "a directory beneath /tmp is fine";
}

}  // namespace
}  // namespace fsr

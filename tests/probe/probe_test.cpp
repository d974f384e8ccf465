// SPDX-License-Identifier: Apache-2.0
// probe: every case a trace distinguishes is measured through the replayer's
// executor, the private directory is removed whatever happens, and the stale
// cases give a lifetime. No root (cold cases from dropped caches:
// probe_root_test.cpp).
#include <gtest/gtest.h>

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "tests/probe/probe_fixture.h"
#include "probe/cpu_spinners.h"
#include "probe/probe_cases.h"
#include "probe/probe_profile.h"
#include "probe/prober.h"

namespace fsr {
namespace {

using test::quick;
using test::Tmp;

TEST(Probe, MeasuresEveryKindAndRemovesItsDirectory) {
  Tmp t;
  auto p = run_probe(quick(t.dir));
  ASSERT_TRUE(p) << p.message();
  EXPECT_TRUE(t.empty()) << "the probe left files in " << t.dir;
  std::set<ProbeKind> kinds;
  for (const ProfileCase& c : p->cases) {
    kinds.insert(c.kind);
    EXPECT_EQ(c.bins.size(), kProfileBins);
    EXPECT_GT(c.count, 0u);
  }
  for (int k = 0; k < kProbeKindCount; ++k)
    EXPECT_TRUE(kinds.count(static_cast<ProbeKind>(k))) << "no case for " << probe_kind_name(static_cast<ProbeKind>(k))
                                                        << "; notes: " << ::testing::PrintToString(p->notes);
  // Stat at every depth of the walk, reads and writes by size, readdir by what it returned.
  for (uint64_t d : {2, 3, 5, 7, 9}) EXPECT_NE(p->find(ProbeKind::kStat, Temp::kWarm, d), nullptr) << d;
  for (uint64_t s : {0, 128, 4096, 65536, 1 << 20}) EXPECT_NE(p->find(ProbeKind::kRead, Temp::kWarm, s), nullptr) << s;
  for (uint64_t s : {128, 4096, 65536, 1 << 20}) EXPECT_NE(p->find(ProbeKind::kWrite, Temp::kWarm, s), nullptr) << s;
  EXPECT_NE(p->find(ProbeKind::kReaddir, Temp::kWarm, 0), nullptr);  // the call that finds the end
  size_t readdir_sizes = 0;
  for (const ProfileCase& c : p->cases) readdir_sizes += c.kind == ProbeKind::kReaddir && c.temp == Temp::kWarm;
  EXPECT_GE(readdir_sizes, 4u);  // 0, 16, 128 and 1,024 entries, and the end
  for (uint64_t ms : kStaleDelaysMs) EXPECT_NE(p->find(ProbeKind::kStat, Temp::kStale, ms), nullptr) << ms;
  EXPECT_EQ(p->ref_depth, kProbeRefDepth);
  EXPECT_FALSE(p->environment_json.empty());
  EXPECT_GT(p->rounds, 0u);
  // The stat of a just-written file, after each idle gap.
  for (uint64_t us : {0, 250, 2000}) EXPECT_NE(p->find(ProbeKind::kStatWritten, Temp::kWarm, us), nullptr) << us;
  // Misses of fresh names are cold in every round, with or without root.
  EXPECT_NE(p->find(ProbeKind::kStatMissing, Temp::kCold, 3), nullptr);
}

// This process's threads and the nice value of each (field 19 of
// /proc/self/task/TID/stat).
std::vector<int> thread_nices() {
  std::vector<int> out;
  DIR* d = opendir("/proc/self/task");
  if (!d) return out;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream f(std::string("/proc/self/task/") + e->d_name + "/stat");
    std::string s((std::istreambuf_iterator<char>(f)), {});
    std::istringstream rest(s.substr(s.rfind(')') + 2));  // after "pid (comm) "
    std::string field;
    for (int i = 3; i <= 19 && rest >> field; ++i) {}
    out.push_back(std::stoi(field));
  }
  closedir(d);
  return out;
}

// pthread_join returns once the kernel cleared the thread's tid, which is
// before the exiting task leaves /proc/self/task: wait up to a second for it.
size_t threads_after_join(size_t expected) {
  size_t n = thread_nices().size();
  for (int i = 0; i < 1000 && n != expected; ++i) {
    usleep(1000);
    n = thread_nices().size();
  }
  return n;
}

uint32_t other_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  return static_cast<uint32_t>(CPU_COUNT(&set) - 1);
}

TEST(CpuSpinners, OneNice19SpinnerPerOtherCpuUntilDestroyed) {
  const size_t before = thread_nices().size();
  {
    CpuSpinners sp;
    EXPECT_EQ(sp.count(), other_cpus());
    EXPECT_EQ(sp.niced(), sp.count()) << "lowering a thread's own priority needs no privilege";
    const std::vector<int> nice = thread_nices();
    EXPECT_EQ(nice.size(), before + sp.count());
    EXPECT_EQ(static_cast<uint32_t>(std::count(nice.begin(), nice.end(), 19)), sp.count());
  }
  EXPECT_EQ(threads_after_join(before), before) << "the spinners are joined when the object goes";
}

TEST(Probe, BusyCpusSaysHowManyAndStopsTheSpinners) {
  Tmp t;
  const size_t before = thread_nices().size();
  ProbeOptions o = quick(t.dir);
  o.busy_cpus = true;
  auto p = run_probe(o);
  ASSERT_TRUE(p) << p.message();
  EXPECT_EQ(p->busy_cpus, other_cpus());
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(threads_after_join(before), before);
  if (other_cpus() > 0) {
    EXPECT_NE(profile_to_text(*p).find("kept busy by spinners at nice 19"), std::string::npos) << profile_to_text(*p);
  }
  auto plain = run_probe(quick(t.dir));
  ASSERT_TRUE(plain) << plain.message();
  EXPECT_EQ(plain->busy_cpus, 0u);
  EXPECT_EQ(profile_to_text(*plain).find("kept busy"), std::string::npos);
}

TEST(Probe, StopRemovesItsDirectoryAndWritesNothing) {
  Tmp t;
  std::atomic<bool> stop{false};
  ProbeOptions o = quick(t.dir);
  o.max_rounds = 50;
  o.duration_s = 30;
  o.stop = &stop;
  o.progress = [&](double, double, uint32_t) { stop.store(true); };
  auto p = run_probe(o);
  ASSERT_FALSE(p);
  EXPECT_NE(p.message().find("interrupted"), std::string::npos) << p.message();
  EXPECT_TRUE(t.empty());
}

// A pid that no longer runs: a child, exited and reaped.
pid_t dead_pid() {
  const pid_t p = fork();
  if (p == 0) _exit(0);
  int st = 0;
  waitpid(p, &st, 0);
  return p;
}

// What a probe killed with SIGKILL leaves: its private directory, with files.
std::string plant_probe_dir(const std::string& dir, pid_t pid) {
  const std::string name = ".fsreplay-probe-" + std::to_string(pid) + "-abc123";
  std::filesystem::create_directories(dir + "/" + name + "/r0/d1");
  std::ofstream(dir + "/" + name + "/r0/d1/data") << "left by a killed probe";
  return name;
}

TEST(Probe, RemovesThePrivateDirectoryOfAKilledProbeAndSaysSo) {
  Tmp t;
  const std::string stale = plant_probe_dir(t.dir, dead_pid());
  std::ofstream(t.dir + "/user-file") << "not the probe's";
  std::vector<std::string> notices;
  ProbeOptions o = quick(t.dir);
  o.on_notice = [&](const std::string& line) { notices.push_back(line); };
  auto p = run_probe(o);
  ASSERT_TRUE(p) << p.message();
  EXPECT_FALSE(std::filesystem::exists(t.dir + "/" + stale));
  EXPECT_TRUE(std::filesystem::exists(t.dir + "/user-file")) << "only a probe's directory is removed";
  ASSERT_EQ(notices.size(), 1u) << ::testing::PrintToString(notices);
  EXPECT_NE(notices[0].find("removed 1 private directory of probes killed earlier"), std::string::npos) << notices[0];
  EXPECT_NE(notices[0].find(stale), std::string::npos) << notices[0];
  EXPECT_EQ(notices[0].find('\n'), std::string::npos);
}

TEST(Probe, LeavesTheDirectoryOfAProbeStillRunningAndNamesIt) {
  Tmp t;
  const pid_t alive = fork();
  if (alive == 0) {
    pause();
    _exit(0);
  }
  ASSERT_GT(alive, 0);
  const std::string other = plant_probe_dir(t.dir, alive);
  std::vector<std::string> notices;
  ProbeOptions o = quick(t.dir);
  o.on_notice = [&](const std::string& line) { notices.push_back(line); };
  auto p = run_probe(o);
  kill(alive, SIGKILL);
  waitpid(alive, nullptr, 0);
  ASSERT_TRUE(p) << p.message();
  EXPECT_TRUE(std::filesystem::exists(t.dir + "/" + other + "/r0/d1/data"));
  ASSERT_EQ(notices.size(), 1u) << ::testing::PrintToString(notices);
  EXPECT_NE(notices[0].find(other + " (pid " + std::to_string(alive) + ")"), std::string::npos) << notices[0];
  EXPECT_NE(notices[0].find("still running"), std::string::npos) << notices[0];
}

// As root too: the note names the flag, not a missing privilege.
TEST(Probe, NoDropCachesIsSaidAsSuchNotAsNotRoot) {
  Tmp t;
  ProbeOptions o = quick(t.dir);
  o.drop_caches = false;
  auto p = run_probe(o);
  ASSERT_TRUE(p) << p.message();
  EXPECT_FALSE(p->cold_measured);
  const std::string notes = ::testing::PrintToString(p->notes);
  EXPECT_NE(notes.find("caches not dropped (--no-drop-caches)"), std::string::npos) << notes;
  EXPECT_EQ(notes.find("not root"), std::string::npos) << notes;
}

TEST(Probe, MissingDirectoryIsOneClearLine) {
  auto p = run_probe(quick("/nonexistent/fsr-probe"));
  ASSERT_FALSE(p);
  EXPECT_NE(p.message().find("/nonexistent/fsr-probe"), std::string::npos);
  EXPECT_EQ(p.message().find('\n'), std::string::npos);
}

ProfileCase fixed(ProbeKind k, Temp t, uint64_t param, uint64_t ns) {
  std::vector<uint64_t> s(50, ns);
  return make_case(k, t, param, s);
}

TEST(ProbeProfile, LifetimeLiesBetweenTheLastWarmAndTheFirstExpiredDelay) {
  Profile p;
  p.cases = {fixed(ProbeKind::kStat, Temp::kWarm, 3, 10'000),     fixed(ProbeKind::kStat, Temp::kCold, 3, 100'000),
             fixed(ProbeKind::kStat, Temp::kStale, 250, 11'000),  fixed(ProbeKind::kStat, Temp::kStale, 500, 12'000),
             fixed(ProbeKind::kStat, Temp::kStale, 1000, 90'000), fixed(ProbeKind::kStat, Temp::kStale, 2000, 95'000)};
  EXPECT_EQ(estimate_cache_lifetime(p, 3), 750'000'000u);
  p.cases[4] = fixed(ProbeKind::kStat, Temp::kStale, 1000, 12'000);
  p.cases[5] = fixed(ProbeKind::kStat, Temp::kStale, 2000, 12'000);
  EXPECT_EQ(estimate_cache_lifetime(p, 3), kNoExpiry);  // never expired
  p.cases[1] = fixed(ProbeKind::kStat, Temp::kCold, 3, 11'000);
  p.cases[4] = fixed(ProbeKind::kStat, Temp::kStale, 1000, 90'000);
  EXPECT_EQ(estimate_cache_lifetime(p, 3), kNoExpiry);  // cold as fast as warm: nothing cached
}

TEST(ProbeProfile, WithoutColdCasesAnExpiredStaleStatStandsInForCold) {
  ProbeSamples s;
  for (int i = 0; i < 20; ++i) {
    s.add(ProbeKind::kStat, Temp::kWarm, 3, 10'000);
    s.add(ProbeKind::kStat, Temp::kStale, 500, 10'500);
    s.add(ProbeKind::kStat, Temp::kStale, 2000, 60'000);
  }
  s.fail(ProbeKind::kLink, -1);
  Profile p;
  finish_profile(s, 3, p);
  EXPECT_EQ(p.cache_lifetime_ns, 1'250'000'000u);
  const ProfileCase* cold = p.find(ProbeKind::kStat, Temp::kCold, 3);
  ASSERT_NE(cold, nullptr);
  EXPECT_EQ(cold->median(), 60'000u);
  bool noted = false;
  for (const std::string& n : p.notes) noted = noted || n.find("link: 1 timed calls returned -1") != std::string::npos;
  EXPECT_TRUE(noted) << ::testing::PrintToString(p.notes);
}

}  // namespace
}  // namespace fsr

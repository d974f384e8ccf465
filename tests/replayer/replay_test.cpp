// SPDX-License-Identifier: Apache-2.0
// End-to-end replays of synthetic traces written as real trace files.
#include "replayer/session/replay.h"
#include "replayer/engine/engine.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/replayer/replay_fixture.h"

namespace fsr {
namespace {

using test::kAtCwd;
using test::ReplayDirs;
using test::Synth;

class Replay : public ReplayDirs {};

// A small compile-like workload under /w/p.
Synth workload() {
  Synth t;
  t.add(1, 1, SYS_openat, 1000, 10, 3, {kAtCwd, 0, O_RDONLY}, "/w/p/src/a.c");
  t.add(1, 1, SYS_read, 1100, 10, 1000, {3, 0, 65536});
  t.add(1, 1, SYS_read, 1200, 10, 0, {3, 0, 65536});
  t.add(1, 1, SYS_close, 1300, 10, 0, {3});
  t.add(1, 1, SYS_mkdir, 1400, 10, 0, {0, 0755}, "/w/p/out");
  t.add(1, 1, SYS_openat, 1500, 10, 3, {kAtCwd, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, "/w/p/out/a.o");
  t.add(1, 1, SYS_write, 1600, 10, 500, {3, 0, 500});
  t.add(1, 1, SYS_close, 1700, 10, 0, {3});
  t.add(1, 1, SYS_newfstatat, 1800, 10, -ENOENT, {kAtCwd, 0, 0, 0}, "/w/p/missing.h");
  t.add(1, 1, SYS_rename, 1900, 10, 0, {}, "/w/p/out/a.o", "/w/p/out/b.o");
  t.add(1, 1, SYS_newfstatat, 2000, 10, 0, {kAtCwd, 0, 0, 0}, "/usr/include/stdio.h");
  return t;
}

std::vector<PrestateEntry> workload_prestate() {
  return {ReplayDirs::entry("/w/p", PrestateKind::kDir), ReplayDirs::entry("/w/p/src", PrestateKind::kDir),
          ReplayDirs::entry("/w/p/src/a.c", PrestateKind::kFile, 1000),
          ReplayDirs::entry("/usr/include/stdio.h", PrestateKind::kFile, 300)};
}

TEST_F(Replay, ReplaysAWorkloadWithoutDivergenceAndWritesAResult) {
  std::string trace = write_trace(workload(), "/w/p", workload_prestate());
  ReplayOptions o = options();
  o.reset_after = false;
  auto r = run_replay(trace, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->divergences, 0u);
  EXPECT_EQ(r->ops, 11u);
  EXPECT_EQ(r->count[static_cast<int>(SyscallClass::kRead)], 2u);
  struct stat st;
  ASSERT_EQ(stat((target + "/out/b.o").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 500);
  ASSERT_EQ(stat((target + "/src/a.c").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 1000);
  EXPECT_EQ(stat((scratch + "/usr/include/stdio.h").c_str(), &st), 0);
  auto ops = read_result(r->result_path);
  ASSERT_EQ(ops.size(), 11u);
  EXPECT_EQ(ops[1].ret, 1000);
  EXPECT_EQ(ops[8].ret, -ENOENT);
  auto rd = TraceReader::open(r->result_path);
  ASSERT_TRUE(rd.is_ok());
  EXPECT_EQ(rd.value()->kind(), PayloadKind::kResult);
  EXPECT_EQ(rd.value()->header().target, target);
  std::vector<OpRecord> chunk;
  ASSERT_TRUE(rd.value()->next(chunk).is_ok());
  EXPECT_EQ(rd.value()->str(chunk[0].path), "/w/p/src/a.c");
}

TEST_F(Replay, DivergencesAreDetectedByResultClass) {
  Synth t;
  // Recorded ENOENT, but the file is in the prestate: replay succeeds.
  uint32_t a = t.add(1, 1, SYS_newfstatat, 10, 5, -ENOENT, {kAtCwd, 0, 0, 0}, "/w/p/here");
  // Recorded success, but the prestate says it is a file: replay fails (ENOTDIR).
  uint32_t b = t.add(1, 1, SYS_rmdir, 20, 5, 0, {}, "/w/p/here");
  uint32_t c = t.add(1, 1, SYS_newfstatat, 30, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/here");
  t.add(1, 1, SYS_access, 40, 5, 0, {0, 0}, "/w/p/elsewhere/x");  // shown to exist: made
  std::string trace = write_trace(t, "/w/p", {entry("/w/p/here", PrestateKind::kFile, 5)});
  auto r = run_replay(trace, options());
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->divergences, 2u);
  auto ops = read_result(r->result_path);
  EXPECT_TRUE(ops[a].flags & kOfDivergent);
  EXPECT_TRUE(ops[b].flags & kOfDivergent);
  EXPECT_FALSE(ops[c].flags & kOfDivergent);
  EXPECT_FALSE(ops[3].flags & kOfDivergent);
}

// A read that returns fewer bytes than recorded is no divergence (both
// succeeded) but the replay read less than the workload did: counted, with
// the bytes missing, so a tree prepared too small does not pass unseen.
TEST_F(Replay, ReadsShorterThanRecordedAreCounted) {
  Synth t;
  t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDONLY}, "/w/p/f");
  t.add(1, 1, SYS_read, 20, 5, 100, {3, 0, 4096});  // the original's file had 100 bytes
  t.add(1, 1, SYS_read, 30, 5, 0, {3, 0, 4096});
  t.add(1, 1, SYS_close, 40, 5, 0, {3});
  std::string trace = write_trace(t, "/w/p", {entry("/w/p/f", PrestateKind::kFile, 10)});
  auto r = run_replay(trace, options());
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->divergences, 0u);
  EXPECT_EQ(r->short_reads, 1u);
  EXPECT_EQ(r->short_read_bytes, 90u);
  EXPECT_EQ(nlohmann::json::parse(summary_to_json(*r)).value("short_reads", 0), 1);
}

// /dev/null is not on the mount under test: opening it O_CREAT|O_TRUNC and
// writing to it must neither make a regular file in scratch (whose growth and
// truncation would be timed instead) nor diverge.
TEST_F(Replay, CharacterDevicesUseAStandInAndAreNeverMade) {
  Synth t;
  uint32_t st = t.add(1, 1, SYS_newfstatat, 5, 5, 0, {kAtCwd, 0, 0, 0}, "/dev/null");
  t.ev[st].mode = S_IFCHR | 0666;
  uint32_t op = t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_WRONLY | O_CREAT | O_TRUNC, 0644}, "/dev/null");
  t.ev[op].mode = S_IFCHR | 0666;
  uint32_t wr = t.add(1, 1, SYS_write, 20, 5, 4096, {3, 0, 4096});
  t.add(1, 1, SYS_close, 30, 5, 0, {3});
  t.add(1, 1, SYS_access, 40, 5, 0, {0, W_OK}, "/dev/null");
  std::string trace = write_trace(t, "/w/p");
  ReplayOptions o = options();
  o.reset_after = false;
  auto r = run_replay(trace, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->divergences, 0u);
  auto ops = read_result(r->result_path);
  EXPECT_EQ(ops[wr].ret, 4096);
  EXPECT_EQ(ops[st].ret, 0);
  struct stat sb;
  EXPECT_NE(lstat((scratch + "/dev/null").c_str(), &sb), 0) << "a stand-in file was made in scratch";
  ASSERT_EQ(stat("/dev/null", &sb), 0);
  EXPECT_TRUE(S_ISCHR(sb.st_mode)) << "/dev/null itself must stay a device";
}

// A shell's open of /dev/tty failed with ENXIO where it had no controlling
// terminal (no inode facts): it replays on /dev/tty itself, not as a missing
// file in scratch (ENOENT, a divergence on every shell the lab's guest ran).
TEST_F(Replay, DevTtyReplaysOnTheTerminalWhateverItsRecordedResult) {
  int fd = open("/dev/tty", O_RDONLY | O_NOCTTY);
  const int64_t here = fd < 0 ? -errno : 3;
  if (fd >= 0) close(fd);
  Synth t;
  uint32_t op = t.add(1, 1, SYS_openat, 10, 5, here, {kAtCwd, 0, O_RDWR | O_NONBLOCK, 0}, "/dev/tty");
  if (here >= 0) t.ev[op].mode = S_IFCHR | 0666;
  if (here >= 0) t.add(1, 1, SYS_close, 20, 5, 0, {3});
  std::string trace = write_trace(t, "/w/p");
  auto r = run_replay(trace, options());
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(read_result(r->result_path)[op].ret < 0 ? read_result(r->result_path)[op].ret : 3, here);
  EXPECT_EQ(r->divergences, 0u);
  struct stat sb;
  EXPECT_NE(lstat((scratch + "/dev/tty").c_str(), &sb), 0) << "/dev/tty must not be made in scratch";
}

// A mapping longer than its file: a touch past the end raises SIGBUS in the
// replayer, which must skip that op (twice, from two threads), not die.
TEST_F(Replay, TouchPastTheEndOfAMappedFileIsSkippedNotFatal) {
  Synth t;
  const uint64_t addr = 0x7f0000000000ull;
  t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDONLY}, "/w/p/f");
  t.add(1, 1, SYS_mmap, 20, 5, static_cast<int64_t>(addr), {0, 3 * 4096, PROT_READ, MAP_PRIVATE, 3, 0});
  uint32_t in = t.add(1, 1, kEvPageFault, 30, 0, 0, {0, addr + 10, 0}, "/w/p/f");
  uint32_t past1 = t.add(1, 1, kEvPageFault, 40, 0, 0, {8192, addr + 8192, 0}, "/w/p/f");
  uint32_t past2 = t.add(1, 1, kEvPageFault, 50, 0, 0, {4096, addr + 4096, 0}, "/w/p/f");
  uint32_t after = t.add(1, 1, SYS_newfstatat, 60, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/f");
  std::string trace = write_trace(t, "/w/p", {entry("/w/p/f", PrestateKind::kFile, 100)});
  auto r = run_replay(trace, options());
  ASSERT_TRUE(r.is_ok()) << r.message();
  auto ops = read_result(r->result_path);
  EXPECT_FALSE(ops[in].flags & kOfSkipped) << "the file's one page was touched";
  EXPECT_TRUE(ops[past1].flags & kOfSkipped);
  EXPECT_TRUE(ops[past2].flags & kOfSkipped);
  EXPECT_EQ(ops[after].ret, 0) << "the replay went on after the caught SIGBUS";
}

// A segment mapped MAP_FIXED inside a recorded base lands at the same offset
// in the replay's copy of the base, and its pages are touched there. After a
// munmap of the base, a touch of the segment is skipped, not a crash.
TEST_F(Replay, FixedSegmentLandsInsideItsBase) {
  Synth t;
  const uint64_t addr = 0x7f0000000000ull;
  t.add(1, 1, SYS_openat, 10, 5, 3, {kAtCwd, 0, O_RDONLY}, "/w/p/f");
  uint32_t base = t.add(1, 1, SYS_mmap, 20, 5, static_cast<int64_t>(addr), {0, 4 * 4096, PROT_READ, MAP_PRIVATE, 3, 0});
  uint32_t seg = t.add(1, 1, SYS_mmap, 30, 5, static_cast<int64_t>(addr + 8192),
                       {addr + 8192, 4096, PROT_READ, MAP_PRIVATE | MAP_FIXED, 3, 4096});
  uint32_t in = t.add(1, 1, kEvPageFault, 40, 0, 0, {4096, addr + 8192 + 10, 0}, "/w/p/f");
  t.add(1, 1, SYS_munmap, 50, 5, 0, {addr, 4 * 4096});
  uint32_t gone = t.add(1, 1, kEvPageFault, 60, 0, 0, {4096, addr + 8192 + 10, 0}, "/w/p/f");
  uint32_t after = t.add(1, 1, SYS_newfstatat, 70, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/f");
  std::string trace = write_trace(t, "/w/p", {entry("/w/p/f", PrestateKind::kFile, 4 * 4096)});
  auto r = run_replay(trace, options());
  ASSERT_TRUE(r.is_ok()) << r.message();
  auto ops = read_result(r->result_path);
  ASSERT_GT(ops[base].ret, 0);
  EXPECT_EQ(ops[seg].ret - ops[base].ret, 8192) << "the segment was mapped somewhere else";
  EXPECT_FALSE(ops[in].flags & kOfSkipped);
  EXPECT_TRUE(ops[gone].flags & kOfSkipped);
  EXPECT_EQ(ops[after].ret, 0);
  EXPECT_EQ(r->divergences, 0u);
}

TEST_F(Replay, PipeReadWaitsForTheReplayedWrite) {
  Synth t;
  t.add(1, 1, SYS_pipe2, 0, 10, 0, {3 | (4ull << 32), O_CLOEXEC});
  t.add(1, 1, SYS_clone, 100, 10, 2, {SIGCHLD});
  uint32_t rd = t.add(1, 1, SYS_read, 200, 30'000'000, 8, {3, 0, 8});
  t.add(2, 2, SYS_newfstatat, 300, 10, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  uint32_t wr = t.add(2, 2, SYS_write, 20'000'000, 10, 8, {4, 0, 8});
  std::string trace = write_trace(t, "/w/p");
  auto r = run_replay(trace, options(TimingMode::kThink));
  ASSERT_TRUE(r.is_ok()) << r.message();
  auto ops = read_result(r->result_path);
  EXPECT_EQ(ops[rd].waited_on, wr + 1ull);
  EXPECT_GE(ops[rd].start, ops[wr].start);
  EXPECT_GT(ops[rd].dep_wait, 0u);
}

// `mkfifo f; cat f & echo x > f`: each open of a FIFO waits in the kernel for
// the other end, and the replay, which orders the writer's O_CREAT open after
// the reader's, blocked in the reader's for good. A FIFO's opens are lookups
// now (O_PATH), what goes through it a pipe's.
TEST_F(Replay, ANamedFifoIsOpenedWithoutWaitingForItsOtherEnd) {
  // With the opens' inode facts (a FIFO's mode), and without them (the
  // recorder could not read them): then the mknod says what the path is.
  for (bool facts : {true, false}) {
    SCOPED_TRACE(facts ? "inode facts" : "no inode facts");
    alarm(120);  // blocked in open(2), the replay would never end: fail instead of hanging
    Synth t;
    t.add(1, 1, SYS_mknodat, 0, 10, 0, {kAtCwd, 0, S_IFIFO | 0644, 0}, "/w/p/ff");
    t.add(1, 1, SYS_clone, 100, 10, 2, {SIGCHLD});
    // The reader's open (pid 2) began first and returned once the writer's had.
    uint32_t wo = t.add(1, 1, SYS_openat, 1'000'000, 10, 3, {kAtCwd, 0, O_WRONLY | O_CREAT | O_TRUNC, 0644}, "/w/p/ff");
    uint32_t ro = t.add(2, 2, SYS_openat, 200, 1'000'000, 3, {kAtCwd, 0, O_RDONLY}, "/w/p/ff");
    for (uint32_t o : {wo, ro}) {
      if (facts)
        t.ev[o].mode = S_IFIFO | 0644;
      else
        t.ev[o].flags |= kEfNoInode;
    }
    uint32_t wr = t.add(1, 1, SYS_write, 1'000'300, 10, 8, {3, 0, 8});
    uint32_t rd = t.add(2, 2, SYS_read, 1'000'400, 10, 8, {3, 0, 4096});
    t.add(1, 1, SYS_close, 1'000'500, 10, 0, {3});
    uint32_t eof = t.add(2, 2, SYS_read, 1'000'600, 10, 0, {3, 0, 4096});
    t.add(2, 2, SYS_close, 1'000'700, 10, 0, {3});
    std::string trace = write_trace(t, "/w/p");
    ReplayOptions o = options();
    o.reset_after = false;
    auto r = run_replay(trace, o);
    alarm(0);
    ASSERT_TRUE(r.is_ok()) << r.message();
    EXPECT_EQ(r->divergences, 0u);
    auto ops = read_result(r->result_path);
    EXPECT_GE(ops[wo].ret, 0);
    EXPECT_GE(ops[ro].ret, 0);
    for (uint32_t i : {wr, rd, eof}) EXPECT_FALSE(ops[i].flags & kOfDivergent) << i;
    EXPECT_EQ(ops[rd].ret, 8);
    struct stat st;
    ASSERT_EQ(lstat((target + "/ff").c_str(), &st), 0) << "the FIFO itself is made, as the original made it";
    EXPECT_TRUE(S_ISFIFO(st.st_mode));
    ASSERT_EQ(unlink((target + "/ff").c_str()), 0);
  }
}

// A call that does not return (a mount that stopped answering, a call that
// blocks where the original's did not, as the FIFO's open above did) is
// said, naming it, instead of a replay waiting mute; once per stall.
TEST_F(Replay, AStalledReplaySaysWhichOpItWaitsOn) {
  Synth t;
  t.add(1, 1, SYS_newfstatat, 10, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/stuck");
  t.add(1, 1, SYS_newfstatat, 20, 5, 0, {kAtCwd, 0, 0, 0}, "/w/p/stuck");
  std::string trace = write_trace(t, "/w/p", {entry("/w/p/stuck", PrestateKind::kFile, 1)});
  ReplayOptions o = options();
  o.inject_ns[static_cast<size_t>(SyscallClass::kStat)] = 1'200'000'000;  // each stat "hangs" 1.2 s
  o.stall_warn_s = 0.4;
  std::vector<std::string> said;
  o.on_warning = [&](const std::string& w) { said.push_back(w); };
  auto r = run_replay(trace, o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  std::vector<std::string> stalls;
  for (const auto& w : said)
    if (w.find("no op has finished") != std::string::npos) stalls.push_back(w);
  ASSERT_EQ(stalls.size(), 2u) << "one report per stall (each stat is one)";
  EXPECT_NE(stalls[0].find("op 1 of 2, newfstatat \"/w/p/stuck\""), std::string::npos) << stalls[0];
  EXPECT_NE(stalls[1].find("op 2 of 2"), std::string::npos) << stalls[1];
  o.stall_warn_s = 0;  // off
  said.clear();
  ASSERT_TRUE(run_replay(trace, o).is_ok());
  for (const auto& w : said) EXPECT_EQ(w.find("no op has finished"), std::string::npos) << w;
}

// Think mode: the parent's wait ends no sooner than the child's exit plus the
// teardown the original's parent waited for; the child's worker does not
// wait for it.
TEST_F(Replay, AWaitEndsAfterTheHeldExitOfItsChild) {
  Synth t;
  t.add(1, 1, SYS_clone, 100, 10, 2, {SIGCHLD});
  t.add(1, 1, SYS_clone, 200, 10, 3, {SIGCHLD});
  t.add(2, 2, SYS_newfstatat, 300, 10, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  uint32_t x2 = t.add(2, 2, kEvProcExit, 1'000'000, 0, 0);
  uint32_t w2 = t.add(1, 1, SYS_wait4, 400, 31'000'000 - 400, 2, {static_cast<uint64_t>(-1), 0, 0, 0});
  uint32_t after = t.add(1, 1, SYS_newfstatat, 31'000'010, 10, 0, {kAtCwd, 0, 0, 0}, "/w/p");
  uint32_t x3 = t.add(3, 3, kEvProcExit, 31'100'000, 0, 0);
  t.add(1, 1, SYS_wait4, 31'000'100, 130'000, 3, {static_cast<uint64_t>(-1), 0, 0, 0});
  std::string trace = write_trace(t, "/w/p");
  auto r = run_replay(trace, options(TimingMode::kThink));
  ASSERT_TRUE(r.is_ok()) << r.message();
  auto ops = read_result(r->result_path);
  EXPECT_GE(ops[after].start, ops[x2].start + 29'000'000) << "the 30 ms teardown was not waited for";
  EXPECT_GT(ops[w2].dep_wait, 0u);
  (void)x3;
}

TEST_F(Replay, ExecEventsNameProcessesInTheResult) {
  Synth t;
  uint32_t x = t.add(1, 1, kEvProcExec, 10, 0, 0, {}, "/usr/bin/cc");
  std::string trace = write_trace(t, "/w/p");
  auto r = run_replay(trace, options());
  ASSERT_TRUE(r.is_ok()) << r.message();
  auto ops = read_result(r->result_path);
  EXPECT_EQ(ops[x].nr, kEvProcExec);
  EXPECT_FALSE(ops[x].flags & kOfSkipped);
}

TEST_F(Replay, PrepareIsIdempotentAndNoPrepareVerifiesAndResets) {
  std::string trace = write_trace(workload(), "/w/p", workload_prestate());
  ReplayOptions o = options();
  auto p1 = run_prepare(trace, o);
  ASSERT_TRUE(p1.is_ok()) << p1.message();
  EXPECT_EQ(p1->files, 2u);
  auto p2 = run_prepare(trace, o);
  ASSERT_TRUE(p2.is_ok());
  EXPECT_EQ(p2->files, 0u);
  EXPECT_GE(p2->kept, 4u);
  o.prepare = false;
  for (int i = 0; i < 2; ++i) {  // the tree is reset after each replay
    auto r = run_replay(trace, o);
    ASSERT_TRUE(r.is_ok()) << r.message();
    EXPECT_EQ(r->divergences, 0u);
  }
  test::write_file(target + "/src/a.c", "changed");
  auto bad = run_replay(trace, o);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.message().find("src/a.c"), std::string::npos) << bad.message();
}

TEST_F(Replay, FilesAreFilledNotSparse) {
  std::string trace = write_trace(Synth{}, "/w/p", {entry("/w/p/big", PrestateKind::kFile, 3 << 20)});
  ASSERT_TRUE(run_prepare(trace, options()).is_ok());
  struct stat st;
  ASSERT_EQ(stat((target + "/big").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 3 << 20);
  EXPECT_GE(st.st_blocks * 512, st.st_size);
}

TEST_F(Replay, AnUnreadableTraceIsAnErrorNotAnEmptyReplay) {
  std::string trace = write_trace(workload(), "/w/p", workload_prestate());
  ASSERT_EQ(truncate(trace.c_str(), 200), 0);
  auto r = run_replay(trace, options());
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.message().find("inspect"), std::string::npos) << r.message();
}

TEST_F(Replay, RefusesDangerousRoots) {
  std::string trace = write_trace(workload(), "/w/p");
  ReplayOptions o = options();
  o.target = "/";
  EXPECT_FALSE(run_replay(trace, o).is_ok());
  o = options();
  o.scratch = target + "/inner";
  ASSERT_EQ(mkdir(o.scratch.c_str(), 0755), 0);
  EXPECT_FALSE(run_replay(trace, o).is_ok());
  o = options();
  o.target = base;  // contains the trace
  o.scratch = "";
  auto count_scratch = [] {
    int n = 0;
    if (DIR* d = opendir(getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp")) {
      while (dirent* de = readdir(d)) n += std::string(de->d_name).rfind("fsreplay-scratch-", 0) == 0;
      closedir(d);
    }
    return n;
  };
  int before = count_scratch();
  auto r = run_replay(trace, o);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.message().find("trace"), std::string::npos);
  EXPECT_EQ(count_scratch(), before) << "a refused replay left its scratch directory behind";
  if (const char* home = getenv("HOME")) {
    o = options();
    o.target = home;
    EXPECT_FALSE(run_replay(trace, o).is_ok());
  }
}

}  // namespace
}  // namespace fsr

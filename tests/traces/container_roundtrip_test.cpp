// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "tests/traces/test_util.h"
#include "traces/syscalls.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace fsr {
namespace {

using test::expect_same;
using test::TempFile;

Event full_event(uint64_t ts, uint32_t path0, uint32_t path1) {
  Event e;
  e.ts = ts;
  e.dur = 12345;
  e.ret = -2;
  for (int a = 0; a < 6; ++a) e.args[a] = 0x1000u * (a + 1);
  e.args[0] = kAtFdcwdArg;  // AT_FDCWD
  e.args[5] = std::numeric_limits<uint64_t>::max();
  e.dev = 0x803;
  e.ino = 987654321987ull;
  e.size = 1ull << 40;
  e.mode = 0100755;
  e.pid = 4242;
  e.tid = 4243;
  e.path[0] = path0;
  e.path[1] = path1;
  e.nr = 316;
  e.flags = kEfThreadClone | kEfFdIsPipe;
  return e;
}

// Timings are quantised (timing_quant.h): equal within `timing_tol` ns.

TEST(ContainerRoundTrip, HeaderEveryField) {
  TempFile f;
  TraceHeader h = test::sample_header();
  h.record_cost.present = true;
  h.record_cost.gap_ns[1] = 44;
  h.record_cost.unrecorded_ns = 12;
  h.record_cost.fault_ns = {61, 480, 250};
  {
    auto w = TraceWriter::create(f.path(), h);
    ASSERT_TRUE(w) << w.message();
    ASSERT_TRUE((*w)->finish({}).is_ok());
  }
  auto r = TraceReader::open(f.path());
  ASSERT_TRUE(r) << r.message();
  const TraceHeader& g = (*r)->header();
  EXPECT_EQ(g.format_version, kFormatVersion);
  EXPECT_EQ(g.kind, PayloadKind::kTrace);
  EXPECT_EQ(g.recorder_version, h.recorder_version);
  EXPECT_EQ(g.kernel_release, h.kernel_release);
  EXPECT_EQ(g.hostname, h.hostname);
  EXPECT_EQ(g.cpu_count, h.cpu_count);
  EXPECT_EQ(g.clock_source, h.clock_source);
  EXPECT_EQ(g.wall_start_ns, h.wall_start_ns);
  EXPECT_EQ(g.mono_start_ns, h.mono_start_ns);
  EXPECT_EQ(g.command, h.command);
  EXPECT_EQ(g.root, h.root);
  EXPECT_EQ(g.uid, h.uid);
  EXPECT_EQ(g.gid, h.gid);
  ASSERT_EQ(g.mounts.size(), 1u);
  const MountEntry &a = g.mounts[0], &b = h.mounts[0];
  EXPECT_EQ(a.mount_id, b.mount_id);
  EXPECT_EQ(a.parent_id, b.parent_id);
  EXPECT_EQ(a.dev, b.dev);
  EXPECT_EQ(a.root, b.root);
  EXPECT_EQ(a.mount_point, b.mount_point);
  EXPECT_EQ(a.mount_options, b.mount_options);
  EXPECT_EQ(a.fs_type, b.fs_type);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.super_options, b.super_options);
  EXPECT_EQ(g.initial.pid, h.initial.pid);
  EXPECT_EQ(g.initial.cwd, h.initial.cwd);
  EXPECT_EQ(g.recorder_choices, h.recorder_choices);
  EXPECT_FALSE(g.recorder_choices.empty());
  EXPECT_EQ(g.initial.umask, h.initial.umask);
  ASSERT_EQ(g.initial.fds.size(), 2u);
  EXPECT_EQ(g.initial.fds[1].fd, 3);
  EXPECT_EQ(g.initial.fds[1].path, h.initial.fds[1].path);
  EXPECT_EQ(g.initial.fds[1].flags, h.initial.fds[1].flags);
  EXPECT_EQ(g.initial.fds[1].pos, h.initial.fds[1].pos);
  ASSERT_TRUE(g.record_cost.present);
  EXPECT_EQ(g.record_cost.gap_ns[1], 44u);
  EXPECT_EQ(g.record_cost.unrecorded_ns, 12u);
  EXPECT_EQ(g.record_cost.fault_ns, h.record_cost.fault_ns);
}

TEST(ContainerRoundTrip, ResultHeaderFieldsAndOps) {
  TempFile f;
  TraceHeader h = test::sample_header(PayloadKind::kResult);
  std::vector<OpRecord> in;
  {
    auto w = TraceWriter::create(f.path(), h, {.chunk_events = 100});
    ASSERT_TRUE(w) << w.message();
    StrId p = (*w)->intern("/mnt/c/work/a.txt");
    for (uint64_t i = 0; i < 250; ++i) {
      OpRecord o;
      o.event_index = i * 3;
      o.start = 1000 + i * 777;
      o.latency = 5000 + i;
      o.lateness = (i % 2) ? -static_cast<int64_t>(i) : static_cast<int64_t>(i);
      o.dep_wait = i * 11;
      o.gap = i * 13;
      o.ret = (i % 5) ? 3 : -13;
      o.recorded_ret = -2;
      o.waited_on = i ? i * 3 - 2 : 0;
      o.recorded_dur = 42 + i;
      o.pid = 7;
      o.tid = 8 + static_cast<uint32_t>(i % 3);
      o.worker = static_cast<uint32_t>(i % 4);
      o.path = p;
      o.nr = 262;
      o.flags = kOfDivergent | kOfFallback;
      in.push_back(o);
      ASSERT_TRUE((*w)->append(o).is_ok());
    }
    TraceFooter ft;
    ft.wall_ns = 99999;
    ft.divergences = 250;
    ft.approx_deps = 3;
    ft.recorder_stolen_ns = 4242;
    ft.stolen_measured = true;
    ft.gaps_ns = 1'000'000;
    ft.user_faults = 5000;
    ft.fault_records = 300;
    ft.fault_skips = 1200;
    ft.fault_cost_ns = 777'000;
    ASSERT_TRUE((*w)->finish(ft).is_ok());
  }
  auto r = TraceReader::open(f.path());
  ASSERT_TRUE(r) << r.message();
  const TraceHeader& g = (*r)->header();
  EXPECT_EQ(g.kind, PayloadKind::kResult);
  EXPECT_EQ(g.source_trace, h.source_trace);
  EXPECT_EQ(g.target, h.target);
  EXPECT_EQ(g.scratch, h.scratch);
  EXPECT_EQ(g.environment_json, h.environment_json);
  EXPECT_EQ(g.options_json, h.options_json);
  EXPECT_EQ(g.fallbacks, h.fallbacks);
  const auto all = test::read_records<OpRecord>(**r);
  ASSERT_EQ(all.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const OpRecord &a = in[i], &b = all[i];
    EXPECT_EQ(a.event_index, b.event_index);
    EXPECT_EQ(a.start, b.start);
    EXPECT_EQ(a.latency, b.latency);
    EXPECT_EQ(a.lateness, b.lateness);
    EXPECT_EQ(a.dep_wait, b.dep_wait);
    EXPECT_EQ(a.gap, b.gap);
    EXPECT_EQ(a.ret, b.ret);
    EXPECT_EQ(a.recorded_ret, b.recorded_ret);
    EXPECT_EQ(a.waited_on, b.waited_on);
    EXPECT_EQ(a.recorded_dur, b.recorded_dur);
    EXPECT_EQ(a.pid, b.pid);
    EXPECT_EQ(a.tid, b.tid);
    EXPECT_EQ(a.worker, b.worker);
    EXPECT_EQ(a.path, b.path);
    EXPECT_EQ(a.nr, b.nr);
    EXPECT_EQ(a.flags, b.flags);
  }
  EXPECT_EQ((*r)->str(all[0].path), "/mnt/c/work/a.txt");
  ASSERT_TRUE((*r)->footer());
  EXPECT_EQ((*r)->footer()->wall_ns, 99999u);
  EXPECT_EQ((*r)->footer()->divergences, 250u);
  EXPECT_EQ((*r)->footer()->approx_deps, 3u);
  EXPECT_EQ((*r)->footer()->recorder_stolen_ns, 4242u);
  EXPECT_TRUE((*r)->footer()->stolen_measured);
  EXPECT_EQ((*r)->footer()->gaps_ns, 1'000'000u);
  EXPECT_EQ((*r)->footer()->user_faults, 5000u);
  EXPECT_EQ((*r)->footer()->fault_records, 300u);
  EXPECT_EQ((*r)->footer()->fault_skips, 1200u);
  EXPECT_EQ((*r)->footer()->fault_cost_ns, 777'000u);
  EXPECT_TRUE((*r)->problems().complete());
}

TEST(ContainerRoundTrip, EventsEveryFieldAcrossChunksWithStringsAndPrestate) {
  TempFile f;
  std::vector<Event> in;
  std::vector<std::string> paths = {"/a", "/home/u/repo/src/main.c", std::string("/bin\xff\xfe\0x", 9)};
  TraceFooter ft;
  ft.end_ns = 777;
  ft.exit_status = 256;
  ft.seen[0] = 10;
  ft.drops[static_cast<int>(SyscallClass::kWrite)] = 5;
  ft.io_uring_submissions = 9;
  ft.string_drops = 2;
  ft.notes = "note";
  {
    auto w = TraceWriter::create(f.path(), test::sample_header(), {.chunk_events = 7});
    ASSERT_TRUE(w) << w.message();
    PrestateEntry d{"/home/u/repo", PrestateKind::kDir, 040755, 4096, "", 2, 0x803, 3};
    PrestateEntry s{"/home/u/repo/link", PrestateKind::kSymlink, 0120777, 6, "target", 3, 0x803, 1};
    ASSERT_TRUE((*w)->add_prestate(d).is_ok());
    ASSERT_TRUE((*w)->add_prestate(s).is_ok());
    std::vector<StrId> ids;
    for (auto& p : paths) ids.push_back((*w)->intern(p));
    EXPECT_EQ((*w)->intern(paths[1]), ids[1]) << "same string, same id";
    EXPECT_EQ((*w)->intern(""), kNoStr);
    for (uint64_t i = 0; i < 40; ++i) {
      Event e = full_event(1000 + i * 10, ids[i % 3], i % 2 ? ids[(i + 1) % 3] : kNoStr);
      e.tid = 4243 + static_cast<uint32_t>(i % 4);  // interleaved threads: per-thread ts deltas
      if (i == 20) e.ts = 900;                      // out-of-order enter time survives (zigzag)
      in.push_back(e);
      ASSERT_TRUE((*w)->append(e).is_ok());
    }
    EXPECT_EQ((*w)->records_written(), 40u);
    ASSERT_TRUE((*w)->finish(ft).is_ok());
  }
  auto r = TraceReader::open(f.path());
  ASSERT_TRUE(r) << r.message();
  int chunks = 0;
  const auto all = test::read_records<Event>(**r, &chunks);
  EXPECT_EQ(chunks, 6);  // 40 events, 7 per chunk
  ASSERT_EQ(all.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    SCOPED_TRACE(i);
    expect_same(in[i], all[i], 512);  // two half steps (timing_quant.h)
  }
  EXPECT_EQ((*r)->str(in[2].path[0]), paths[2]) << "binary path bytes survive";
  EXPECT_EQ((*r)->str(in[1].path[0]), paths[1]);
  auto pre = (*r)->prestate();
  ASSERT_TRUE(pre) << pre.message();
  ASSERT_EQ(pre->size(), 2u);
  EXPECT_EQ((*pre)[0].path, "/home/u/repo");
  EXPECT_EQ((*pre)[0].kind, PrestateKind::kDir);
  EXPECT_EQ((*pre)[0].mode, 040755u);
  EXPECT_EQ((*pre)[0].nlink, 3u);
  EXPECT_EQ((*pre)[1].kind, PrestateKind::kSymlink);
  EXPECT_EQ((*pre)[1].target, "target");
  EXPECT_EQ((*pre)[1].ino, 3u);
  EXPECT_EQ((*pre)[1].dev, 0x803u);
  ASSERT_TRUE((*r)->footer());
  const TraceFooter& g = *(*r)->footer();
  EXPECT_EQ(g.end_ns, 777u);
  EXPECT_EQ(g.exit_status, 256);
  EXPECT_EQ(g.seen[0], 10u);
  EXPECT_EQ(g.drops[static_cast<int>(SyscallClass::kWrite)], 5u);
  EXPECT_EQ(g.io_uring_submissions, 9u);
  EXPECT_EQ(g.string_drops, 2u);
  EXPECT_EQ(g.notes, "note");
  EXPECT_TRUE((*r)->problems().complete());
}

// Format 3 stores every column but the thread column thread by thread, and
// codes inode facts against the thread's previous ones: threads walking
// their own directories, interleaved unevenly, with page faults (facts, no
// path), closes (a path, no facts) and paths stat'ed again by another thread,
// over chunks that cut threads anywhere, read back field for field.
TEST(ContainerRoundTrip, InterleavedThreadsRoundTripEveryField) {
  TempFile f;
  std::mt19937_64 rng(11);
  std::vector<Event> in;
  {
    auto w = TraceWriter::create(f.path(), test::sample_header(), {.chunk_events = 97});
    ASSERT_TRUE(w) << w.message();
    std::vector<uint64_t> clock(6, 5000), next_file(6, 0);
    for (int i = 0; i < 1200; ++i) {
      const uint32_t t = static_cast<uint32_t>(rng() % 6);
      Event e;
      e.pid = 700 + t / 3;  // two processes of three threads
      e.tid = 700 + t;
      clock[t] += 500 + rng() % 4000;
      e.ts = clock[t];
      e.dur = 200 + rng() % 3000;
      clock[t] += e.dur;
      const uint64_t r = rng();
      if (r % 10 == 0) {  // a page fault: facts, no path
        e.nr = kEvPageFault;
        e.args[1] = 0x7f0000000000 + (r >> 20) % 0x100000;
        e.dev = 0xfe00;
        e.ino = 332383;
        e.size = 215000;
        e.mode = 0100755;
      } else if (r % 10 == 1 && i > 0) {  // a path another thread stat'ed
        e = in[rng() % in.size()];
        e.pid = 700 + t / 3;
        e.tid = 700 + t;
        e.ts = clock[t];
        e.dur = 300;
        clock[t] += e.dur;
      } else if (r % 10 == 2) {  // a close: a path, no facts
        e.nr = 3;
        e.path[0] = (*w)->intern("/repo/dir" + std::to_string(t) + "/f" + std::to_string(next_file[t]));
      } else {  // the thread's next file
        e.nr = 262;
        e.args[0] = kAtFdcwdArg;
        e.args[3] = 0x100;
        const uint64_t k = next_file[t]++;
        e.path[0] = (*w)->intern("/repo/dir" + std::to_string(t) + "/f" + std::to_string(k));
        e.dev = 0xfe00;
        e.ino = 11'000'000 + t * 1000 + k;
        e.size = 10 + k % 3;
        e.mode = k % 50 == 0 ? 040755 : 0100644;
      }
      in.push_back(e);
      ASSERT_TRUE((*w)->append(e).is_ok());
    }
    ASSERT_TRUE((*w)->finish({}).is_ok());
  }
  auto r = TraceReader::open(f.path());
  ASSERT_TRUE(r) << r.message();
  EXPECT_EQ((*r)->header().format_version, kFormatVersion);
  const auto all = test::read_records<Event>(**r);
  ASSERT_EQ(all.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    SCOPED_TRACE(i);
    expect_same(in[i], all[i], 768);  // three half steps (timing_quant.h)
  }
  EXPECT_TRUE((*r)->problems().complete());
}

// The encoder keeps a thread's column buffers from chunk to chunk while it
// lives and hands an exited thread's to a new one: one busy thread across
// every chunk (its buffers grow), short-lived threads that exit and are
// replaced, a tid reused by a new process, and strings added without lookup
// (add_string, as the recorder does). Read back field for field.
TEST(ContainerRoundTrip, ThreadsKeepTheirColumnsAndExitedOnesAreReused) {
  TempFile f;
  std::mt19937_64 rng(5);
  std::vector<Event> in;
  std::vector<std::string> names;
  {
    auto w = TraceWriter::create(f.path(), test::sample_header(), {.chunk_events = 61});
    ASSERT_TRUE(w) << w.message();
    uint64_t clock = 1000;
    uint32_t next_tid = 900, live_tid = 0;
    int live_left = 0;
    for (int i = 0; i < 3000; ++i) {
      Event e;
      const bool busy = rng() % 3 != 0;
      if (!busy && live_left == 0) {
        live_tid = next_tid++ % 905 + 900;  // tids come back: a new process on an old tid
        live_left = 5 + static_cast<int>(rng() % 40);
      }
      e.pid = busy ? 800 : live_tid;
      e.tid = busy ? 801 : live_tid;
      clock += 300 + rng() % 2000;
      e.ts = clock;
      e.dur = 100 + rng() % 5000;
      if (!busy && --live_left == 0) {
        e.nr = kEvProcExit;
        e.dur = 0;
        e.args[0] = 0;
        e.args[1] = 1;
      } else {
        e.nr = busy ? 262 : 257;
        e.ret = busy ? 0 : 3 + static_cast<int64_t>(rng() % 100);
        e.args[0] = kAtFdcwdArg;
        e.args[2] = rng() % 0x10000;
        names.push_back("/repo/" + std::to_string(e.tid) + "/f" + std::to_string(i));
        e.path[0] = (*w)->add_string(names.back());
        e.dev = 0xfe00;
        e.ino = 5'000'000 + static_cast<uint64_t>(i);
        e.size = rng() % 100000;
        e.mode = 0100644;
      }
      in.push_back(e);
      ASSERT_TRUE((*w)->append(e).is_ok());
    }
    ASSERT_TRUE((*w)->finish({}).is_ok());
  }
  auto r = TraceReader::open(f.path());
  ASSERT_TRUE(r) << r.message();
  int chunks = 0;
  const auto all = test::read_records<Event>(**r, &chunks);
  EXPECT_EQ(chunks, 50);  // 3000 events, 61 per chunk
  ASSERT_EQ(all.size(), in.size());
  size_t named = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    SCOPED_TRACE(i);
    expect_same(in[i], all[i], 768);  // three half steps (timing_quant.h)
    if (in[i].path[0] != kNoStr) {
      EXPECT_EQ((*r)->str(all[i].path[0]), names[named++]);
    }
  }
  EXPECT_EQ(named, names.size());
  EXPECT_TRUE((*r)->problems().complete());
}

}  // namespace
}  // namespace fsr

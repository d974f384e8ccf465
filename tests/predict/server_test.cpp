// SPDX-License-Identifier: Apache-2.0
// predict's mount as a server (server_queue.h): requests queue for its
// slots, large transfers share its bandwidth, and a profile without a model
// predicts as before and says what it assumed.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "predict/predict.h"
#include "predict/server_queue.h"
#include "tests/predict/predict_testdata.h"
#include "tests/predict/stream_run.h"

namespace fsr {
namespace {

using testdata::fixed_profile;
using testdata::SimRun;
using testdata::simulate_fixture;

ServerModel slots_model(uint32_t slots, uint64_t service_ns) {
  ServerModel m;
  m.slots = slots;
  m.service_ns = service_ns;
  return m;
}

TEST(ServerQueue, OneSlotServesOneRequestAtATime) {
  ServerQueue q(slots_model(1, 100'000), 0);
  EXPECT_EQ(q.serve(0, 100'000, {}), 100'000u);
  EXPECT_EQ(q.serve(0, 100'000, {}), 200'000u);  // waits for the first
  EXPECT_EQ(q.last_wait(), 100'000u);
  EXPECT_EQ(q.serve(50'000, 100'000, {}), 250'000u);   // the slot frees at 200 us
  EXPECT_EQ(q.serve(400'000, 100'000, {}), 100'000u);  // idle by then
  EXPECT_EQ(q.totals().served, 4u);
  EXPECT_EQ(q.totals().slot_waits, 2u);
  EXPECT_EQ(q.totals().slot_wait_ns, 250'000u);
}

TEST(ServerQueue, AnOpSimulatedOutOfOrderFillsTheGapOrGoesFirst) {
  Timeline t;
  EXPECT_EQ(t.book(100, 10), 110u);
  EXPECT_EQ(t.peek(0, 50), 50u);  // fits before it
  EXPECT_EQ(t.book(0, 50), 50u);
  EXPECT_EQ(t.book(60, 50), 120u);   // does not fit: first, the other after it, both done at 120
  EXPECT_EQ(t.book(115, 10), 130u);  // behind them
}

TEST(ServerQueue, TwoSlotsServeTwoAtOnce) {
  ServerQueue q(slots_model(2, 100'000), 0);
  EXPECT_EQ(q.serve(0, 100'000, {}), 100'000u);
  EXPECT_EQ(q.serve(0, 100'000, {}), 100'000u);
  EXPECT_EQ(q.serve(0, 100'000, {}), 200'000u);
}

TEST(ServerQueue, ClientPartIsNotHeldAndCachedAnswersNeverQueue) {
  ServerModel m = slots_model(1, 50'000);
  m.sweep.push_back({ProbeKind::kStat, 1, 1000, 60'000'000, 60'000});  // 60 us alone: 10 us client side
  m.sweep.push_back({ProbeKind::kRead, 1, 1000, 90'000'000, 90'000});
  EXPECT_EQ(ServerQueue::client_part(m, 500), 10'000u);
  EXPECT_EQ(ServerQueue::client_part(ServerModel{}, 500), 500u);  // no sweep: the syscall only
  ServerQueue q(m, 500);
  EXPECT_EQ(q.serve(0, 60'000, {}), 60'000u);  // holds the slot until 50 us
  EXPECT_EQ(q.serve(0, 60'000, {}), 110'000u);
  EXPECT_EQ(q.serve(0, 8'000, {}), 8'000u);  // within the client part: a cache hit
  EXPECT_EQ(q.totals().served, 2u);
}

TEST(ServerQueue, WithoutAModelNothingChanges) {
  ServerQueue q(ServerModel{}, 500);
  EXPECT_FALSE(q.active());
  ServerModel bw_only;
  bw_only.write_bw_direct = 1'000'000;
  EXPECT_TRUE(ServerQueue(bw_only, 0).active());
}

TEST(ServerQueue, LargeTransfersShareThePipeOneAfterAnother) {
  ServerModel m;  // no slots measured, a 100 MB/s buffered write pipe
  m.write_bw_buffered = 100'000'000;
  ServerQueue q(m, 0);
  const Transfer big{1'000'000, true, false};  // 10 ms of the pipe
  EXPECT_EQ(q.serve(0, 12'000'000, big), 12'000'000u);
  EXPECT_EQ(q.serve(0, 12'000'000, big), 22'000'000u);  // waits out the first's 10 ms
  EXPECT_EQ(q.totals().pipe_wait_ns, 10'000'000u);
  // Small, another direction or O_DIRECT (unmeasured): not on this pipe.
  EXPECT_EQ(q.serve(0, 1'000'000, {4096, true, false}), 1'000'000u);
  EXPECT_EQ(q.serve(0, 12'000'000, {1'000'000, false, false}), 12'000'000u);
  EXPECT_EQ(q.serve(0, 12'000'000, {1'000'000, true, true}), 12'000'000u);
  // A draw faster than the pipe (a cache answered) holds it for its own time only.
  ServerQueue c(m, 0);
  EXPECT_EQ(c.serve(0, 2'000'000, big), 2'000'000u);
  EXPECT_EQ(c.serve(0, 2'000'000, big), 4'000'000u);
}

// The wall of `workers` parallel stat loops on a 100 us mount with `slots`.
SimStats parallel_wall(uint32_t workers, uint32_t slots) {
  Profile p = fixed_profile("server", 100'000);
  p.server = slots_model(slots, 99'500);  // the rest: the syscall round trip
  LatencyModel model(p);
  return simulate_fixture(testdata::parallel_stats(workers, 40), &model, testdata::stream_options(3)).sim;
}

TEST(PredictServer, OneSlotMakesParallelWorkersWaitInTurn) {
  const SimStats one = parallel_wall(1, 1), eight = parallel_wall(8, 1);
  std::printf("1 slot: 1 worker %llu ns, 8 workers %llu ns (x%.3f)\n", (unsigned long long)one.wall_ns,
              (unsigned long long)eight.wall_ns, double(eight.wall_ns) / double(one.wall_ns));
  EXPECT_EQ(one.queued_ops, 0u) << "a lone worker never waits for itself";
  EXPECT_GT(eight.queued_ops, 8u * 40 * 3 / 4);
  const double ratio = double(eight.wall_ns) / double(one.wall_ns);
  EXPECT_GT(ratio, 8 * 0.85) << one.wall_ns << " -> " << eight.wall_ns;
  EXPECT_LT(ratio, 8 * 1.15) << one.wall_ns << " -> " << eight.wall_ns;
  EXPECT_TRUE(queue_dominates(eight)) << eight.path_queue_ns << " of " << eight.wall_ns;
  EXPECT_FALSE(queue_dominates(one));
}

TEST(PredictServer, EightSlotsServeEightWorkersAtOnce) {
  const SimStats one = parallel_wall(1, 8), eight = parallel_wall(8, 8);
  std::printf("8 slots: 1 worker %llu ns, 8 workers %llu ns (x%.3f)\n", (unsigned long long)one.wall_ns,
              (unsigned long long)eight.wall_ns, double(eight.wall_ns) / double(one.wall_ns));
  EXPECT_EQ(eight.queued_ops, 0u);
  const double ratio = double(eight.wall_ns) / double(one.wall_ns);
  EXPECT_GT(ratio, 0.85) << one.wall_ns << " -> " << eight.wall_ns;
  EXPECT_LT(ratio, 1.15) << one.wall_ns << " -> " << eight.wall_ns;
  EXPECT_FALSE(queue_dominates(eight));
}

TEST(PredictServer, ManySlotsPredictExactlyAsWithoutAModel) {
  const testdata::TraceFixture t = testdata::many_builds(12);
  Profile old = fixed_profile("old", 150'000);
  Profile wide = old;
  wide.server = slots_model(64, 100'000);
  LatencyModel m_old(old), m_wide(wide);
  const SimRun a = simulate_fixture(t, &m_old, testdata::stream_options(5));
  const SimRun b = simulate_fixture(t, &m_wide, testdata::stream_options(5));
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.ops.size(); ++i) {
    EXPECT_EQ(a.ops[i].start, b.ops[i].start) << "op " << i;
    EXPECT_EQ(a.ops[i].latency, b.ops[i].latency) << "op " << i;
  }
  EXPECT_EQ(a.sim.wall_ns, b.sim.wall_ns);
  EXPECT_EQ(b.sim.queued_ops, 0u);
  // One slot on the same trace: the two compilers of a pair wait for each other.
  Profile narrow = wide;
  narrow.server.slots = 1;
  LatencyModel m_narrow(narrow);
  const SimRun c = simulate_fixture(t, &m_narrow, testdata::stream_options(5));
  EXPECT_GT(c.sim.queued_ops, 0u);
  EXPECT_GT(c.sim.wall_ns, a.sim.wall_ns);
}

// probe stores "scaled to every concurrency it measured" as kNoSlotLimit: no
// request queues (and no slot per possible request is made), as without a model.
TEST(PredictServer, NoSlotLimitSeenQueuesNothing) {
  const testdata::TraceFixture t = testdata::many_builds(12);
  Profile old = fixed_profile("old", 150'000);
  Profile open = old;
  open.server = slots_model(kNoSlotLimit, 100'000);
  LatencyModel m_old(old), m_open(open);
  const SimRun a = simulate_fixture(t, &m_old, testdata::stream_options(5));
  const SimRun b = simulate_fixture(t, &m_open, testdata::stream_options(5));
  EXPECT_EQ(a.sim.wall_ns, b.sim.wall_ns);
  EXPECT_EQ(b.sim.queued_ops, 0u);
}

TEST(PredictServer, TwoLargeWritesShareTheBandwidth) {
  const uint64_t mib = 1 << 20;
  Profile p = fixed_profile("pipe", 100'000);  // a 1 MiB write: 1.7 ms drawn (fixed_profile's size scale)
  p.server = slots_model(8, 99'500);
  LatencyModel alone_model(p);
  p.server.write_bw_buffered = 1'000'000'000;  // 1 MiB needs 1.049 ms of the pipe
  LatencyModel shared_model(p);
  const testdata::TraceFixture t = testdata::parallel_writes(mib);
  const SimRun alone = simulate_fixture(t, &alone_model, testdata::stream_options(9));
  const SimRun shared = simulate_fixture(t, &shared_model, testdata::stream_options(9));
  EXPECT_EQ(alone.sim.queued_ops, 0u);
  EXPECT_EQ(shared.sim.queued_ops, 1u) << "the second write waits for the first's transfer";
  const double need = double(mib);  // ns at 1 GB/s
  EXPECT_GT(double(shared.sim.queue_wait_ns), 0.9 * need);
  EXPECT_LE(double(shared.sim.queue_wait_ns), need);
  const double grew = double(shared.sim.wall_ns) - double(alone.sim.wall_ns);
  std::printf("two 1 MiB writes: wall %llu ns alone, %llu ns sharing 1 GB/s; the second waited %llu ns\n",
              (unsigned long long)alone.sim.wall_ns, (unsigned long long)shared.sim.wall_ns,
              (unsigned long long)shared.sim.queue_wait_ns);
  EXPECT_GT(grew, 0.9 * need) << alone.sim.wall_ns << " -> " << shared.sim.wall_ns;
  EXPECT_LE(grew, need + 1000) << alone.sim.wall_ns << " -> " << shared.sim.wall_ns;
}

TEST(PredictServer, AnOldProfileNamesTheAssumption) {
  testdata::TempDir dir;
  ASSERT_TRUE(testdata::parallel_stats(8, 20).write(dir.file("t.trace")));
  ASSERT_TRUE(write_profile(dir.file("old.profile"), fixed_profile("old", 150'000)));
  Profile with = fixed_profile("new", 150'000);
  with.server = slots_model(1, 149'500);
  with.server.read_bw_buffered = 50'000'000;
  ASSERT_TRUE(write_profile(dir.file("new.profile"), with));
  with.server.read_bw_buffered = 0;
  ASSERT_TRUE(write_profile(dir.file("no-bw.profile"), with));
  auto has = [](const PredictColumn& c, const std::string& line) {
    for (const std::string& a : c.assumptions)
      if (a == line) return true;
    return false;
  };
  PredictOptions o;
  o.profiles = {dir.file("old.profile"), dir.file("new.profile"), dir.file("no-bw.profile")};
  auto pr = run_predict(dir.file("t.trace"), o);
  ASSERT_TRUE(pr) << pr.message();
  ASSERT_EQ(pr->columns.size(), 4u);
  const std::string no_bw =
      "the profile has no bandwidth: large transfers are assumed to take their probed time whatever else is in "
      "flight";
  EXPECT_TRUE(has(pr->columns[3], no_bw));
  EXPECT_FALSE(has(pr->columns[2], no_bw));
  const std::string said =
      "the profile has no server model: the mount is assumed to serve every request at once; probe again with "
      "this fsreplay to measure it";
  EXPECT_TRUE(has(pr->columns[1], said));
  EXPECT_FALSE(has(pr->columns[2], said));
  EXPECT_EQ(pr->columns[1].sim.queued_ops, 0u);
  EXPECT_EQ(pr->columns[2].server.model.slots, 1u);
  EXPECT_GT(pr->columns[2].sim.queued_ops, 0u);
  auto text = render_prediction(*pr, OutputFormat::kText, {});
  ASSERT_TRUE(text);
  EXPECT_NE(text->find("assumed: " + said), std::string::npos);
  EXPECT_NE(text->find("server   1 slot, 150 us service (500 ns client side per request); MB/s read -/50.0"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("on the critical path"), std::string::npos);
  EXPECT_NE(text->find("% of the wall): the mount's queue, not its latency, dominates the predicted time"),
            std::string::npos)
      << *text;
  EXPECT_TRUE(queue_dominates(pr->columns[2].sim));
  auto json = render_prediction(*pr, OutputFormat::kJson, {});
  ASSERT_TRUE(json);
  const auto doc = nlohmann::json::parse(*json);
  EXPECT_EQ(doc["columns"][1]["server"]["measured"], false);
  EXPECT_EQ(doc["columns"][2]["server"]["slots"], 1);
  EXPECT_EQ(doc["columns"][2]["server"]["queue_dominates"], true);
  EXPECT_GT(doc["columns"][2]["server"]["critical_path_queue_ns"].get<uint64_t>(), 0u);
}

}  // namespace
}  // namespace fsr

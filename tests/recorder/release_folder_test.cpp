// SPDX-License-Identifier: Apache-2.0
// A call's deferred file release (bpf/record_release.bpf.h), on synthetic
// kernel records through the decoder and the ReleaseFolder, as the drain
// feeds them: the release record adds to its call and is not written; the
// call waits for its thread's next record and no other thread's.
#include "recorder/core/release_folder.h"

#include <sys/syscall.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "recorder/core/event_decoder.h"
#include "tests/recorder/record_bytes.h"

namespace fsr {
namespace {

class ReleaseTest : public ::testing::Test {
 protected:
  ReleaseTest() : dec_(0, [this](std::string_view) { return ++ids_; }) {
    ProcessState st;
    st.pid = 100;
    st.cwd = "/work";
    dec_.seed_process(st);
  }

  // Decodes `r` and passes it through the folder; what is written goes to out_.
  void feed(const test::RawRecord& r) {
    std::vector<char> b = r.bytes();
    Event e;
    ASSERT_TRUE(dec_.decode(b.data(), b.size(), e));
    folder_.take(e, dec_.release_pending(), [this](const Event& w) { out_.push_back(w); });
  }
  static test::RawRecord call(uint32_t tid, uint16_t nr, std::vector<uint64_t> args, uint16_t flags = 0) {
    return test::syscall_record(100, tid, nr, std::move(args), 0, {}, {}, flags);
  }
  // The release record of a call that exited at `from`: `ns` until the task came back.
  static test::RawRecord release(uint32_t tid, uint64_t from, uint64_t ns) {
    test::RawRecord r = test::process_record(FSR_REC_RELEASE, 100, tid, {ns});
    r.hdr.ts = from;
    return r;
  }

  StrId ids_ = 0;
  EventDecoder dec_;
  ReleaseFolder folder_;
  std::vector<Event> out_;
};

TEST_F(ReleaseTest, AReleaseRecordLengthensItsCallAndIsNotWritten) {
  test::RawRecord munmap = call(100, SYS_munmap, {0x7f0000000000, 4096}, FSR_RF_RELEASE_PENDING);
  feed(munmap);
  EXPECT_TRUE(out_.empty()) << "a marked call waits for its thread's next record";
  EXPECT_EQ(folder_.held(), 1u);
  feed(release(100, munmap.hdr.end, 350'000));
  ASSERT_EQ(out_.size(), 1u);
  EXPECT_EQ(out_[0].nr, SYS_munmap);
  EXPECT_EQ(out_[0].dur, munmap.hdr.end - munmap.hdr.ts + 350'000);
  EXPECT_EQ(folder_.folded(), 1u);
  EXPECT_EQ(folder_.folded_ns(), 350'000u);
  feed(call(100, SYS_fsync, {5}));
  ASSERT_EQ(out_.size(), 2u);
  EXPECT_EQ(out_[1].nr, SYS_fsync);
}

TEST_F(ReleaseTest, AMarkedCallWithoutAReleaseGoesOutAsItWasBeforeItsThreadsNextEvent) {
  test::RawRecord close_call = call(100, SYS_close, {3}, FSR_RF_RELEASE_PENDING);
  feed(close_call);
  feed(call(100, SYS_fsync, {5}));
  ASSERT_EQ(out_.size(), 2u);
  EXPECT_EQ(out_[0].nr, SYS_close);
  EXPECT_EQ(out_[0].dur, close_call.hdr.end - close_call.hdr.ts);
  EXPECT_EQ(out_[1].nr, SYS_fsync);
  EXPECT_EQ(folder_.folded(), 0u);
}

// Another process's events pass a held call; its own process's other
// threads' do not (they share its fd table: a close written after a
// sibling's open of the same fd number would close that one in the replay).
TEST_F(ReleaseTest, OtherProcessesEventsPassAHeldCallItsSiblingsDoNot) {
  test::RawRecord munmap = call(100, SYS_munmap, {0x7f0000000000, 4096}, FSR_RF_RELEASE_PENDING);
  feed(munmap);
  feed(test::syscall_record(200, 200, SYS_fsync, {5}, 0));
  ASSERT_EQ(out_.size(), 1u);
  EXPECT_EQ(out_[0].pid, 200u) << "another process's event passes the held call";
  feed(release(100, munmap.hdr.end, 1000));
  ASSERT_EQ(out_.size(), 2u);
  EXPECT_EQ(out_[1].tid, 100u);
  EXPECT_EQ(out_[1].dur, munmap.hdr.end - munmap.hdr.ts + 1000);

  feed(test::process_record(FSR_REC_FORK, 100, 100, {101, 100}, {}, {}, FSR_RF_THREAD | FSR_RF_SHARED_FILES));
  out_.clear();
  test::RawRecord close_call = call(100, SYS_close, {3}, FSR_RF_RELEASE_PENDING);
  feed(close_call);
  test::RawRecord open_call =
      test::syscall_record(100, 101, SYS_openat, {static_cast<uint64_t>(-100), 0, 0, 0}, 3, "f");
  feed(open_call);
  ASSERT_EQ(out_.size(), 2u);
  EXPECT_EQ(out_[0].nr, SYS_close) << "a sibling thread's event lets the held call go first";
  EXPECT_EQ(out_[0].dur, close_call.hdr.end - close_call.hdr.ts);
  EXPECT_EQ(out_[1].nr, SYS_openat);
  EXPECT_EQ(folder_.let_go(), 1u);
  feed(release(100, close_call.hdr.end, 500));
  EXPECT_EQ(out_.size(), 2u);
  EXPECT_EQ(folder_.orphans(), 1u) << "its release, late, is counted and not written";
}

TEST_F(ReleaseTest, HeldCallsGoOutAtTheEndInEnterOrder) {
  feed(test::syscall_record(200, 200, SYS_close, {4}, 0, {}, {}, FSR_RF_RELEASE_PENDING));
  feed(call(100, SYS_close, {3}, FSR_RF_RELEASE_PENDING));
  EXPECT_TRUE(out_.empty());
  folder_.flush([this](const Event& w) { out_.push_back(w); });
  ASSERT_EQ(out_.size(), 2u);
  EXPECT_EQ(out_[0].tid, 200u);
  EXPECT_EQ(out_[1].tid, 100u);
  EXPECT_EQ(folder_.held(), 0u);
}

TEST_F(ReleaseTest, AReleaseWhoseCallWasNotHeldIsCountedNotWritten) {
  test::RawRecord close_call = call(100, SYS_close, {3});
  feed(close_call);
  feed(release(100, close_call.hdr.end, 777));
  ASSERT_EQ(out_.size(), 1u);
  EXPECT_EQ(out_[0].nr, SYS_close);
  EXPECT_EQ(out_[0].dur, close_call.hdr.end - close_call.hdr.ts);
  EXPECT_EQ(folder_.orphans(), 1u);
  EXPECT_EQ(folder_.folded(), 0u);
}

// The decoder's gap sum (the trace footer's gaps_ns, which recorder
// overhead is taken out of) does not count a release as gap.
TEST_F(ReleaseTest, TheGapSumLeavesTheReleaseOut) {
  test::RawRecord a = call(100, SYS_munmap, {0x7f0000000000, 4096}, FSR_RF_RELEASE_PENDING);
  feed(a);
  feed(release(100, a.hdr.end, 300));
  test::RawRecord b = call(100, SYS_fsync, {5});
  feed(b);
  EXPECT_EQ(dec_.gaps_ns(), b.hdr.ts - a.hdr.end - 300);
}

}  // namespace
}  // namespace fsr

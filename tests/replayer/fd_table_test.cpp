// SPDX-License-Identifier: Apache-2.0
#include "replayer/plan/fd_table.h"

#include <gtest/gtest.h>

namespace fsr {
namespace {

TEST(FdTable, DupSharesTheOfdAndOnlyTheLastCloseIsReal) {
  OfdRefs refs;
  FdTable t(&refs);
  std::vector<uint32_t> closed;
  uint32_t o = refs.create();
  t.bind(3, o, false, closed);
  t.bind(4, o, false, closed);  // dup
  EXPECT_TRUE(t.close(3, closed));
  EXPECT_TRUE(closed.empty());
  EXPECT_TRUE(t.close(4, closed));
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0], o);
  EXPECT_FALSE(t.close(4, closed));
}

TEST(FdTable, Dup2OverAnOpenFdClosesIt) {
  OfdRefs refs;
  FdTable t(&refs);
  std::vector<uint32_t> closed;
  uint32_t a = refs.create(), b = refs.create();
  t.bind(3, a, false, closed);
  t.bind(5, b, false, closed);
  t.bind(5, a, false, closed);  // dup2(3, 5)
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0], b);
  EXPECT_EQ(t.lookup(5), a);
}

TEST(FdTable, ForkCopiesAndEachSideClosesIndependently) {
  OfdRefs refs;
  auto parent = std::make_shared<FdTable>(&refs);
  std::vector<uint32_t> closed;
  uint32_t o = refs.create();
  parent->bind(3, o, false, closed);
  auto child = parent->fork_copy();
  EXPECT_EQ(child->lookup(3), o);
  child->close(3, closed);
  EXPECT_TRUE(closed.empty());
  EXPECT_EQ(parent->lookup(3), o);
  parent->close(3, closed);
  EXPECT_EQ(closed.size(), 1u);
}

TEST(FdTable, ExecClosesOnlyCloseOnExecFds) {
  OfdRefs refs;
  FdTable t(&refs);
  std::vector<uint32_t> closed;
  uint32_t a = refs.create(), b = refs.create(), c = refs.create();
  t.bind(3, a, true, closed);
  t.bind(4, b, false, closed);
  t.bind(5, c, false, closed);
  t.set_cloexec(5, true);  // fcntl(F_SETFD, FD_CLOEXEC)
  t.exec(closed);
  EXPECT_EQ(closed, (std::vector<uint32_t>{a, c}));
  EXPECT_EQ(t.lookup(4), b);
  EXPECT_EQ(t.lookup(3), kNoOfd);
}

TEST(FdTable, CloseRangeClosesOrMarks) {
  OfdRefs refs;
  FdTable t(&refs);
  std::vector<uint32_t> closed;
  for (int fd = 3; fd < 8; ++fd) t.bind(fd, refs.create(), false, closed);
  t.close_range(5, 6, true, closed);  // CLOSE_RANGE_CLOEXEC
  EXPECT_TRUE(closed.empty());
  t.close_range(3, 4, false, closed);
  EXPECT_EQ(closed.size(), 2u);
  t.exec(closed);
  EXPECT_EQ(closed.size(), 4u);
  EXPECT_EQ(t.size(), 1u);
}

}  // namespace
}  // namespace fsr

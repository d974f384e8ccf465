// SPDX-License-Identifier: Apache-2.0
// Interned paths as a tree of components (replayer/plan/path_tree.h).
#include "replayer/plan/path_tree.h"

#include <gtest/gtest.h>

#include <string>

namespace fsr {
namespace {

TEST(PathTree, APathComesBackAsItWentInWithEveryAncestorMade) {
  PathTree t;
  const uint32_t c = t.intern({Root::kTarget, "a/b/c.txt"});
  EXPECT_EQ(t.path(c), (MappedPath{Root::kTarget, "a/b/c.txt"}));
  EXPECT_EQ(t.depth(c), 3u);
  const uint32_t b = t.find({Root::kTarget, "a/b"});
  ASSERT_NE(b, PathTree::kNone);
  EXPECT_EQ(t.parent(c), b);
  EXPECT_LT(b, c) << "a parent is made before its children";
  EXPECT_EQ(t.intern({Root::kTarget, "a/b/c.txt"}), c) << "the same path, the same node";
  EXPECT_EQ(t.size(), 5u) << "two roots, a, a/b, a/b/c.txt";
}

TEST(PathTree, TheTwoRootsKeepTheirPathsApart) {
  PathTree t;
  const uint32_t in_target = t.intern({Root::kTarget, "usr/lib"});
  const uint32_t in_scratch = t.intern({Root::kScratch, "usr/lib"});
  EXPECT_NE(in_target, in_scratch);
  EXPECT_EQ(t.root(in_scratch), Root::kScratch);
  EXPECT_EQ(t.find({Root::kScratch, "usr"}), t.parent(in_scratch));
  EXPECT_EQ(t.find({Root::kTarget, "usr/lib/x"}), PathTree::kNone);
  EXPECT_EQ(t.intern({Root::kScratch, ""}), PathTree::root_node(Root::kScratch));
  std::string rel = "stale";
  t.rel(PathTree::root_node(Root::kTarget), rel);
  EXPECT_EQ(rel, "");
}

TEST(PathTree, ManyPathsSurviveTheIndexGrowingAndBeingDropped) {
  PathTree t;
  std::vector<uint32_t> nodes;
  for (int d = 0; d < 300; ++d)
    for (int f = 0; f < 50; ++f)
      nodes.push_back(t.intern({Root::kTarget, "d" + std::to_string(d) + "/f" + std::to_string(f)}));
  EXPECT_EQ(t.find({Root::kTarget, "d299/f49"}), nodes.back());
  t.drop_index();
  EXPECT_EQ(t.path(nodes[1234]).rel, "d24/f34");
  EXPECT_EQ(t.path(nodes.back()).rel, "d299/f49");
}

}  // namespace
}  // namespace fsr

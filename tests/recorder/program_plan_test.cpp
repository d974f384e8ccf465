// SPDX-License-Identifier: Apache-2.0
// The program plan over feature sets: each fallback is chosen where its
// feature is missing, a missing required piece is a refusal naming it, and
// FSREPLAY_RECORD_WITHOUT's list parses to known names only.
#include "recorder/core/program_plan.h"

#include <gtest/gtest.h>

namespace fsr {
namespace {

KernelFeatures all_features() {
  KernelFeatures f;
  for (const std::string& n : known_features()) f.present.insert(n);
  return f;
}

bool has_line(const ProgramPlan& p, const std::string& prefix) {
  for (const std::string& l : p.describe())
    if (l.rfind(prefix, 0) == 0) return true;
  return false;
}

TEST(ProgramPlan, EverythingPresentTakesTheFastVariants) {
  auto p = plan_programs(all_features(), PidNamespace{}, true);
  ASSERT_TRUE(p) << p.message();
  EXPECT_EQ(p->task_state, TaskStateStore::kTaskStorage);
  EXPECT_EQ(p->faults, FaultSource::kFilemapTracepoints);
  EXPECT_TRUE(has_line(*p, "task_state=task_storage"));
  EXPECT_TRUE(has_line(*p, "page_faults=filemap_tracepoints"));
  EXPECT_TRUE(has_line(*p, "pid_namespace=initial"));
  EXPECT_FALSE(has_line(*p, "forced_off="));
}

TEST(ProgramPlan, EachMissingOptionalPieceHasItsFallback) {
  KernelFeatures f = all_features();
  f.present.erase(kFeatTaskStorage);
  auto p = plan_programs(f, PidNamespace{}, true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->task_state, TaskStateStore::kHash);

  f = all_features();
  f.present.erase(kFeatFilemapMapPages);  // one of the pair is not enough (6.1 and 6.6 have neither)
  p = plan_programs(f, PidNamespace{}, true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->faults, FaultSource::kFentry);
  EXPECT_TRUE(has_line(*p, "page_faults=fentry"));

  f.present.erase(kFeatFentryFilemap);
  p = plan_programs(f, PidNamespace{}, true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->faults, FaultSource::kVmaLookup);
  EXPECT_TRUE(has_line(*p, "page_faults=vma_lookup (no filemap fault tracepoints nor fentry"));
  p->fentry_refused = "loading them: Operation not permitted";  // (BpfSession::open's second try)
  EXPECT_TRUE(has_line(*p,
                       "page_faults=vma_lookup (no filemap fault tracepoints; the kernel refused fentry on "
                       "filemap_fault, loading them: Operation not permitted)"));

  f.present.erase(kFeatFindVma);
  p = plan_programs(f, PidNamespace{}, true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->faults, FaultSource::kOff);
  EXPECT_TRUE(has_line(*p, "page_faults=off (no tp_btf/mm_filemap_fault nor helper/find_vma)"));

  f = all_features();
  f.present.erase(kFeatPageFaultUser);
  p = plan_programs(f, PidNamespace{}, true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->faults, FaultSource::kOff);
  EXPECT_EQ(p->faults_off_reason, "no tp_btf/page_fault_user");
}

TEST(ProgramPlan, ForcedFeaturesCountAsMissingAndAreNamed) {
  KernelFeatures f = all_features();
  f.forced = {kFeatTaskStorage, kFeatFilemapFault};
  auto p = plan_programs(f, PidNamespace{}, true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->task_state, TaskStateStore::kHash);
  EXPECT_EQ(p->faults, FaultSource::kFentry);
  EXPECT_TRUE(has_line(*p, "forced_off=map/task_storage,tp_btf/mm_filemap_fault"));
  f.forced.insert(kFeatFentryFilemap);
  p = plan_programs(f, PidNamespace{}, true);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->faults, FaultSource::kVmaLookup);
}

TEST(ProgramPlan, MissingRequiredPieceIsARefusalNamingIt) {
  for (const char* t : kRequiredTracepoints) {
    KernelFeatures f = all_features();
    f.present.erase(t);
    auto p = plan_programs(f, PidNamespace{}, true);
    ASSERT_FALSE(p) << t;
    EXPECT_NE(p.message().find(std::string("the kernel lacks ") + t), std::string::npos) << p.message();
  }
  KernelFeatures f = all_features();
  f.forced = {kFeatCurrentTaskBtf};
  auto p = plan_programs(f, PidNamespace{}, true);
  ASSERT_FALSE(p);
  EXPECT_NE(p.message().find("forced off by FSREPLAY_RECORD_WITHOUT"), std::string::npos) << p.message();
}

TEST(ProgramPlan, NoPageFaultsOptionTurnsThemOff) {
  auto p = plan_programs(all_features(), PidNamespace{}, false);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->faults, FaultSource::kOff);
  EXPECT_TRUE(has_line(*p, "page_faults=off (--no-page-faults)"));
}

TEST(ProgramPlan, NamespaceBelowTheInitialOneIsDescribed) {
  auto p = plan_programs(all_features(), PidNamespace{4026532268u}, true);
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->pidns.initial());
  EXPECT_TRUE(has_line(*p, "pid_namespace=below the initial one (inode 4026532268)"));
}

TEST(FeatureList, ParsesKnownNamesAndRefusesOthers) {
  auto s = parse_feature_list("map/task_storage,,tp_btf/mm_filemap_fault");
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(*s, (std::set<std::string>{"map/task_storage", "tp_btf/mm_filemap_fault"}));
  EXPECT_TRUE(parse_feature_list("")->empty());
  auto bad = parse_feature_list("map/task_storage,kprobes");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.message().find("unknown feature 'kprobes'"), std::string::npos);
  EXPECT_NE(bad.message().find("helper/find_vma"), std::string::npos) << "lists the known ones";
}

}  // namespace
}  // namespace fsr

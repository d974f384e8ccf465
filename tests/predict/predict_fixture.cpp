// SPDX-License-Identifier: Apache-2.0
// Writes the predict CLI test's inputs into DIR: build.trace (the small
// fixed build), base.profile, slow-stat.profile (stat 1 ms),
// noxattr.profile (no xattr or rename case).
#include <cstdio>
#include <string>

#include "tests/predict/predict_testdata.h"

int main(int argc, char** argv) {
  using namespace fsr;
  if (argc != 2) {
    std::fprintf(stderr, "usage: predict_fixture DIR\n");
    return 2;
  }
  const std::string d = argv[1];
  Status st = testdata::small_build_trace().write(d + "/build.trace");
  if (st) st = write_profile(d + "/base.profile", testdata::fixed_profile("base", 20'000));
  if (st)
    st = write_profile(d + "/slow-stat.profile",
                       testdata::fixed_profile("slow-stat", 20'000,
                                               {{ProbeKind::kStat, 1'000'000}, {ProbeKind::kStatMissing, 1'000'000}}));
  if (st)
    st = write_profile(d + "/noxattr.profile",
                       testdata::fixed_profile("noxattr", 20'000, {}, {ProbeKind::kXattr, ProbeKind::kRename}));
  if (!st) {
    std::fprintf(stderr, "predict_fixture: %s\n", st.message().c_str());
    return 1;
  }
  return 0;
}

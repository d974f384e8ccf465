// SPDX-License-Identifier: Apache-2.0
// Status / Result behaviour (base/status.h): codes, errno, refusing an OK
// status as an error, and the early-return macros.
#include "base/status.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <string>

namespace fsr {
namespace {

TEST(Status, OkHasCodeOkAndNoMessage) {
  Status s = Status::ok();
  EXPECT_TRUE(s.is_ok());
  EXPECT_TRUE(static_cast<bool>(s));
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_TRUE(Status().is_ok());
}

TEST(Status, ErrorCarriesItsCodeAndMessage) {
  Status s = Status::error("trace.bin: chunk 3 truncated", StatusCode::kInvalidInput);
  EXPECT_FALSE(s.is_ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
  EXPECT_EQ(s.message(), "trace.bin: chunk 3 truncated");
  EXPECT_EQ(s.error_number(), 0);
  EXPECT_EQ(Status::error("x").code(), StatusCode::kError);
}

TEST(Status, AnErrorIsNeverOk) {
  EXPECT_FALSE(Status::error("").is_ok());
  EXPECT_EQ(Status::error("").message(), "unknown error");
  EXPECT_EQ(Status::error("asked for ok", StatusCode::kOk).code(), StatusCode::kError);
}

TEST(Status, FromErrnoKeepsErrnoAndDerivesTheKind) {
  EXPECT_EQ(Status::from_errno(EPERM, "bpf").code(), StatusCode::kNoPrivilege);
  EXPECT_EQ(Status::from_errno(EACCES, "bpf").code(), StatusCode::kNoPrivilege);
  EXPECT_EQ(Status::from_errno(ENOENT, "f").code(), StatusCode::kNotFound);
  EXPECT_EQ(Status::from_errno(EINVAL, "f").code(), StatusCode::kInvalidInput);
  EXPECT_EQ(Status::from_errno(ENOSYS, "f").code(), StatusCode::kUnsupported);
  Status s = Status::from_errno(EIO, "disk");
  EXPECT_EQ(s.code(), StatusCode::kError);
  EXPECT_EQ(s.error_number(), EIO);
  EXPECT_EQ(s.message(), "disk");
}

TEST(Status, CodesHaveNames) {
  EXPECT_EQ(status_code_name(StatusCode::kOk), "ok");
  EXPECT_EQ(status_code_name(StatusCode::kNoPrivilege), "no privilege");
  EXPECT_EQ(status_code_name(StatusCode::kUnsupported), "unsupported");
  EXPECT_EQ(status_code_name(StatusCode::kDamaged), "damaged");
}

TEST(Result, HoldsAValueOrAnError) {
  Result<int> v = 7;
  ASSERT_TRUE(v.is_ok());
  EXPECT_EQ(*v, 7);
  EXPECT_EQ(v.code(), StatusCode::kOk);
  EXPECT_TRUE(v.status().is_ok());
  Result<int> e = Status::error("no such trace", StatusCode::kNotFound);
  EXPECT_FALSE(e.is_ok());
  EXPECT_EQ(e.code(), StatusCode::kNotFound);
  EXPECT_EQ(e.message(), "no such trace");
  EXPECT_EQ(e.status().code(), StatusCode::kNotFound);
}

TEST(Result, MovesOutItsValue) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(3);
  std::unique_ptr<int> p = std::move(r).value();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(*p, 3);
}

#ifdef NDEBUG
TEST(Result, RefusesAnOkStatusAsAnInternalError) {
  Result<int> r = Status::ok();
  EXPECT_FALSE(r.is_ok());
  EXPECT_EQ(r.code(), StatusCode::kInternal);
  EXPECT_NE(r.message().find("OK status"), std::string::npos) << r.message();
}
#else
TEST(ResultDeathTest, RefusesAnOkStatusByAborting) {
  EXPECT_DEATH(
      {
        Result<int> r = Status::ok();
        (void)r;
      },
      "OK Status");
}
#endif

Status fails_if(bool fail) { return fail ? Status::error("inner failed", StatusCode::kUnsupported) : Status::ok(); }
Result<int> value_or_fail(bool fail) {
  if (fail) return Status::error("no value", StatusCode::kNotFound);
  return 41;
}

Status chain(bool fail_first, bool fail_second, int* reached) {
  FSR_RETURN_IF_ERROR(fails_if(fail_first));
  *reached = 1;
  FSR_RETURN_IF_ERROR(value_or_fail(fail_second));
  *reached = 2;
  return Status::ok();
}

Result<int> plus_one(bool fail) {
  FSR_ASSIGN_OR_RETURN(int v, value_or_fail(fail));
  return v + 1;
}

TEST(StatusMacros, ReturnIfErrorPassesTheFirstErrorOnUnchanged) {
  int reached = 0;
  Status s = chain(true, false, &reached);
  EXPECT_EQ(reached, 0);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_EQ(s.message(), "inner failed");

  reached = 0;
  s = chain(false, true, &reached);
  EXPECT_EQ(reached, 1);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);

  reached = 0;
  EXPECT_TRUE(chain(false, false, &reached).is_ok());
  EXPECT_EQ(reached, 2);
}

TEST(StatusMacros, AssignOrReturnTakesTheValueOrTheError) {
  Result<int> ok = plus_one(false);
  ASSERT_TRUE(ok.is_ok());
  EXPECT_EQ(*ok, 42);
  Result<int> err = plus_one(true);
  EXPECT_EQ(err.code(), StatusCode::kNotFound);
  EXPECT_EQ(err.message(), "no value");
}

}  // namespace
}  // namespace fsr

// SPDX-License-Identifier: Apache-2.0
// Status / Result<T>: errors are values (CONVENTIONS.md "Errors"). A message
// names the thing (file, chunk, syscall, path) and what to do about it; a
// code says what kind of failure it is, so that callers (the verbs' exit
// codes) decide on the kind, never on the wording.
#pragma once

#include <cassert>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace fsr {

enum class StatusCode : unsigned char {
  kOk = 0,
  kError,         // a failure of no finer kind (I/O, a damaged file, ...)
  kInvalidInput,  // bad arguments or settings: the caller can fix its request
  kNotFound,      // a named file, process or directory does not exist
  kNoPrivilege,   // needs root / CAP_BPF, or refused by a namespace
  kUnsupported,   // the kernel or platform lacks what it needs (BTF, a tracepoint)
  kInternal,      // a programming error caught at run time
  kInterrupted,   // stopped by a signal (replayer/engine/interrupt.h): cleaned up, exit 128+signal
  kDamaged,       // an input file is damaged or truncated past use (nothing readable in it)
};

std::string_view status_code_name(StatusCode c);  // "ok", "error", "invalid input", ...

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status ok() { return Status(); }
  // An error of kind `code` (kOk is taken as kError: an error is never OK).
  static Status error(std::string msg, StatusCode code = StatusCode::kError) {
    return Status(std::move(msg), code == StatusCode::kOk ? StatusCode::kError : code, 0);
  }
  // An error from a failed system call: the errno is kept, the kind follows
  // from it (EPERM/EACCES: no privilege, ENOENT: not found, EINVAL: invalid
  // input, ENOSYS/EOPNOTSUPP: unsupported, else error).
  static Status from_errno(int err, std::string msg);

  bool is_ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  StatusCode code() const { return code_; }
  int error_number() const { return errno_; }  // 0 unless made by from_errno
  const std::string& message() const { return msg_; }

 private:
  Status(std::string msg, StatusCode code, int err) : msg_(std::move(msg)), code_(code), errno_(err) {
    if (msg_.empty()) msg_ = "unknown error";
  }
  std::string msg_;
  StatusCode code_ = StatusCode::kOk;
  int errno_ = 0;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  // Must be an error: an OK status carries no value. Debug builds abort;
  // release builds turn it into a kInternal error that says so.
  Result(Status st) : v_(refuse_ok(std::move(st))) {}  // NOLINT: implicit by design
  bool is_ok() const { return v_.index() == 0; }
  explicit operator bool() const { return is_ok(); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T& value() const& { return std::get<0>(v_); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& operator*() { return std::get<0>(v_); }
  const T& operator*() const { return std::get<0>(v_); }
  Status status() const { return is_ok() ? Status::ok() : std::get<1>(v_); }
  StatusCode code() const { return is_ok() ? StatusCode::kOk : std::get<1>(v_).code(); }
  const std::string& message() const { return std::get<1>(v_).message(); }

 private:
  static Status refuse_ok(Status st) {
    assert(!st.is_ok() && "Result<T> built from an OK Status");
    if (st.is_ok()) return Status::error("internal error: a result was built from an OK status", StatusCode::kInternal);
    return st;
  }
  std::variant<T, Status> v_;
};

// What FSR_RETURN_IF_ERROR and FSR_ASSIGN_OR_RETURN look at.
inline const Status& status_of(const Status& s) { return s; }
template <typename T>
Status status_of(const Result<T>& r) {
  return r.status();
}

}  // namespace fsr

#define FSR_STATUS_CONCAT_INNER_(a, b) a##b
#define FSR_STATUS_CONCAT_(a, b) FSR_STATUS_CONCAT_INNER_(a, b)

// Returns the error of `expr` (a Status or a Result) from the enclosing
// function (which returns Status or Result<U>); goes on when it is OK.
#define FSR_RETURN_IF_ERROR(expr)                                                                     \
  do {                                                                                                \
    if (::fsr::Status fsr_status_ = ::fsr::status_of(expr); !fsr_status_.is_ok()) return fsr_status_; \
  } while (0)

// `FSR_ASSIGN_OR_RETURN(auto x, f());`: evaluates the Result `f()`, returns
// its error from the enclosing function, else moves its value into `x`.
#define FSR_ASSIGN_OR_RETURN(lhs, expr) FSR_ASSIGN_OR_RETURN_IMPL_(FSR_STATUS_CONCAT_(fsr_result_, __LINE__), lhs, expr)
#define FSR_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp) return tmp.status();                   \
  lhs = std::move(tmp).value()

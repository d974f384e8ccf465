// SPDX-License-Identifier: Apache-2.0
#include "base/status.h"

#include <cerrno>

namespace fsr {

std::string_view status_code_name(StatusCode c) {
  switch (c) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kError:
      return "error";
    case StatusCode::kInvalidInput:
      return "invalid input";
    case StatusCode::kNotFound:
      return "not found";
    case StatusCode::kNoPrivilege:
      return "no privilege";
    case StatusCode::kUnsupported:
      return "unsupported";
    case StatusCode::kInternal:
      return "internal";
    case StatusCode::kInterrupted:
      return "interrupted";
    case StatusCode::kDamaged:
      return "damaged";
  }
  return "error";
}

Status Status::from_errno(int err, std::string msg) {
  StatusCode c = StatusCode::kError;
  switch (err) {
    case EPERM:
    case EACCES:
      c = StatusCode::kNoPrivilege;
      break;
    case ENOENT:
      c = StatusCode::kNotFound;
      break;
    case EINVAL:
      c = StatusCode::kInvalidInput;
      break;
    case ENOSYS:
    case EOPNOTSUPP:
      c = StatusCode::kUnsupported;
      break;
    default:
      break;
  }
  return Status(std::move(msg), c, err);
}

}  // namespace fsr

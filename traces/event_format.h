// SPDX-License-Identifier: Apache-2.0
// One-line text and JSON forms of events, ops and prestate entries, shared by
// `fsreplay dump`, tests and error messages.
#pragma once

#include <string>

#include "traces/event.h"
#include "traces/trace_model.h"
#include "traces/trace_reader.h"

namespace fsr {
std::string format_event(const Event& e, const TraceReader& strings, bool json);
std::string format_op(const OpRecord& o, const TraceReader& strings, bool json);
std::string format_prestate(const PrestateEntry& e, bool json);
std::string errno_name(int64_t ret);  // "ENOENT" for -2, "" for ret >= 0
}  // namespace fsr

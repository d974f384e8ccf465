// SPDX-License-Identifier: Apache-2.0
// Number formatting shared by the text and HTML renderers. Deterministic
// (golden files depend on it): three significant digits, ASCII units.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fsr::fmtx {

std::string ns(uint64_t v);  // "850 ns", "12.3 us", "1.23 ms", "4.56 s"
// A statistic in ns (a median, an interval's end) as a count: clamped to
// 0..UINT64_MAX (NaN is 0), as a cast of a value past the range is undefined.
uint64_t ns_count(double v);
std::string ns_of(double v);                 // ns(ns_count(v))
std::string signed_ns(int64_t v);            // "+1.23 ms", "-850 ns", "0 ns"
std::string ratio(std::optional<double> r);  // "10.0x", "-" when absent
std::string pct(std::optional<double> p);    // "72.4%", "-" when absent
// `s` made printable (base/text_safe.h) and cut to `width` characters,
// keeping its end ("...les/react/lib").
std::string fit_left(std::string_view s, size_t width);

}  // namespace fsr::fmtx

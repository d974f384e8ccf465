// SPDX-License-Identifier: Apache-2.0
#include "report/format.h"

#include <cmath>

#include <fmt/format.h>

#include "base/text_safe.h"

namespace fsr::fmtx {
namespace {
std::string three_digits(double v, const char* unit) {
  if (v >= 99.95) return fmt::format("{:.0f} {}", v, unit);
  if (v >= 9.995) return fmt::format("{:.1f} {}", v, unit);
  return fmt::format("{:.2f} {}", v, unit);
}
}  // namespace

std::string ns(uint64_t v) {
  if (v < 1000) return fmt::format("{} ns", v);
  const double d = double(v);
  if (d < 999.5e3) return three_digits(d / 1e3, "us");
  if (d < 999.5e6) return three_digits(d / 1e6, "ms");
  return three_digits(d / 1e9, "s");
}

std::string signed_ns(int64_t v) {
  if (v == 0) return "0 ns";
  const uint64_t mag = v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
  return (v < 0 ? "-" : "+") + ns(mag);
}

std::string ratio(std::optional<double> r) {
  if (!r) return "-";
  if (*r >= 99.95) return fmt::format("{:.0f}x", *r);
  if (*r >= 9.995) return fmt::format("{:.1f}x", *r);
  return fmt::format("{:.2f}x", *r);
}

std::string pct(std::optional<double> p) {
  if (!p) return "-";
  return fmt::format("{:.1f}%", *p * 100.0);
}

std::string fit_left(std::string_view raw, size_t width) {
  const std::string s = printable(raw);
  // In characters (code points), as fmt pads; the cut never splits one.
  const auto lead = [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; };
  size_t chars = 0;
  for (char c : s) chars += lead(c);
  if (chars <= width) return s;
  const size_t keep = width <= 3 ? width : width - 3;
  size_t at = s.size();
  for (size_t n = 0; n < keep && at > 0;) n += lead(s[--at]);
  return (width <= 3 ? "" : "...") + s.substr(at);
}

uint64_t ns_count(double v) {
  if (!(v > 0)) return 0;
  if (v >= 18446744073709551615.0) return UINT64_MAX;  // (2^64: the first double past the range)
  return static_cast<uint64_t>(v);
}

std::string ns_of(double v) { return ns(ns_count(v)); }

}  // namespace fsr::fmtx

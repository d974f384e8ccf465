// SPDX-License-Identifier: Apache-2.0
#include "cli/cli_util.h"

#include <fmt/core.h>

#include <cctype>
#include <fstream>
#include <iostream>
#include <string>
#include <unistd.h>

namespace fsr::cli {

int fail(std::string_view verb, std::string_view message, int code) {
  fmt::print(stderr, "fsreplay {}: {}\n", verb, message);
  return code;
}

int write_output(std::string_view verb, const std::string& path, std::string_view text) {
  if (path.empty()) {
    std::cout << text << std::flush;
    return std::cout ? kExitOk : fail(verb, "cannot write to stdout");
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) return fail(verb, path + ": cannot write; check the directory exists and is writable");
  return kExitOk;
}

int exit_code_for(const Status& s) {
  switch (s.code()) {
    case StatusCode::kOk:
      return kExitOk;
    case StatusCode::kNoPrivilege:
    case StatusCode::kUnsupported:
      return kExitNoPrivilege;
    case StatusCode::kInvalidInput:
      return kExitUsage;
    case StatusCode::kDamaged:
      return kExitIncomplete;
    default:
      return kExitError;
  }
}

int fail(std::string_view verb, const Status& s) { return fail(verb, s.message(), exit_code_for(s)); }

int fail_input(std::string_view verb, const Status& s) {
  return fail(verb, s.message(), s.code() == StatusCode::kDamaged ? kExitIncomplete : kExitError);
}

bool stderr_is_tty() { return isatty(STDERR_FILENO) == 1; }

std::string human_ns(uint64_t ns) {
  if (ns < 10'000) return fmt::format("{} ns", ns);
  if (ns < 10'000'000) return fmt::format("{:.1f} us", ns / 1e3);
  if (ns < 10'000'000'000ull) return fmt::format("{:.1f} ms", ns / 1e6);
  return fmt::format("{:.2f} s", ns / 1e9);
}

std::string human_bytes(uint64_t b) {
  if (b < 10'240) return fmt::format("{} B", b);
  if (b < 10ull << 20) return fmt::format("{:.1f} KiB", b / 1024.0);
  if (b < 10ull << 30) return fmt::format("{:.1f} MiB", b / 1048576.0);
  return fmt::format("{:.2f} GiB", b / 1073741824.0);
}

bool parse_duration_ns(std::string_view text, uint64_t& ns) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == 0) return false;
  double v = 0;
  try {
    v = std::stod(std::string(text.substr(0, i)));
  } catch (...) {
    return false;
  }
  std::string_view unit = text.substr(i);
  double mult = unit.empty() || unit == "ns" ? 1 : unit == "us" ? 1e3 : unit == "ms" ? 1e6 : unit == "s" ? 1e9 : -1;
  if (mult < 0 || v < 0) return false;
  ns = static_cast<uint64_t>(v * mult);
  return true;
}

}  // namespace fsr::cli

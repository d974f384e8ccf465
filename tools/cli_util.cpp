#include "tools/cli_util.h"

#include <fmt/core.h>
#include <time.h>

#include <cctype>
#include <cstdio>
#include <string>
#include <unistd.h>

namespace fsr::cli {
namespace {
uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}
}  // namespace

bool write_output(std::string_view verb, const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return std::fflush(stdout) == 0;
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (f && std::fclose(f) != 0) ok = false;
  if (!ok) fail(verb, path + ": cannot write; check the directory exists and is writable");
  return ok;
}

int fail(std::string_view verb, std::string_view message, int code) {
  fmt::print(stderr, "fsreplay {}: {}\n", verb, message);
  return code;
}

bool stderr_is_tty() { return isatty(STDERR_FILENO) == 1; }

Progress::Progress(std::string label, uint64_t total)
    : label_(std::move(label)), total_(total), start_ns_(now_ns()), enabled_(stderr_is_tty()) {}

Progress::~Progress() { finish(); }

void Progress::update(uint64_t done) {
  if (!enabled_) return;
  uint64_t t = now_ns();
  if (t - last_draw_ns_ < 100'000'000ull) return;
  last_draw_ns_ = t;
  double secs = static_cast<double>(t - start_ns_) / 1e9;
  double rate = secs > 0 ? static_cast<double>(done) / secs : 0;
  if (total_ > 0 && rate > 0 && done <= total_) {
    double eta = static_cast<double>(total_ - done) / rate;
    fmt::print(stderr, "\r{}: {}/{} ({:.0f}/s, eta {:.0f}s)   ", label_, done, total_, rate, eta);
  } else {
    fmt::print(stderr, "\r{}: {} ({:.0f}/s)   ", label_, done, rate);
  }
  drawn_ = true;
}

void Progress::finish() {
  if (enabled_ && drawn_) fmt::print(stderr, "\r\033[K");
  drawn_ = false;
}

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

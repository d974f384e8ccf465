// SPDX-License-Identifier: Apache-2.0
#include "base/text_safe.h"

#include <cstdint>

namespace fsr {
namespace {

// The length of the valid UTF-8 sequence at s[i] (2-4), or 0.
size_t utf8_len(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t c = b(i);
  size_t n;
  uint32_t cp;
  if (c >= 0xc2 && c <= 0xdf)
    n = 2, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef)
    n = 3, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4)
    n = 4, cp = c & 0x07;
  else
    return 0;
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (b(i + k) & 0x3f);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;  // overlong, beyond Unicode, or a surrogate
  return n;
}

std::string escaped(std::string_view s, bool quotes) {
  static const char* hex = "0123456789abcdef";
  std::string o;
  o.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<uint8_t>(s[i]);
    if (c >= 0x80) {
      if (const size_t n = utf8_len(s, i)) {
        o.append(s.substr(i, n));
        i += n;
        continue;
      }
    } else if (c >= 0x20 && c != 0x7f) {
      if (quotes && (c == '\\' || c == '"')) o += '\\';
      o += static_cast<char>(c);
      ++i;
      continue;
    }
    switch (c) {
      case '\n':
        o += "\\n";
        break;
      case '\t':
        o += "\\t";
        break;
      case '\r':
        o += "\\r";
        break;
      case '\0':
        o += "\\0";
        break;
      default:
        o += "\\x";
        o += hex[c >> 4];
        o += hex[c & 15];
    }
    ++i;
  }
  return o;
}

}  // namespace

std::string escape_c(std::string_view s) { return escaped(s, true); }
std::string printable(std::string_view s) { return escaped(s, false); }

}  // namespace fsr

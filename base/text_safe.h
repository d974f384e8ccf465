// SPDX-License-Identifier: Apache-2.0
// Paths are bytes. A Linux file name holds any byte but '/' and NUL, in
// whatever encoding the program that made it used; a trace keeps them as
// recorded. What prints them must neither break its format with them (a
// newline in a one-line-per-event dump, an escape sequence on a terminal)
// nor refuse them (JSON is UTF-8: nlohmann::json throws on an invalid byte,
// and an uncaught throw aborts the verb).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace fsr {

// For text meant to be read back (`dump`): valid UTF-8 is kept, '\\' and '"'
// are escaped, \n \t \r and \0 as such, every other control byte, DEL and
// each byte outside valid UTF-8 as \xHH. Lossless.
std::string escape_c(std::string_view s);

// For tables a person reads (report, compare, predict): as escape_c but '\\'
// and '"' kept as they are.
std::string printable(std::string_view s);

// nlohmann's dump() with bytes outside valid UTF-8 replaced by U+FFFD
// instead of thrown on. JSON cannot hold them; `dump` (text) shows them.
template <class Json>
std::string json_text(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace fsr

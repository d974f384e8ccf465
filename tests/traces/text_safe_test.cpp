// SPDX-License-Identifier: Apache-2.0
#include "base/text_safe.h"

#include <gtest/gtest.h>

namespace fsr {
namespace {

TEST(TextSafe, EscapeKeepsValidUtf8AndEscapesTheRestLosslessly) {
  EXPECT_EQ(escape_c("src/main.c"), "src/main.c");
  EXPECT_EQ(escape_c("caf\xc3\xa9/\xe6\x97\xa5\xf0\x9f\x98\x80"), "caf\xc3\xa9/\xe6\x97\xa5\xf0\x9f\x98\x80");
  EXPECT_EQ(escape_c("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(escape_c(std::string_view("sh\0-c", 5)), "sh\\0-c");
  EXPECT_EQ(escape_c("q\"b\\s"), "q\\\"b\\\\s");
  EXPECT_EQ(escape_c("\x01\x1b[31m\x7f"), "\\x01\\x1b[31m\\x7f");
  // Bytes outside valid UTF-8: a stray continuation, a lead byte cut short,
  // an overlong form, a surrogate, beyond U+10FFFF.
  EXPECT_EQ(escape_c("d\xff\xfe"), "d\\xff\\xfe");
  EXPECT_EQ(escape_c("\x80x"), "\\x80x");
  EXPECT_EQ(escape_c("\xc3"), "\\xc3");
  EXPECT_EQ(escape_c("\xc0\xaf"), "\\xc0\\xaf");
  EXPECT_EQ(escape_c("\xed\xa0\x80"), "\\xed\\xa0\\x80");
  EXPECT_EQ(escape_c("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
}

TEST(TextSafe, PrintableLeavesQuotesAndBackslashes) {
  EXPECT_EQ(printable("C:\\Users\\\"me\""), "C:\\Users\\\"me\"");
  EXPECT_EQ(printable("a\nb\xff"), "a\\nb\\xff");
}

TEST(TextSafe, JsonOfAnInvalidByteIsReplacedNotThrown) {
  const nlohmann::json j{{"path", "d\xff/f"}};
  EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);  // what json_text is for
  const std::string out = json_text(j);
  EXPECT_EQ(out, "{\"path\":\"d\xef\xbf\xbd/f\"}");
  EXPECT_EQ(nlohmann::json::parse(out)["path"], "d\xef\xbf\xbd/f");
  const nlohmann::ordered_json o{{"a", "\xc3\xa9"}};
  EXPECT_EQ(json_text(o, 2), "{\n  \"a\": \"\xc3\xa9\"\n}");
}

}  // namespace
}  // namespace fsr

#include "reports/text.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace llmconform::reports {
namespace {

TEST(ReadableText, KeepsPrintableTextTabsAndNewlines) {
  EXPECT_EQ(ReadableText("plain\ttext\nnext line"), "plain\ttext\nnext line");
  EXPECT_EQ(ReadableText("介绍林默 \xF0\x9F\x98\x80 é"), "介绍林默 \xF0\x9F\x98\x80 é");
}

TEST(ReadableText, EscapesControlCharacters) {
  EXPECT_EQ(ReadableText("data: x\r\n"), "data: x\\r\n");
  EXPECT_EQ(ReadableText("\x1b[31mred"), "\\u001b[31mred");
  EXPECT_EQ(ReadableText(std::string("a\0b", 3)), "a\\u0000b");
  EXPECT_EQ(ReadableText("\x7f"), "\\u007f");
  EXPECT_EQ(ReadableText("\xC2\x9B"), "\\u009b");      // C1 CSI, which terminals obey
  EXPECT_EQ(ReadableText("\xEF\xBF\xBE"), "\\ufffe");  // not allowed in XML
}

TEST(ReadableText, ReplacesEachIllFormedSequenceAsTextDecoderDoes) {
  EXPECT_EQ(ReadableText("a\xFF"
                         "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(ReadableText("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong '/'
  EXPECT_EQ(ReadableText("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(ReadableText("\xF4\x90\x80\x80").size(), 12u);                          // past U+10FFFF
  EXPECT_EQ(ReadableText("\xE4\xBB"), "\xEF\xBF\xBD");  // truncated: one maximal subpart
}

TEST(ValidUtf8, ReplacesOnlyInvalidBytes) {
  EXPECT_EQ(ValidUtf8("a\r\x1b\xFF"), "a\r\x1b\xEF\xBF\xBD");
}

TEST(HtmlEscape, EscapesMarkupAndQuotes) {
  EXPECT_EQ(HtmlEscape("<script>alert(\"x&y\")</script> it's"),
            "&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt; it&#39;s");
}

TEST(HumanDuration, PicksAUnit) {
  EXPECT_EQ(HumanDuration(0), "0 ms");
  EXPECT_EQ(HumanDuration(0.25), "<1 ms");
  EXPECT_EQ(HumanDuration(0.75), "<1 ms");
  EXPECT_EQ(HumanDuration(1), "1 ms");
  EXPECT_EQ(HumanDuration(12.25), "12 ms");
  EXPECT_EQ(HumanDuration(999.4), "999 ms");
  EXPECT_EQ(HumanDuration(1534.5), "1.53 s");
  EXPECT_EQ(HumanDuration(187000), "3 min 07 s");
  EXPECT_EQ(HumanDuration(-5), "0 ms");
}

// Whatever the bytes, the result is valid UTF-8 with no control character
// but tab and newline, and applying it again changes nothing.
RC_GTEST_PROP(ReadableTextProperties, IsSafeAndIdempotent, (const std::string& bytes)) {
  const std::string once = ReadableText(bytes);
  RC_ASSERT(ValidUtf8(once) == once);
  for (unsigned char c : once) RC_ASSERT(c >= 0x20 || c == '\t' || c == '\n');
  RC_ASSERT(ReadableText(once) == once);
}

}  // namespace
}  // namespace llmconform::reports

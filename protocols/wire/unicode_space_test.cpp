#include "protocols/wire/unicode_space.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>

namespace llmconform::wire {
namespace {

TEST(UnicodeSpace, EveryWhiteSpaceCharacterAndTheBom) {
  for (std::string_view s :
       {"\t", "\n", "\v", "\f", "\r", " ", "\u0085", "\u00a0", "\u1680", "\u2000", "\u2005",
        "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff"}) {
    EXPECT_EQ(UnicodeSpaceAt(s, 0), s.size()) << s;
    EXPECT_EQ(UnicodeSpaceBefore(s, s.size()), s.size()) << s;
    EXPECT_TRUE(IsAllUnicodeSpace(s)) << s;
  }
}

TEST(UnicodeSpace, LookAlikesAreNotWhiteSpace) {
  // U+200B ZERO WIDTH SPACE, U+180E, U+00AD, Cyrillic and CJK letters, a C1 control.
  for (std::string_view s : {"\u200b", "\u180e", "\u00ad", "\u0436", "\u4e2d", "\u009b", "x"}) {
    EXPECT_EQ(UnicodeSpaceAt(s, 0), 0u) << s;
    EXPECT_EQ(UnicodeSpaceBefore(s, s.size()), 0u) << s;
  }
}

TEST(UnicodeSpace, InvalidBytesAreNeverWhiteSpace) {
  const std::string cut_nbsp = "\xc2";             // NBSP cut short
  const std::string cut_ideographic = "\xe3\x80";  // U+3000 cut short
  const std::string bad = "\xe3\x80\x20";          // not a continuation byte
  EXPECT_EQ(UnicodeSpaceAt(cut_nbsp, 0), 0u);
  EXPECT_EQ(UnicodeSpaceAt(cut_ideographic, 0), 0u);
  EXPECT_EQ(UnicodeSpaceAt(bad, 0), 0u);
  EXPECT_EQ(TrimUnicodeSpace(bad), "\xe3\x80");
  EXPECT_EQ(TrimUnicodeSpace("\xa0\xa0"), "\xa0\xa0");  // continuation bytes alone
}

TEST(UnicodeSpace, TrimsBothEnds) {
  EXPECT_EQ(TrimUnicodeSpace("\ufeff[DONE] Готово!"), "[DONE] Готово!");
  EXPECT_EQ(TrimUnicodeSpace("\u00a0ls -la\u3000\r\n"), "ls -la");
  EXPECT_EQ(TrimUnicodeSpace("\u3000"), "");
  EXPECT_EQ(TrimUnicodeSpace("a\u00a0b"), "a\u00a0b");
  EXPECT_EQ(TrimUnicodeSpaceLeft(" \u2028a "), "a ");
  EXPECT_EQ(TrimUnicodeSpaceRight(" a\u2029 "), " a");
}

// Trimming keeps the text between the first and the last non-space
// character byte for byte, and trimming again changes nothing.
RC_GTEST_PROP(UnicodeSpace, TrimIsAnIdempotentInfix, ()) {
  const auto pieces = *rc::gen::container<std::vector<std::string>>(
      rc::gen::element<std::string>(" ", "\u00a0", "\u3000", "\ufeff", "\u2009", "\xc2", "\xe3\x80",
                                    "\x80", "a", "\u4e2d", "\n"));
  std::string text;
  for (const auto& p : pieces) text += p;
  const std::string_view t = TrimUnicodeSpace(text);
  RC_ASSERT(TrimUnicodeSpace(t) == t);
  RC_ASSERT(std::string_view(text).find(t) != std::string_view::npos);
  RC_ASSERT(t.empty() || (UnicodeSpaceAt(t, 0) == 0 && UnicodeSpaceBefore(t, t.size()) == 0));
}

}  // namespace
}  // namespace llmconform::wire

#include "base/utf8.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace llmconform {
namespace {

constexpr std::string_view kFffd = "\xEF\xBF\xBD";

std::string Replaced(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += kFffd;
  return s;
}

TEST(Utf8, ValidTextIsUnchanged) {
  for (std::string_view s : {"", "ascii", "caf\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80"}) {
    EXPECT_TRUE(IsValidUtf8(s)) << s;
    EXPECT_EQ(ToValidUtf8(s), s);
  }
}

// The cases of the WHATWG Encoding Standard / Unicode §3.9 table 3-8.
TEST(Utf8, ReplacesMaximalSubpartsAsTextDecoderDoes) {
  EXPECT_EQ(ToValidUtf8("a\xE2\x82"), "a" + Replaced(1));  // truncated 3-byte: one
  EXPECT_EQ(ToValidUtf8("\xE2\x82z"), Replaced(1) + "z");
  EXPECT_EQ(ToValidUtf8("\xF0\x9F\x98"), Replaced(1));      // truncated 4-byte: one
  EXPECT_EQ(ToValidUtf8("\x80\x80"), Replaced(2));          // stray continuations
  EXPECT_EQ(ToValidUtf8("\xC0\xAF"), Replaced(2));          // overlong lead
  EXPECT_EQ(ToValidUtf8("\xE0\x80\xAF"), Replaced(3));      // overlong 3-byte
  EXPECT_EQ(ToValidUtf8("\xED\xA0\x80"), Replaced(3));      // surrogate
  EXPECT_EQ(ToValidUtf8("\xF4\x90\x80\x80"), Replaced(4));  // past U+10FFFF
  EXPECT_EQ(ToValidUtf8("\xF5"), Replaced(1));
  EXPECT_EQ(ToValidUtf8("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64"),
            "a" + Replaced(3) + "b" + Replaced(1) + "c" + Replaced(2) + "d");
}

TEST(Utf8, DecodesAndFindsTheFirstInvalidByte) {
  char32_t cp = 0;
  EXPECT_EQ(DecodeUtf8("\xE2\x82\xAC", 0, cp), 3u);
  EXPECT_EQ(cp, U'\u20AC');
  EXPECT_EQ(DecodeUtf8("\xE2\x82", 0, cp), 0u);
  EXPECT_EQ(MaximalSubpart("\xE2\x82", 0), 2u);
  EXPECT_EQ(FirstInvalidUtf8("ab\xFF"), 2u);
  EXPECT_EQ(FirstInvalidUtf8("ab"), std::nullopt);
}

TEST(Utf8, PrefixNeverCutsASequence) {
  const std::string s = "a中b";  // a, 3 bytes, b
  EXPECT_EQ(Utf8Prefix(s, 0), 0u);
  EXPECT_EQ(Utf8Prefix(s, 1), 1u);
  EXPECT_EQ(Utf8Prefix(s, 2), 1u);
  EXPECT_EQ(Utf8Prefix(s, 3), 1u);
  EXPECT_EQ(Utf8Prefix(s, 4), 4u);
  EXPECT_EQ(Utf8Prefix(s, 99), 5u);
  EXPECT_EQ(CountCodePoints("a中b"), 3u);
  EXPECT_EQ(CountCodePoints("a\xff"), 2u);
}

RC_GTEST_PROP(Utf8Properties, PrefixOfValidTextIsValid, (const std::string& raw, unsigned cut)) {
  const std::string text = ToValidUtf8(raw);
  const std::size_t n = Utf8Prefix(text, cut % (text.size() + 1));
  RC_ASSERT(n <= text.size());
  RC_ASSERT(IsValidUtf8(text.substr(0, n)));
}

RC_GTEST_PROP(Utf8Properties, ReplacementIsValidIdempotentAndKeepsValidText, (std::string bytes)) {
  const std::string fixed = ToValidUtf8(bytes);
  RC_ASSERT(IsValidUtf8(fixed));
  RC_ASSERT(ToValidUtf8(fixed) == fixed);
  if (IsValidUtf8(bytes)) RC_ASSERT(fixed == bytes);
  std::string encoded;
  char32_t cp = 0;
  for (std::size_t i = 0; i < fixed.size();) {
    const std::size_t n = DecodeUtf8(fixed, i, cp);
    RC_ASSERT(n > 0u);
    AppendUtf8(encoded, cp);
    i += n;
  }
  RC_ASSERT(encoded == fixed);
}

TEST(IsValidUtf8, AcceptsWellFormedText) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("Открываю Safari."));
  EXPECT_TRUE(IsValidUtf8("\xF0\x9F\x98\x80"));  // U+1F600
  EXPECT_TRUE(IsValidUtf8("\xF4\x8F\xBF\xBF"));  // U+10FFFF
  EXPECT_TRUE(IsValidUtf8("\xEE\x80\x80"));      // U+E000, just past the surrogates
}

TEST(IsValidUtf8, RejectsIllFormedText) {
  EXPECT_FALSE(IsValidUtf8("\xFF"));
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xE0\x80\xAF"));      // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));      // U+D800, a surrogate
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xD0"));              // truncated
  EXPECT_FALSE(IsValidUtf8("a\x80z"));            // stray continuation byte
}

// Text made of valid characters of every length and of ill-formed sequences,
// in runs long enough for the SIMD check's blocks.
rc::Gen<std::string> MixedUtf8() {
  return rc::gen::map(
      rc::gen::container<std::vector<std::string>>(rc::gen::oneOf(
          rc::gen::element<std::string>("a", "\xC3\xA9", "\xE4\xB8\xAD", "\xF0\x9F\x98\x80",
                                        "\xEF\xBF\xBF", "\xF4\x8F\xBF\xBF", "\x80", "\xC0\xAF",
                                        "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xE4\xB8", "\xFF"),
          rc::gen::map(rc::gen::inRange<std::size_t>(0, 200),
                       [](std::size_t n) { return std::string(n, 'x'); }))),
      [](const std::vector<std::string>& parts) {
        std::string s;
        for (const auto& p : parts) s += p;
        return s;
      });
}

// FirstInvalidUtf8 is where a walk of DecodeUtf8 first fails.
RC_GTEST_PROP(Utf8Properties, FirstInvalidIsWhereDecodingFails, ()) {
  const std::string s = *MixedUtf8();
  std::optional<std::size_t> expected;
  char32_t cp = 0;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = DecodeUtf8(s, i, cp);
    if (n == 0) {
      expected = i;
      break;
    }
    i += n;
  }
  RC_ASSERT(FirstInvalidUtf8(s) == expected);
}

// The validator agrees with what nlohmann::json can serialise.
RC_GTEST_PROP(IsValidUtf8Properties, AgreesWithNlohmann, (const std::string& s)) {
  bool serialises = true;
  try {
    (void)nlohmann::json(s).dump();
  } catch (const nlohmann::json::type_error&) {
    serialises = false;
  }
  RC_ASSERT(IsValidUtf8(s) == serialises);
}

TEST(Utf8, DecodesValidSequencesAndRejectsMalformedOnes) {
  char32_t cp = 0;
  EXPECT_EQ(DecodeUtf8("a", 0, cp), 1u);
  EXPECT_EQ(cp, U'a');
  EXPECT_EQ(DecodeUtf8("\xE4\xB8\xAD", 0, cp), 3u);  // 中
  EXPECT_EQ(cp, U'中');
  EXPECT_EQ(DecodeUtf8("\xF0\x9F\x98\x80", 0, cp), 4u);
  EXPECT_EQ(cp, U'\U0001F600');
  EXPECT_EQ(DecodeUtf8("\xC0\xAF", 0, cp), 0u);          // overlong
  EXPECT_EQ(DecodeUtf8("\xED\xA0\x80", 0, cp), 0u);      // surrogate
  EXPECT_EQ(DecodeUtf8("\xE4\xB8", 0, cp), 0u);          // truncated
  EXPECT_EQ(DecodeUtf8("\x80", 0, cp), 0u);              // lone continuation
  EXPECT_EQ(DecodeUtf8("\xF4\x90\x80\x80", 0, cp), 0u);  // above U+10FFFF
}

TEST(Utf8, CountsCodePoints) {
  EXPECT_EQ(CountCodePoints(""), 0u);
  EXPECT_EQ(CountCodePoints("abc"), 3u);
  EXPECT_EQ(CountCodePoints("三分化训练"), 5u);
  EXPECT_EQ(OffsetOfCodePoint("a中b", 2), 4u);
  EXPECT_EQ(OffsetOfCodePoint("a中b", 3), 5u);
  EXPECT_EQ(OffsetOfCodePoint("a中b", 9), 5u);
}

TEST(Utf8, ATruncatedSequenceIsOneReplacement) {
  EXPECT_EQ(ToValidUtf8("ok 中"), "ok 中");
  EXPECT_EQ(ToValidUtf8("a\xFF"
                        "b\xE4\xB8"),
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD");  // was two U+FFFD for the cut 中 before base/utf8
}

}  // namespace
}  // namespace llmconform

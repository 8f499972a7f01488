#include "protocols/action/json_text.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace llmconform::action {
namespace {

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

TEST(QuoteJson, EscapesAndNeverThrows) {
  EXPECT_EQ(QuoteJson("a\"b\n"), "\"a\\\"b\\n\"");
  EXPECT_EQ(QuoteJson("10:30 https://x.y/a"), "\"10:30 https://x.y/a\"");
  EXPECT_EQ(QuoteJson("a\xFFz"), "\"a\xEF\xBF\xBDz\"");
}

TEST(TypeName, NamesWhatWasFound) {
  EXPECT_EQ(TypeName(nlohmann::ordered_json(3)), "a number");
  EXPECT_EQ(TypeName(nlohmann::ordered_json::array()), "an array");
  EXPECT_EQ(TypeName(nlohmann::ordered_json()), "null");
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

}  // namespace
}  // namespace llmconform::action

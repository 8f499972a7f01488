#include "protocols/action/json_spelling.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace llmconform::action {
namespace {

TEST(SpelledJsonAt, KeepsNumberSpellings) {
  const std::string_view t =
      R"( { "a" : 1.50 , "args" : { "n" : 12345678901234567890123, "z": [ -0, 1e2, 1E-7, 7 ] } } )";
  EXPECT_EQ(SpelledJsonAt(t, {"a"}), "1.50");
  EXPECT_EQ(SpelledJsonAt(t, {"args"}), R"({"n":12345678901234567890123,"z":[-0,1e2,1E-7,7]})");
  EXPECT_EQ(SpelledJsonAt(t, {"args", "z"}), "[-0,1e2,1E-7,7]");
  EXPECT_EQ(SpelledJsonAt(t, {}),
            R"({"a":1.50,"args":{"n":12345678901234567890123,"z":[-0,1e2,1E-7,7]}})");
  EXPECT_EQ(SpelledJsonAt(t, {"n"}), std::nullopt);
  EXPECT_EQ(SpelledJsonAt(t, {"a", "b"}), std::nullopt);
  EXPECT_EQ(SpelledJsonAt("{", {}), std::nullopt);
  EXPECT_EQ(SpelledJsonAt("1E400", {}), std::nullopt);  // nlohmann refuses the overflow
}

TEST(SpelledJsonAt, OtherwiseAsOrderedJsonWritesIt) {
  // A repeated key keeps its first place and its last value; strings re-escaped.
  EXPECT_EQ(SpelledJsonAt(R"({"b":1,"a":2,"b":3.0})", {}), R"({"b":3.0,"a":2})");
  EXPECT_EQ(SpelledJsonAt(R"({"s":"\u0078\/é\n"})", {}), R"({"s":"x/é\n"})");
  EXPECT_EQ(SpelledJsonAt(R"([true,false,null,"",{},[]])", {}), R"([true,false,null,"",{},[]])");
  std::string deep(kMaxSpelledDepth + 1, '[');
  deep += std::string(kMaxSpelledDepth + 1, ']');
  EXPECT_EQ(SpelledJsonAt(deep, {}), std::nullopt);
}

TEST(SameJsonSpelling, NumbersCompareBySpelling) {
  EXPECT_TRUE(SameJsonSpelling(R"({"n":12345678901234567890123,"a":"x"})",
                               R"({ "a" : "\u0078", "n" : 12345678901234567890123 })"));
  EXPECT_FALSE(
      SameJsonSpelling(R"({"n":12345678901234567890123})", R"({"n":1.2345678901234568e+22})"));
  EXPECT_FALSE(SameJsonSpelling(R"({"n":1.0})", R"({"n":1})"));
  EXPECT_FALSE(SameJsonSpelling(R"({"n":-0})", R"({"n":0})"));
  EXPECT_FALSE(SameJsonSpelling(R"([1e2])", R"([100])"));
  EXPECT_TRUE(SameJsonSpelling(R"([-5, 18446744073709551615])", R"([-5,18446744073709551615])"));
  EXPECT_FALSE(SameJsonSpelling("{", "{"));
}

// An object of numbers in any layout: the spelled text is the compact text,
// and it is the same value as the original.
RC_GTEST_PROP(JsonSpelling, NumbersSurviveAnyLayout, ()) {
  const auto numbers = *rc::gen::container<std::vector<std::string>>(rc::gen::element<std::string>(
      "0", "-0", "1.50", "1e2", "-1E-2", "12345678901234567890123", "18446744073709551616",
      "-9223372036854775809", "7", "0.1000000000000000055511151231257827"));
  const auto space = *rc::gen::element<std::string>("", " ", "\n\t", "  ");
  std::string text = "{" + space, plain = "{";
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    const std::string key = "\"k" + std::to_string(i) + "\"";
    const std::string comma = i + 1 < numbers.size() ? "," : "";
    text += key + space + ":" + space + "[" + numbers[i] + space + "]" + space + comma + space;
    plain += key + ":[" + numbers[i] + "]" + comma;
  }
  text += "}";
  plain += "}";
  RC_ASSERT(SpelledJsonAt(text, {}) == std::optional<std::string>(plain));
  RC_ASSERT(SameJsonSpelling(text, plain));
}

}  // namespace
}  // namespace llmconform::action

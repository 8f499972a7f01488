#include "protocols/action/json_text.h"

#include <gtest/gtest.h>

namespace llmconform::action {
namespace {

TEST(QuoteJson, EscapesAndNeverThrows) {
  EXPECT_EQ(QuoteJson("a\"b\n"), "\"a\\\"b\\n\"");
  EXPECT_EQ(QuoteJson("10:30 https://x.y/a"), "\"10:30 https://x.y/a\"");
  EXPECT_EQ(QuoteJson("a\xFFz"), "\"a\xEF\xBF\xBDz\"");
}

TEST(TypeName, NamesWhatWasFound) {
  EXPECT_EQ(JsonTypeNameWithArticle(nlohmann::ordered_json(3)), "a number");
  EXPECT_EQ(JsonTypeNameWithArticle(nlohmann::ordered_json::array()), "an array");
  EXPECT_EQ(JsonTypeNameWithArticle(nlohmann::ordered_json()), "null");
}

}  // namespace
}  // namespace llmconform::action

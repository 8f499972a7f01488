#include "harness/oracle.h"

#include <gtest/gtest.h>

#include <sstream>

namespace llmconform::harness {
namespace {

struct Call {
  int code;
  std::string out, err;
};

Call CallOracle(std::string_view op, const std::string& input) {
  std::istringstream in(input);
  std::ostringstream out, err;
  const int code = RunOracle(op, in, out, err);
  return {code, out.str(), err.str()};
}

TEST(Oracle, TableIsSortedAndUnique) {
  auto ops = OracleOperations();
  ASSERT_FALSE(ops.empty());
  for (std::size_t i = 1; i < ops.size(); ++i) EXPECT_LT(ops[i - 1].name, ops[i].name);
  EXPECT_NE(FindOracleOperation("multiturn.buildLLMMessages"), nullptr);
}

TEST(Oracle, BuildLLMMessagesOnCjkEmojiAndNegativeBudget) {
  auto c = CallOracle("multiturn.buildLLMMessages",
               R"({"systemPrompt":"","history":[{"role":"user","content":"😀"}],"currentUserMessage":"你好",
                   "maxTokenBudget":-3})");
  EXPECT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(c.out, "{\"messages\":[{\"content\":\"\",\"role\":\"system\"},{\"content\":\"你好\",\"role\":\"user\"}]}\n");
}

TEST(Oracle, EstimateTokens) {
  EXPECT_EQ(CallOracle("multiturn.estimateMessageTokens", R"({"text":"介绍林默"})").out, "{\"tokens\":3}\n");
  EXPECT_EQ(CallOracle("multiturn.estimateMessageTokens", R"({"text":""})").out, "{\"tokens\":0}\n");
}

TEST(Oracle, SseParseWithSplits) {
  auto c = CallOracle("sse.parse", R"({"stream":"id: 1\r\ndata: a\r\n\r\nretry: 10\n","splits":[5,13,14]})");
  EXPECT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(c.out, "{\"events\":[{\"data\":\"a\",\"event\":\"message\",\"id\":\"1\"}],\"retry\":10}\n");
}

TEST(Oracle, MalformedInputExitsTwoWithAJsonError) {
  auto c = CallOracle("multiturn.estimateMessageTokens", "{\"text\": ");
  EXPECT_EQ(c.code, 2);
  EXPECT_TRUE(c.out.empty());
  auto err = nlohmann::json::parse(c.err);
  EXPECT_EQ(err["error"].get<std::string>().rfind("stdin:1:", 0), 0u) << c.err;

  auto wrong = CallOracle("multiturn.estimateMessageTokens", R"({"text": 5})");
  EXPECT_EQ(wrong.code, 2);
  EXPECT_EQ(nlohmann::json::parse(wrong.err)["error"],
            "multiturn.estimateMessageTokens: field \"text\": expected string, got number");

  auto unknown = CallOracle("nope.op", "{}");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_EQ(nlohmann::json::parse(unknown.err)["error"],
            "unknown operation \"nope.op\"; `llmconform ref --list` lists them");
}

TEST(Oracle, ForeignHistoryRoleIsAnInputError) {
  auto c = CallOracle("multiturn.buildLLMMessages",
               R"({"systemPrompt":"s","history":[{"role":"tool","content":"x"}],"currentUserMessage":"u","maxTokenBudget":9})");
  // PROTOCOLS.md: a history role other than user/assistant is an input error.
  EXPECT_EQ(c.code, 2);
  EXPECT_NE(c.err.find("history[0].role"), std::string::npos);
}

}  // namespace
}  // namespace llmconform::harness

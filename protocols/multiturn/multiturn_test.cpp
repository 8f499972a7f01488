#include "protocols/multiturn/multiturn.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace llmconform::multiturn {
namespace {

TEST(EstimateMessageTokens, FollowsTheSeedFormula) {
  EXPECT_EQ(EstimateMessageTokens(""), 0);
  EXPECT_EQ(EstimateMessageTokens("a"), 1);
  EXPECT_EQ(EstimateMessageTokens("abcd"), 1);
  EXPECT_EQ(EstimateMessageTokens("abcde"), 2);
  EXPECT_EQ(EstimateMessageTokens("介绍林默"), 3);          // 12 UTF-8 bytes
  EXPECT_EQ(EstimateMessageTokens("\xF0\x9F\x98\x80"), 1);  // one emoji, 4 bytes
}

TEST(BuildLLMMessages, S1StandardAssembly) {
  const BuildArgs r_args{"<identity>AI</identity>",
                         {{"user", "介绍林默"}, {"assistant", "林默是28岁侦探"}},
                         "他的性格？",
                         10000};
  auto r = BuildLLMMessages(r_args);
  ASSERT_TRUE(r);
  EXPECT_EQ(ToMessages(*r), (std::vector<Message>{{"system", "<identity>AI</identity>"},
                                                  {"user", "介绍林默"},
                                                  {"assistant", "林默是28岁侦探"},
                                                  {"user", "他的性格？"}}));
}

TEST(BuildLLMMessages, S2TrimsOldestHistory) {
  const BuildArgs args{
      "S",
      {{"user", "AAAA"}, {"assistant", "BBBB"}, {"user", "CCCC"}, {"assistant", "DDDD"}},
      "E",
      4};
  auto r = BuildLLMMessages(args);
  ASSERT_TRUE(r);
  EXPECT_EQ(ToMessages(*r),
            (std::vector<Message>{
                {"system", "S"}, {"user", "CCCC"}, {"assistant", "DDDD"}, {"user", "E"}}));
}

TEST(BuildLLMMessages, S3EmptyHistory) {
  const BuildArgs r_args{"system text", {}, "你好", 10000};
  auto r = BuildLLMMessages(r_args);
  ASSERT_TRUE(r);
  EXPECT_EQ(ToMessages(*r), (std::vector<Message>{{"system", "system text"}, {"user", "你好"}}));
}

TEST(BuildLLMMessages, ForcedWhenSystemAndCurrentExceedBudget) {
  const BuildArgs r_args{std::string(400, 's'), {{"user", "h"}}, std::string(200, 'c'), 10};
  auto r = BuildLLMMessages(r_args);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->messages.size(), 2u);
  const BuildArgs neg_args{"", {{"user", ""}}, "", -5};
  auto neg = BuildLLMMessages(neg_args);
  ASSERT_TRUE(neg);
  EXPECT_EQ(neg->messages.size(), 2u);  // nothing fits a negative budget, not even an empty message
}

TEST(BuildLLMMessages, RejectsForeignRoles) {
  const BuildArgs r_args{"s", {{"user", "a"}, {"tool", "b"}}, "c", 100};
  auto r = BuildLLMMessages(r_args);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "/history/1/role: expected \"user\" or \"assistant\", got \"tool\"");
}

RC_GTEST_PROP(BuildLLMMessagesProperties, KeepsTheMaximalNewestRunWithinBudget, ()) {
  const auto role = rc::gen::element<std::string>("user", "assistant");
  const auto history = *rc::gen::container<std::vector<Message>>(
      rc::gen::build<Message>(rc::gen::set(&Message::role, role),
                              rc::gen::set(&Message::content, rc::gen::arbitrary<std::string>())));
  const auto system = *rc::gen::arbitrary<std::string>();
  const auto current = *rc::gen::arbitrary<std::string>();
  const auto budget = *rc::gen::inRange<std::int64_t>(-10, 400);
  const BuildArgs r_args{system, history, current, budget};
  auto r = BuildLLMMessages(r_args);
  RC_ASSERT(r.has_value());
  const auto out = ToMessages(*r);
  RC_ASSERT(out.size() >= 2u);
  RC_ASSERT(out.front() == (Message{"system", system}));
  RC_ASSERT(out.back() == (Message{"user", current}));
  const std::size_t kept = out.size() - 2;
  // The kept history is the newest contiguous run.
  for (std::size_t i = 0; i < kept; ++i)
    RC_ASSERT(out[1 + i] == history[history.size() - kept + i]);
  std::int64_t total = EstimateMessageTokens(system) + EstimateMessageTokens(current);
  for (std::size_t i = 1; i + 1 < out.size(); ++i) total += EstimateMessageTokens(out[i].content);
  // The result is a view of the args: the kept run is a span of the history.
  RC_ASSERT(r->first_kept == history.size() - kept);
  RC_ASSERT(r->messages.size() == kept + 2);
  // Views, not copies: each kept message's text is the args' own.
  for (std::size_t i = 0; i < kept; ++i)
    RC_ASSERT(r->messages[i + 1].content.data() ==
              r_args.history[r->first_kept + i].content.data());
  RC_ASSERT(r->total_tokens == total);
  // Within budget unless forced (nothing kept) ...
  if (kept > 0) RC_ASSERT(total <= budget);
  // ... and maximal: one more message would not fit.
  if (kept < history.size()) {
    RC_ASSERT(total + EstimateMessageTokens(history[history.size() - kept - 1].content) > budget);
  }
}

}  // namespace
}  // namespace llmconform::multiturn

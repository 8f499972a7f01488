#include "protocols/skill/chat_client.h"

#include <gtest/gtest.h>

namespace llmconform::skill {
namespace {

using namespace std::chrono_literals;

// Records what is posted and answers with a prepared response.
class FakeTransport : public wire::ChatTransport {
 public:
  std::expected<wire::HttpResponse, Error> answer;
  std::string path;
  std::string body;
  std::chrono::milliseconds timeout{0};

  std::expected<wire::HttpResponse, Error> PostJson(
      std::string_view p, const std::string& b, std::chrono::milliseconds t,
      const std::function<bool(std::string_view)>&) override {
    path = p;
    body = b;
    timeout = t;
    return answer;
  }
};

wire::HttpResponse Http(int status, std::string body) {
  return {status, {{"content-type", "application/json"}}, std::move(body)};
}

// Seed 000 §1 and §6, step 1.
TEST(SkillChatClient, PostsTheSeedRequest) {
  FakeTransport t;
  t.answer = Http(
      200,
      R"({"choices":[{"index":0,"message":{"role":"assistant","content":"[CMD] git status --porcelain"},"finish_reason":"stop"}]})");
  SkillChatClient client(t, ChatOptions{});
  auto reply = client.Complete(
      {{"system", "S"}, {"user", "Execute skill: git-quick-commit\n\n[Step 1 of 100]"}});
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(*reply, "[CMD] git status --porcelain");
  EXPECT_EQ(t.path, "/chat/completions");
  EXPECT_EQ(t.timeout, 30000ms);
  EXPECT_EQ(
      t.body,
      R"({"model":"CHEAP","messages":[{"role":"system","content":"S"},{"role":"user","content":"Execute skill: git-quick-commit\n\n[Step 1 of 100]"}],"temperature":0.3,"max_tokens":512})");
}

TEST(SkillChatClient, OptionsReachTheRequest) {
  FakeTransport t;
  t.answer = Http(200, R"({"choices":[{"message":{"content":"[DONE]"}}]})");
  SkillChatClient client(t, ChatOptions{"gpt-4o-mini", 0.3, 512, 1500ms});
  ASSERT_TRUE(client.Complete({{"system", "S"}}));
  EXPECT_EQ(t.timeout, 1500ms);
  EXPECT_EQ(
      t.body,
      R"({"model":"gpt-4o-mini","messages":[{"role":"system","content":"S"}],"temperature":0.3,"max_tokens":512})");
}

TEST(SkillChatClient, TransportErrorsPassThrough) {
  FakeTransport t;
  t.answer = std::unexpected(
      Error{"POST http://127.0.0.1:1/v1/chat/completions: timed out after 30000 ms"});
  SkillChatClient client(t, ChatOptions{});
  EXPECT_EQ(client.Complete({}).error().message,
            "POST http://127.0.0.1:1/v1/chat/completions: timed out after 30000 ms");
}

TEST(ReplyFromAnswer, AContentArrayRepliesWithItsTextNotItsThinking) {
  // Mistral's reasoning models (docs/protocols.md "Mistral").
  EXPECT_EQ(*ReplyFromAnswer(Http(200, R"({"choices":[{"message":{"content":[
      {"type":"thinking","thinking":[{"type":"text","text":"hmm"}]},
      {"type":"text","text":"[DONE]"}]}}]})")),
            "[DONE]");
  EXPECT_EQ(ReplyFromAnswer(Http(200, R"({"choices":[{"message":{"content":[
      {"type":"thinking","thinking":"only thinking"}]}}]})"))
                .error()
                .message,
            "LLM answer has no choices[0].message.content");
}

TEST(ReplyFromAnswer, ErrorsAreNotReplies) {
  EXPECT_EQ(
      ReplyFromAnswer(
          Http(
              500,
              R"({"error":{"message":"upstream exploded","type":"server_error","param":null,"code":null}})"))
          .error()
          .message,
      "LLM answered HTTP 500: upstream exploded");
  EXPECT_EQ(ReplyFromAnswer(Http(502, "Bad Gateway")).error().message,
            "LLM answered HTTP 502: Bad Gateway");
  EXPECT_EQ(ReplyFromAnswer(Http(200, R"({"error":{"message":"quota"}})")).error().message,
            "LLM answer holds an error: quota");
  EXPECT_EQ(ReplyFromAnswer(Http(200, R"({"choices":[]})")).error().message,
            "LLM answer has no choices[0].message.content");
  EXPECT_EQ(
      ReplyFromAnswer(Http(200, R"({"choices":[{"message":{"content":null}}]})")).error().message,
      "LLM answer has no choices[0].message.content");
  EXPECT_EQ(
      ReplyFromAnswer(Http(200, R"({"choices":[{"message":{"content":""}}]})")).error().message,
      "LLM answer has no choices[0].message.content");
  EXPECT_EQ(ReplyFromAnswer(Http(200, "not json")).error().message,
            "LLM answer is not JSON: line 1, column 2: "
            "syntax error while parsing value - invalid literal; last read: 'no'");
  EXPECT_EQ(ReplyFromAnswer(Http(200, R"({"choices":1e999})")).error().message,
            "LLM answer is not JSON: line 1, column 12: number 1e999 is out of range (beyond "
            "±1.8e308)");
  EXPECT_EQ(ReplyFromAnswer(Http(200, std::string(100000, '['))).error().message,
            "LLM answer is not JSON: line 1, column 513: arrays and objects nest deeper than 512 "
            "levels");
}

}  // namespace
}  // namespace llmconform::skill

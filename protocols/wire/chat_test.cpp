#include "protocols/wire/chat.h"

#include <gtest/gtest.h>

#include "protocols/wire/stream_accumulator.h"

namespace llmconform::wire {
namespace {

TEST(Chat, MessageRoundTripKeepsUnknownFields) {
  const Json j = Json::parse(R"({"role":"assistant","content":null,"reasoning_content":"think",
    "tool_calls":[{"id":"call_1","type":"function","function":{"name":"fs_read","arguments":"{}"},
    "extra_content":{"google":{"thought_signature":"sig"}}}],"refusal":null,"audio":{"id":"a"}})");
  auto m = MessageFromJson(j);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->reasoning_content, "think");
  ASSERT_EQ(m->tool_calls.size(), 1u);
  EXPECT_EQ(m->tool_calls[0].function.name, "fs_read");
  EXPECT_EQ(ToJson(*m), j);
}

TEST(Chat, WrongTypeNamesThePointer) {
  auto r = RequestFromJson(Json::parse(R"({"model":"m","messages":[{"role":"user","content":"x"},
    {"role":"assistant","tool_calls":[{"id":"c","function":{"name":5}}]}]})"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message,
            "/messages/1/tool_calls/0/function/name: expected string, got number");
  EXPECT_EQ(RequestFromJson(Json::parse(R"({"model":"m"})")).error().message,
            "/messages: required field missing");
}

TEST(Chat, RequestAndResponseRoundTrip) {
  const Json req = Json::parse(R"({"model":"CHEAP","messages":[{"role":"system","content":"s"}],
    "temperature":0.3,"max_tokens":512,"stream":false,"stream_options":{"include_usage":true}})");
  auto r = RequestFromJson(req);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->temperature, 0.3);
  EXPECT_EQ(r->max_tokens, 512);
  EXPECT_EQ(ToJson(*r), req);
  const Json resp = Json::parse(R"({"id":"x","object":"chat.completion","created":1,"model":"m",
    "choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop",
    "content_filter_results":{}}],"usage":{"total_tokens":3},"system_fingerprint":"fp"})");
  auto p = ResponseFromJson(resp);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->choices[0].message.Text(), "hi");
  EXPECT_EQ(ToJson(*p), resp);
}

TEST(Chat, FieldsOfAnotherTypeAreReadAsAbsentNotThrown) {
  // A flat error body whose "object" is null is not an "error" object; no throw.
  EXPECT_FALSE(ErrorBodyFromJson(Json::parse(R"({"message":"x","object":null})")));
  EXPECT_TRUE(ErrorBodyFromJson(Json::parse(R"({"message":"x","object":null,"code":1})")));
  const auto acc = AccumulateStream("data: {\"message\":\"x\",\"object\":7}\n\n");
  EXPECT_FALSE(acc.error);
}

TEST(Chat, ErrorBodiesInEveryDialect) {
  auto openai = ErrorBodyFromJson(
      Json::parse(R"({"error":{"message":"m","type":"t","param":null,"code":"c"}})"));
  ASSERT_TRUE(openai);
  EXPECT_EQ(openai->message, "m");
  EXPECT_EQ(openai->code, "c");
  auto vllm = ErrorBodyFromJson(
      Json::parse(R"({"object":"error","message":"bad","type":"BadRequestError","code":400})"));
  ASSERT_TRUE(vllm);
  EXPECT_EQ(vllm->code, 400);
  auto gemini = ErrorBodyFromJson(
      Json::parse(R"([{"error":{"code":400,"message":"g","status":"INVALID_ARGUMENT"}}])"));
  ASSERT_TRUE(gemini);
  EXPECT_EQ(gemini->type, "INVALID_ARGUMENT");
  EXPECT_FALSE(ErrorBodyFromJson(Json::parse(R"({"choices":[]})")));
  EXPECT_EQ(MakeErrorJson("m", "t")["error"]["param"], nullptr);
}

}  // namespace
}  // namespace llmconform::wire

#include "protocols/wire/surface.h"

#include <gtest/gtest.h>

#include "protocols/wire/stream_accumulator.h"

namespace llmconform::wire {
namespace {

TEST(Surface, NamesRoundTrip) {
  for (Surface s : AllSurfaces()) EXPECT_EQ(SurfaceFromName(SurfaceName(s)), s);
  EXPECT_EQ(SurfaceName(Surface::kResponses), "responses");
  EXPECT_EQ(SurfaceFromName("anthropic"), std::nullopt);
}

TEST(Surface, OfPath) {
  EXPECT_EQ(SurfaceOfPath("/v1/chat/completions"), Surface::kChat);
  EXPECT_EQ(SurfaceOfPath("/t/x/v1/chat/completions/"), Surface::kChat);
  EXPECT_EQ(SurfaceOfPath("/v1/responses"), Surface::kResponses);
  EXPECT_EQ(SurfaceOfPath("/api/v1/responses?x=1"), Surface::kResponses);
  EXPECT_EQ(SurfaceOfPath("/openai/v1/responses"), Surface::kResponses);
  EXPECT_EQ(SurfaceOfPath("/v1/responses/resp_1"), Surface::kResponses);
  EXPECT_EQ(SurfaceOfPath("/v1/responses/resp_1/cancel"), Surface::kResponses);
  EXPECT_EQ(SurfaceOfPath("/v1/responses/compact"), Surface::kResponses);
  EXPECT_EQ(SurfaceOfPath("/v1/responses/resp_1/input_items"), std::nullopt);
  EXPECT_EQ(SurfaceOfPath("/v1/conversations"), std::nullopt);
  EXPECT_EQ(SurfaceOfPath("/v1/embeddings"), std::nullopt);
  EXPECT_EQ(SurfaceOfPath("responses"), Surface::kResponses);
  EXPECT_EQ(SurfaceOfPath(""), std::nullopt);
}

TEST(Surface, ChatStreamsGiveTheSameCanonicalResultAsTheChatAccumulator) {
  const std::string stream =
      "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
      "\"reasoning_content\":\"hm\"}}]}\n\n"
      "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n"
      "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
      "\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}"
      "]},\"finish_reason\":\"tool_calls\"}]}\n\n"
      "data: [DONE]\n\n";
  const auto chat = AccumulateStream(stream);
  const auto r = AccumulateSurfaceStream(Surface::kChat, stream);
  EXPECT_EQ(r.Text(), chat.message.Text());
  EXPECT_EQ(r.Reasoning(), "hm");
  ASSERT_EQ(r.FunctionCalls().size(), 1u);
  EXPECT_EQ(r.FunctionCalls()[0]->call_id, "call_1");
  EXPECT_EQ(r.FunctionCalls()[0]->arguments, "{}");
  EXPECT_EQ(r.status, "tool_calls");
  EXPECT_TRUE(r.terminated);
  ASSERT_EQ(r.findings.size(), chat.findings.size());
  for (std::size_t i = 0; i < r.findings.size(); ++i)
    EXPECT_EQ(r.findings[i].rule, chat.findings[i].rule);
  ASSERT_EQ(r.items.size(), 3u);
  EXPECT_EQ(r.items[0].kind, ItemKind::kReasoning);
  EXPECT_EQ(r.items[1].kind, ItemKind::kMessage);
  EXPECT_EQ(r.items[2].kind, ItemKind::kFunctionCall);
}

TEST(Surface, MistralThinkingBlocksAreReasoningInStreamAndBody) {
  const std::string sse =
      R"(data: {"choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"hmm"}]}]}}]})"
      "\n\n"
      R"(data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]})"
      "\n\ndata: [DONE]\n\n";
  const Json body = Json::parse(R"({"id":"x","object":"chat.completion","choices":[{"index":0,
    "message":{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"hmm"}]},
    {"type":"text","text":"Hi"}]},"finish_reason":"stop"}]})");
  for (const CanonicalResult& r :
       {AccumulateSurfaceStream(Surface::kChat, sse), ReadSurfaceBody(Surface::kChat, body)}) {
    EXPECT_EQ(r.Reasoning(), "hmm");
    EXPECT_EQ(r.Text(), "Hi");
    ASSERT_FALSE(r.items.empty());
    EXPECT_EQ(r.items[0].type, "thinking");
  }
}

TEST(Surface, ChatBodies) {
  const Json body = Json::parse(
      R"({"id":"c1","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"yo"},"finish_reason":"stop"}],"usage":{"total_tokens":2}})");
  auto r = ReadSurfaceBody(Surface::kChat, body);
  EXPECT_EQ(r.Text(), "yo");
  EXPECT_EQ(r.id, "c1");
  EXPECT_EQ(r.status, "stop");
  EXPECT_EQ(r.usage["total_tokens"], 2);
  r = ReadSurfaceBody(Surface::kChat, Json::parse(R"({"error":{"message":"no","type":"t"}})"));
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->message, "no");
  r = ReadSurfaceBody(Surface::kChat, Json::parse(R"({"choices":7})"));
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].rule, "WIRE-BODY-MALFORMED");
}

}  // namespace
}  // namespace llmconform::wire

// mockllm and Anthropic's Messages API (docs/surfaces.md): import keeps its
// exchanges and names the surface, redacting x-api-key and keeping
// anthropic-version; --match sdk removes its own defaults (never max_tokens);
// lint reads its streams and bodies against the MSG-* rules as warnings; an
// injected error event takes its shape.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "base/json.h"
#include "mockllm/fault.h"
#include "mockllm/import.h"
#include "mockllm/lint.h"
#include "mockllm/replay_plan.h"
#include "mockllm/sdk_match.h"
#include "protocols/wire/surface.h"

namespace llmconform::mockllm {
namespace {

constexpr std::string_view kMessagesSurfaceCassette = R"(interactions:
- request:
    body: '{"max_tokens":1024,"messages":[{"role":"user","content":"hi"}],"model":"claude-x","stream":true}'
    headers:
      anthropic-version: ['2023-06-01']
      x-api-key: [sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789]
    method: POST
    uri: https://api.anthropic.com/v1/messages?beta=true
  response:
    body:
      string: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
    headers: {content-type: [text/event-stream; charset=utf-8]}
    status: {code: 200, message: OK}
- request:
    body: '{"messages":[{"role":"user","content":"hi"}],"model":"claude-x"}'
    headers: {}
    method: POST
    uri: https://api.anthropic.com/v1/messages/count_tokens?beta=true
  response:
    body: {string: '{"input_tokens":3}'}
    headers: {content-type: [application/json]}
    status: {code: 200, message: OK}
version: 1
)";

TEST(MessagesImport, KeepsExchangesNamesTheSurfaceAndRedactsTheKey) {
  auto r = ParseCassette(kMessagesSurfaceCassette, "msg.yaml");
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->trace.exchanges.size(), 2u);
  EXPECT_EQ(r->trace.exchanges[0].request.path, "/v1/messages");
  EXPECT_EQ(r->trace.exchanges[1].request.path, "/v1/messages/count_tokens");
  EXPECT_EQ(r->trace.header["surface"], "messages");
  EXPECT_EQ(r->trace.header["provider"], "anthropic");  // from the host
  EXPECT_EQ(r->trace.id, "anthropic/msg");
  const auto& headers = r->trace.exchanges[0].request.headers;
  EXPECT_EQ(headers["anthropic-version"], "2023-06-01");
  EXPECT_EQ(headers["x-api-key"].get<std::string>().find("sk-ant"), std::string::npos);
  EXPECT_TRUE(r->trace.exchanges[0].response.streamed);
  r = ParseCassette(kMessagesSurfaceCassette, "msg.yaml", {.paths = ImportPaths::kChat});
  EXPECT_FALSE(r);  // nothing of Chat Completions to keep
}

TEST(MessagesSdkMatch, TheSurfaceDefaultsGoMaxTokensStays) {
  const auto body = Json::parse(
      R"({"model":"m","max_tokens":1024,"messages":[],"stream":false,"temperature":1,
          "tool_choice":{"type":"auto","disable_parallel_tool_use":false},
          "tools":[{"name":"f","input_schema":{}}],"stop_sequences":[],
          "thinking":{"type":"disabled"},"metadata":{},"service_tier":"auto","system":null})");
  EXPECT_EQ(SdkNormalize(body, "/t/x/v1/messages"),
            Json::parse(R"({"model":"m","max_tokens":1024,"messages":[],
                            "tools":[{"name":"f","input_schema":{}}]})"));
  // Not defaults: a forced tool, parallel use disabled, thinking enabled.
  const auto kept = Json::parse(
      R"({"tool_choice":{"type":"any"},"thinking":{"type":"enabled","budget_tokens":1024}})");
  EXPECT_EQ(SdkNormalize(kept, "/v1/messages"), kept);
  const auto no_parallel =
      Json::parse(R"({"tool_choice":{"type":"auto","disable_parallel_tool_use":true}})");
  EXPECT_EQ(SdkNormalize(no_parallel, "/v1/messages"), no_parallel);
  // Chat's defaults stay Chat's.
  EXPECT_EQ(SdkNormalize(Json::parse(R"({"n":1})"), "/v1/messages"), Json::parse(R"({"n":1})"));
}

TEST(MessagesServe, SdkMatchReadsOneBareTextBlockAsItsString) {
  const auto blocks = Json::parse(
      R"({"max_tokens":8,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]})");
  EXPECT_EQ(SdkNormalize(blocks, "/v1/messages"),
            Json::parse(R"({"max_tokens":8,"messages":[{"role":"user","content":"hi"}]})"));
  // Not the shorthand: two blocks, a block with more than its text, an image.
  const auto kept = Json::parse(
      R"({"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},
          {"role":"user","content":[{"type":"text","text":"c","cache_control":{"type":"ephemeral"}}]},
          {"role":"user","content":[{"type":"image","source":{}}]}]})");
  EXPECT_EQ(SdkNormalize(kept, "/v1/messages"), kept);
  // Chat's content blocks stay as they are.
  const auto chat =
      Json::parse(R"({"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]})");
  EXPECT_EQ(SdkNormalize(chat, "/v1/chat/completions"), chat);
}

TEST(MessagesLint, ContractBreaksAreLocatedWarningsAndCountTokensIsNoModelCall) {
  const std::string text =
      std::string(R"({"format":"llmconform-trace/1","id":"x"})") + "\n" +
      R"({"request":{"path":"/v1/messages"},"response":{"status":200,"chunks":[{"t_ms":0,"raw":"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"content\":[],\"usage\":{}}}\n\n"},{"t_ms":0,"raw":"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n"}]}})" +
      "\n" +
      R"({"request":{"path":"/v1/messages/count_tokens"},"response":{"status":200,"body":{"input_tokens":3}}})" +
      "\n" +
      R"({"request":{"path":"/v1/messages"},"response":{"status":200,"body":{"type":"message","content":[],"stop_reason":"end_turn"}}})" +
      "\n";
  const LintReport report = LintTraceReport(text, "m.jsonl");
  EXPECT_TRUE(report.problems.empty());
  ASSERT_EQ(report.warnings.size(), 3u) << report.warnings[0];
  EXPECT_THAT(report.warnings[0],
              ::testing::HasSubstr("/response/chunks/1: warning: MSG-BLOCK-ORDER: event 2 /index: "
                                   "'content_block_delta' for index 0, a block never opened"));
  EXPECT_THAT(report.warnings[1], ::testing::HasSubstr("warning: MSG-ONE-STOP: the stream"));
  EXPECT_THAT(report.warnings[2], ::testing::StartsWith("m.jsonl:4:"));
  EXPECT_THAT(report.warnings[2], ::testing::HasSubstr("/response/body/usage: warning: MSG-USAGE"));
}

TEST(MessagesReplayPlan, ErrorEventInTheMessagesShape) {
  RecordedResponse r;
  r.streamed = true;
  r.chunks = {{0, "event: message_start\ndata: {\"type\":\"message_start\"}\n\n"},
              {5, "event: ping\ndata: {\"type\": \"ping\"}\n\n"},
              {9, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"}};
  auto fault = FaultFromJson(
      OJson{{"error_event",
             {{"after_events", 2},
              {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}}}});
  ASSERT_TRUE(fault);
  const ResponsePlan p = PlanResponse(r, *fault, 0, wire::Surface::kMessages);
  const std::string body = p.Body();
  EXPECT_EQ(body,
            r.chunks[0].raw + r.chunks[1].raw +
                "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
                "\"message\":\"Overloaded\"}}\n\n");
  const auto read = wire::AccumulateSurfaceStream(wire::Surface::kMessages, body);
  ASSERT_TRUE(read.error);
  EXPECT_EQ(read.error->type, "overloaded_error");
}

}  // namespace
}  // namespace llmconform::mockllm

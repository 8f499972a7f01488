// Faults in each API surface's own shape: injected HTTP errors, their 429
// headers, drop_done, in-stream errors, and cuts, stalls and keep-alives of
// streams of named events.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <set>

#include "base/format.h"
#include "base/test_paths.h"
#include "mockllm/replay_plan.h"
#include "mockllm/surface_errors.h"
#include "mockllm/trace.h"
#include "protocols/wire/chat.h"
#include "protocols/wire/sse.h"
#include "protocols/wire/surface.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Format;
using wire::Surface;
using Headers = std::vector<std::pair<std::string, std::string>>;

Fault F(const OJson& j) {
  auto f = FaultFromJson(j);
  EXPECT_TRUE(f) << f.error().message;
  return f ? *f : Fault{};
}

RecordedResponse Streamed(std::vector<std::string> events) {
  RecordedResponse r;
  r.streamed = true;
  std::int64_t t = 0;
  for (std::string& e : events) r.chunks.push_back({t += 10, std::move(e)});
  return r;
}

std::string Named(std::string_view type, std::string_view more = "") {
  return Format("event: {}\ndata: {{\"type\":\"{}\"{}}}\n\n", type, type, more);
}

// A Responses stream: created, a message item with one delta, completed.
RecordedResponse ResponsesStream() {
  const std::string resp =
      R"("response":{"id":"resp_1","object":"response","model":"gpt-5","status":"in_progress","output":[]})";
  const std::string item =
      R"({"id":"msg_1","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Hi","annotations":[]}]})";
  return Streamed({
      Named("response.created", ",\"sequence_number\":0," + resp),
      Named(
          "response.output_item.added",
          R"(,"sequence_number":1,"output_index":0,"item":{"id":"msg_1","type":"message","role":"assistant","status":"in_progress","content":[]})"),
      Named(
          "response.content_part.added",
          R"(,"sequence_number":2,"output_index":0,"content_index":0,"item_id":"msg_1","part":{"type":"output_text","text":"","annotations":[]})"),
      Named(
          "response.output_text.delta",
          R"(,"sequence_number":3,"output_index":0,"content_index":0,"item_id":"msg_1","delta":"Hi")"),
      Named("response.output_item.done",
            ",\"sequence_number\":4,\"output_index\":0,\"item\":" + item),
      Named("response.completed",
            ",\"sequence_number\":5,\"response\":{\"id\":\"resp_1\",\"object\":\"response\","
            "\"model\":"
            "\"gpt-5\",\"status\":\"completed\",\"output\":[" +
                item + "]}"),
  });
}

RecordedResponse MessagesStream() {
  return Streamed(
      {Named(
           "message_start",
           R"(,"message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude","usage":{"input_tokens":1,"output_tokens":1}})"),
       Named("content_block_start", R"(,"index":0,"content_block":{"type":"text","text":""})"),
       Named("ping"),
       Named("content_block_delta", R"(,"index":0,"delta":{"type":"text_delta","text":"Hi"})"),
       Named("content_block_stop", R"(,"index":0)"),
       Named("message_delta", R"(,"delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2})"),
       Named("message_stop")});
}

RecordedResponse GeminiStream() {
  return Streamed(
      {"data: "
       "{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hel\"}],\"role\":\"model\"}}]}"
       "\r\n\r\n",
       "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"lo\"}],\"role\":\"model\"},"
       "\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"totalTokenCount\":3}}\r\n\r\n"});
}

std::string HeaderOf(const Headers& h, std::string_view name) {
  for (const auto& [n, v] : h) {
    if (n == name) return v;
  }
  return "(absent)";
}

// The error body of a recorded exchange with `status` in a fixture trace.
Json RecordedError(const std::string& file, int status) {
  auto t = LoadTraceFile(std::string(test_paths::SourceRoot()) + "/fixtures/recorded/" + file);
  EXPECT_TRUE(t) << file;
  if (!t) return nullptr;
  for (const Exchange& x : t->exchanges) {
    if (x.response.status == status) return Json::parse(x.response.BodyBytes());
  }
  ADD_FAILURE() << file << " records no " << status;
  return nullptr;
}

std::set<std::string> Keys(const Json& j) {
  std::set<std::string> out;
  for (auto it = j.begin(); it != j.end(); ++it) out.insert(it.key());
  return out;
}

TEST(SurfaceErrors, StatusFaultBodyPerSurface) {
  const auto body = [](Surface s, int status) {
    return Json::parse(PlanResponse(RecordedResponse{}, F({{"status", status}}), 0, s).Body());
  };
  EXPECT_EQ(
      body(Surface::kChat, 500),
      Json::parse(
          R"({"error":{"message":"mockllm injected HTTP 500","type":"server_error","param":null,"code":null}})"));
  EXPECT_EQ(body(Surface::kResponses, 429)["error"]["code"], "rate_limit_exceeded");
  EXPECT_EQ(
      body(Surface::kMessages, 529),
      Json::parse(
          R"({"type":"error","error":{"type":"overloaded_error","message":"mockllm injected HTTP 529"}})"));
  EXPECT_EQ(
      body(Surface::kGemini, 429),
      Json::parse(
          R"({"error":{"code":429,"message":"mockllm injected HTTP 429","status":"RESOURCE_EXHAUSTED"}})"));
  const std::pair<int, const char*> anthropic[] = {{400, "invalid_request_error"},
                                                   {401, "authentication_error"},
                                                   {403, "permission_error"},
                                                   {404, "not_found_error"},
                                                   {413, "request_too_large"},
                                                   {429, "rate_limit_error"},
                                                   {500, "api_error"},
                                                   {529, "overloaded_error"},
                                                   {422, "invalid_request_error"},
                                                   {503, "api_error"}};
  for (const auto& [status, type] : anthropic)
    EXPECT_EQ(body(Surface::kMessages, status)["error"]["type"], type) << status;
  const std::pair<int, const char*> gemini[] = {
      {400, "INVALID_ARGUMENT"},   {403, "PERMISSION_DENIED"}, {404, "NOT_FOUND"},
      {429, "RESOURCE_EXHAUSTED"}, {500, "INTERNAL"},          {503, "UNAVAILABLE"},
      {504, "DEADLINE_EXCEEDED"}};
  for (const auto& [status, name] : gemini) {
    EXPECT_EQ(body(Surface::kGemini, status)["error"]["status"], name) << status;
    EXPECT_EQ(body(Surface::kGemini, status)["error"]["code"], status);
  }
}

// The shapes are the recorded APIs' own: the same members, the same type for the status.
TEST(SurfaceErrors, ShapesMatchTheRecordedErrors) {
  const Json anthropic =
      RecordedError("anthropic/test_anthropic_count_tokens_error.trace.jsonl", 404);
  const Json ours = Json(DefaultErrorBody(404, Surface::kMessages));
  EXPECT_EQ(ours["type"], anthropic["type"]);
  EXPECT_EQ(Keys(ours["error"]), Keys(anthropic["error"]));
  EXPECT_EQ(ours["error"]["type"], anthropic["error"]["type"]);
  const Json invalid = RecordedError(
      "anthropic/test_anthropic_explicit_effort_xhigh_unsupported_model_errors.trace.jsonl", 400);
  EXPECT_EQ(Json(DefaultErrorBody(400, Surface::kMessages))["error"]["type"],
            invalid["error"]["type"]);
  const Json responses =
      RecordedError("openai-responses/test_openai_responses_model_http_error.trace.jsonl", 400);
  const Json mine = Json(DefaultErrorBody(400, Surface::kResponses));
  EXPECT_EQ(Keys(mine), Keys(responses));
  EXPECT_EQ(Keys(mine["error"]), Keys(responses["error"]));
  EXPECT_EQ(mine["error"]["type"], responses["error"]["type"]);
}

TEST(SurfaceErrors, AnExplicitBodyIsKeptAsGiven) {
  const ResponsePlan p =
      PlanResponse(RecordedResponse{}, F({{"status", 429}, {"body", {{"detail", "slow down"}}}}), 0,
                   Surface::kMessages);
  EXPECT_EQ(p.Body(), R"({"detail":"slow down"})");
}

TEST(SurfaceErrors, RateLimitHeadersOn429InTheSurfaceStyle) {
  const auto plan = [](Surface s, const OJson& fault) {
    return PlanResponse(RecordedResponse{}, F(fault), 0, s);
  };
  const OJson limited = {{"status", 429}, {"retry_after", 2}};
  const ResponsePlan anthropic = plan(Surface::kMessages, limited);
  EXPECT_EQ(HeaderOf(anthropic.headers, "retry-after"), "2");
  EXPECT_EQ(HeaderOf(anthropic.headers, "anthropic-ratelimit-requests-remaining"), "0");
  EXPECT_EQ(HeaderOf(anthropic.headers, "x-ratelimit-remaining-requests"), "(absent)");
  const ResponsePlan openai = plan(Surface::kResponses, limited);
  EXPECT_EQ(HeaderOf(openai.headers, "x-ratelimit-remaining-requests"), "0");
  EXPECT_EQ(HeaderOf(openai.headers, "x-ratelimit-reset-requests"), "2s");
  EXPECT_EQ(HeaderOf(plan(Surface::kChat, {{"status", 429}, {"retry_after_ms", 1500}}).headers,
                     "x-ratelimit-reset-requests"),
            "1500ms");
  const ResponsePlan gemini = plan(Surface::kGemini, limited);
  EXPECT_EQ(HeaderOf(gemini.headers, "x-ratelimit-remaining-requests"), "(absent)");
  EXPECT_EQ(HeaderOf(gemini.headers, "anthropic-ratelimit-requests-remaining"), "(absent)");
  EXPECT_EQ(Json::parse(gemini.Body())["error"]["details"][0]["retryDelay"], "2s");
  // Not on other statuses; the fault's own headers win.
  EXPECT_EQ(HeaderOf(plan(Surface::kMessages, {{"status", 529}}).headers,
                     "anthropic-ratelimit-requests-remaining"),
            "(absent)");
  const ResponsePlan own =
      plan(Surface::kMessages,
           {{"status", 429}, {"headers", {{"anthropic-ratelimit-requests-remaining", "7"}}}});
  EXPECT_EQ(HeaderOf(own.headers, "anthropic-ratelimit-requests-remaining"), "7");
  EXPECT_EQ(std::count_if(
                own.headers.begin(), own.headers.end(),
                [](const auto& h) { return h.first == "anthropic-ratelimit-requests-remaining"; }),
            1);
}

// mockllm's answers that stand in for the API take the surface's shape; its own errors do not.
TEST(SurfaceErrors, InSurfaceShape) {
  const Json invalid =
      wire::MakeErrorJson("not JSON", "invalid_request_error", nullptr, "invalid_json");
  EXPECT_EQ(InSurfaceShape(Surface::kChat, 400, invalid), invalid);
  EXPECT_EQ(InSurfaceShape(Surface::kResponses, 400, invalid), invalid);
  EXPECT_EQ(
      InSurfaceShape(Surface::kMessages, 400, invalid),
      Json::parse(
          R"({"type":"error","error":{"type":"invalid_request_error","message":"not JSON"}})"));
  EXPECT_EQ(
      InSurfaceShape(Surface::kGemini, 415, invalid),
      Json::parse(R"({"error":{"code":415,"message":"not JSON","status":"FAILED_PRECONDITION"}})"));
  const Json own = wire::MakeErrorJson("no match", "mockllm_no_match");
  EXPECT_EQ(InSurfaceShape(Surface::kMessages, 404, own), own);
  const Json own_code = wire::MakeErrorJson("bad dialect", "invalid_request_error", nullptr,
                                            "mockllm_unknown_dialect");
  EXPECT_EQ(InSurfaceShape(Surface::kGemini, 400, own_code), own_code);
}

// drop_done leaves out what ends the stream of each surface, and nothing else.
TEST(SurfaceFaults, DropDoneLeavesOutTheEndOfEachSurface) {
  const Fault drop = F({{"drop_done", true}});
  const RecordedResponse responses = ResponsesStream();
  std::string want;
  for (std::size_t i = 0; i + 1 < responses.chunks.size(); ++i) want += responses.chunks[i].raw;
  EXPECT_EQ(PlanResponse(responses, drop, 0, Surface::kResponses).Body(), want);
  EXPECT_FALSE(wire::AccumulateSurfaceStream(Surface::kResponses, want).terminated);

  const RecordedResponse messages = MessagesStream();
  want.clear();
  for (std::size_t i = 0; i + 1 < messages.chunks.size(); ++i) want += messages.chunks[i].raw;
  EXPECT_EQ(PlanResponse(messages, drop, 0, Surface::kMessages).Body(), want);
  EXPECT_FALSE(wire::AccumulateSurfaceStream(Surface::kMessages, want).terminated);

  const RecordedResponse gemini = GeminiStream();
  const std::string first = PlanResponse(gemini, drop, 0, Surface::kGemini).Body();
  EXPECT_EQ(first, gemini.chunks[0].raw);
  EXPECT_FALSE(wire::AccumulateSurfaceStream(Surface::kGemini, first).status);

  // A Responses stream holds no [DONE]; a Chat stream's [DONE] is all that goes.
  RecordedResponse chat = Streamed({"data: {\"n\":0}\n\n", "data: [DONE]\n\n"});
  EXPECT_EQ(PlanResponse(chat, drop, 0, Surface::kChat).Body(), "data: {\"n\":0}\n\n");
}

TEST(SurfaceFaults, ResponsesErrorEventAsFailed) {
  const RecordedResponse r = ResponsesStream();
  const ResponsePlan p =
      PlanResponse(r,
                   F({{"error_event",
                       {{"after_events", 5},
                        {"as", "failed"},
                        {"error", {{"code", "server_error"}, {"message", "boom"}}}}}}),
                   0, Surface::kResponses);
  const std::string body = p.Body();
  const auto events = wire::ParseSse(body).events;
  ASSERT_EQ(events.size(), 6u);
  EXPECT_EQ(events[5].event, "response.failed");
  const Json failed = Json::parse(events[5].data);
  EXPECT_EQ(failed["sequence_number"], 5);
  EXPECT_EQ(failed["response"]["id"], "resp_1");
  EXPECT_EQ(failed["response"]["model"], "gpt-5");
  EXPECT_EQ(failed["response"]["status"], "failed");
  EXPECT_EQ(failed["response"]["error"],
            Json::parse(R"({"code":"server_error","message":"boom"})"));
  ASSERT_EQ(failed["response"]["output"].size(), 1u);
  EXPECT_EQ(failed["response"]["output"][0]["id"], "msg_1");
  const auto read = wire::AccumulateSurfaceStream(Surface::kResponses, body);
  EXPECT_TRUE(read.terminated);
  EXPECT_EQ(read.status, "failed");
  ASSERT_TRUE(read.error);
  EXPECT_EQ(read.error->message, "boom");
  EXPECT_EQ(read.Text(), "Hi");
  EXPECT_TRUE(read.findings.empty()) << read.findings.front().message;

  // Without "as": the `error` event; an unknown "as" is refused.
  const ResponsePlan plain =
      PlanResponse(r, F({{"error_event", {{"after_events", 1}}}}), 0, Surface::kResponses);
  EXPECT_EQ(wire::ParseSse(plain.Body()).events.back().event, "error");
  EXPECT_FALSE(FaultFromJson(OJson{{"error_event", {{"as", "incomplete"}}}}));
}

TEST(SurfaceFaults, DefaultErrorEventPerSurface) {
  const Fault f = F({{"error_event", {{"after_events", 2}}}});
  const std::string messages = PlanResponse(MessagesStream(), f, 0, Surface::kMessages).Body();
  const auto read = wire::AccumulateSurfaceStream(Surface::kMessages, messages);
  ASSERT_TRUE(read.error);
  EXPECT_EQ(read.error->type, "overloaded_error");
  EXPECT_EQ(read.error->message, "Overloaded");
  const std::string gemini =
      PlanResponse(GeminiStream(), F({{"error_event", {{"after_events", 1}}}}), 0, Surface::kGemini)
          .Body();
  EXPECT_EQ(wire::ParseSse(gemini).events.back().data,
            R"({"error":{"code":500,"message":"mockllm injected error","status":"INTERNAL"}})");
}

// Cuts, stalls, keep-alives and malformed events treat `event:` + `data:` as one event.
TEST(SurfaceFaults, NamedEventsStayWhole) {
  const RecordedResponse m = MessagesStream();
  const ResponsePlan cut = PlanResponse(m, F({{"cut_after_events", 2}}), 0, Surface::kMessages);
  EXPECT_EQ(cut.Body(), m.chunks[0].raw + m.chunks[1].raw);
  EXPECT_TRUE(cut.cut);

  const ResponsePlan stall =
      PlanResponse(m, F({{"stall_ms", 50}, {"stall_after_events", 3}}), 0, Surface::kMessages);
  std::string before;
  for (const Piece& p : stall.pieces) {
    if (p.stall_ms_before > 0) break;
    before += p.bytes;
  }
  EXPECT_EQ(before, m.chunks[0].raw + m.chunks[1].raw + m.chunks[2].raw);

  const ResponsePlan alive = PlanResponse(m, F({{"keepalive_ms", 5}}), 0, Surface::kMessages);
  const auto parsed = wire::ParseSse(alive.Body());
  EXPECT_GT(parsed.comments, 0u);
  ASSERT_EQ(parsed.events.size(), m.chunks.size());
  for (const auto& e : parsed.events) EXPECT_FALSE(e.event.empty());

  const ResponsePlan broken = PlanResponse(m, F({{"malformed_event", 3}}), 0, Surface::kMessages);
  const auto events = wire::ParseSse(broken.Body()).events;
  ASSERT_EQ(events.size(), m.chunks.size());
  EXPECT_EQ(events[3].event, "content_block_delta");
  EXPECT_FALSE(Json::accept(events[3].data));
}

// Any stream of named events, well-formed or not, under drop_done and an
// error_event of either kind: the plan is made, every event it writes reads
// back whole, and the injected event comes last.
RC_GTEST_PROP(SurfaceFaults, EditedNamedStreamsStayReadable, ()) {
  const std::vector<std::string> types = {"response.created",
                                          "response.output_item.added",
                                          "response.output_text.delta",
                                          "response.completed",
                                          "error",
                                          "message_stop"};
  const auto n = *rc::gen::inRange<std::size_t>(0, 8);
  std::vector<std::string> events;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string type = *rc::gen::elementOf(types);
    const bool json = *rc::gen::arbitrary<bool>();
    events.push_back(json ? Named(type, ",\"response\":{\"id\":\"r\"}")
                          : Format("event: {}\ndata: {}\n\n", type,
                                   *rc::gen::container<std::string>(rc::gen::inRange('a', 'z'))));
  }
  const bool failed = *rc::gen::arbitrary<bool>();
  const auto after = *rc::gen::inRange<std::int64_t>(0, 10);
  for (const Surface s : wire::AllSurfaces()) {
    const ResponsePlan p = PlanResponse(
        Streamed(events),
        F({{"drop_done", true},
           {"error_event", {{"after_events", after}, {"as", failed ? "failed" : "error"}}}}),
        0, s);
    const auto read = wire::ParseSse(p.Body()).events;
    RC_ASSERT(!read.empty());
    RC_ASSERT(read.size() <= events.size() + 1);
    if (s == Surface::kResponses) {
      RC_ASSERT(read.back().event == (failed ? "response.failed" : "error"));
      RC_ASSERT(Json::accept(read.back().data));
    }
  }
}

}  // namespace
}  // namespace llmconform::mockllm

#include "harness/gymbro_service.h"

#include <gtest/gtest.h>

#include "base/format.h"
#include "harness/gymbro_test_support.h"
#include "harness/sse_check.h"
#include "mockllm/server.h"
#include "mockllm/trace.h"
#include "protocols/thinkingml/delta_splitter.h"
#include "protocols/thinkingml/gymbro_events.h"

namespace llmconform::harness {
namespace {

using Json = nlohmann::json;
using std::chrono::milliseconds;

struct Exchange {
  wire::HttpResponse post;
  CapturedStream stream;
  gymbro::EventCheck check;
  Json journal;
};

class GymbroServiceTest : public ::testing::Test {
 protected:
  // Starts mockllm with the trace and the service against it.
  void Start(const std::string& trace_text, milliseconds heartbeat = milliseconds(60000)) {
    auto trace = mockllm::ParseTrace(trace_text, "<test>");
    ASSERT_TRUE(trace) << trace.error().message;
    std::vector<mockllm::Trace> traces;
    traces.push_back(std::move(*trace));
    auto upstream = mockllm::Server::Start(std::move(traces), {});
    ASSERT_TRUE(upstream) << upstream.error().message;
    upstream_ = std::move(*upstream);
    StartService(upstream_->TraceBaseUrl("gymbro/test"), heartbeat);
  }

  void StartService(const std::string& upstream_url, milliseconds heartbeat = milliseconds(60000)) {
    GymbroServiceOptions options;
    options.upstream_base_url = upstream_url;
    options.heartbeat_interval = heartbeat;
    options.upstream_timeout = milliseconds(20000);
    auto service = GymbroService::Start(options);
    ASSERT_TRUE(service) << service.error().message;
    service_ = std::move(*service);
  }

  Exchange Send(const std::optional<std::string>& request_id = "req-1") {
    Exchange run;
    auto post = PostGymbroMessage(service_->base_url(), R"({"text":"hi"})", request_id,
                                  milliseconds(20000));
    EXPECT_TRUE(post) << (post ? "" : post.error().message);
    if (!post) return run;
    run.post = *post;
    const Json body = Json::parse(post->body, nullptr, false);
    EXPECT_TRUE(body.is_object() && body.contains("message_id")) << post->body;
    if (!body.is_object() || !body.contains("message_id")) return run;
    auto stream = CaptureEventStream(EventsUrl(body["message_id"].get<std::string>()), request_id,
                                     milliseconds(20000));
    EXPECT_TRUE(stream) << (stream ? "" : stream.error().message);
    if (!stream) return run;
    run.stream = *stream;
    run.check = gymbro::CheckEvents(stream->events, {request_id});
    if (upstream_) run.journal = upstream_->Journal();
    return run;
  }

  std::string EventsUrl(const std::string& id) const {
    return Format("{}/api/v1/messages/{}/events", service_->base_url(), id);
  }

  std::vector<std::string> Names(const Exchange& run) const {
    std::vector<std::string> out;
    for (const auto& e : run.stream.events) out.push_back(e.event);
    return out;
  }

  std::unique_ptr<mockllm::Server> upstream_;
  std::unique_ptr<GymbroService> service_;
};

using V = std::vector<std::string>;

TEST_F(GymbroServiceTest, StreamsTheReplyAsTheSeedEventSequence) {
  Start(GymbroUpstreamTrace({"<thinking>", "中文", "</thinking>"}));
  const Exchange run = Send();
  EXPECT_EQ(run.post.status, 200);
  EXPECT_EQ(run.post.body, R"({"message_id":"msg_1"})");
  EXPECT_EQ(run.post.headers.at("x-request-id"), "req-1");
  EXPECT_EQ(run.stream.status, 200);
  EXPECT_EQ(run.stream.content_type, "text/event-stream");
  EXPECT_EQ(Names(run), (V{"status", "status", "status", "content_delta", "content_delta",
                           "content_delta", "completed"}));
  EXPECT_EQ(run.stream.events[0].data,
            R"({"state":"queued","message_id":"msg_1","request_id":"req-1"})");
  EXPECT_EQ(run.stream.events[2].data,
            R"({"state":"routed","message_id":"msg_1","request_id":"req-1","provider":"openai",)"
            R"("resolved_model":"gpt-4o-mini","endpoint_id":1,"upstream_request_id":null})");
  EXPECT_EQ(run.stream.events[4].data,
            R"({"message_id":"msg_1","request_id":"req-1","seq":2,"delta":"中文"})");
  EXPECT_EQ(
      run.stream.events[6].data,
      R"({"message_id":"msg_1","request_id":"req-1","provider":"openai","resolved_model":"gpt-4o-mini-2024",)"
      R"("endpoint_id":1,"upstream_request_id":"chatcmpl-1","reply_len":23,"metadata":null})");
  EXPECT_TRUE(run.check.findings.empty()) << run.check.findings[0].message;
  EXPECT_EQ(run.check.reply, "<thinking>中文</thinking>");
  ASSERT_EQ(run.journal.size(), 1u);
  EXPECT_EQ(run.journal[0]["request"]["body"]["stream"], true);
  EXPECT_EQ(run.journal[0]["response"]["status"], 200);
}

TEST_F(GymbroServiceTest, MakesUpARequestIdWhenNoneIsSent) {
  Start(GymbroUpstreamTrace({"a"}));
  const Exchange run = Send(std::nullopt);
  EXPECT_EQ(run.post.headers.at("x-request-id"), "req_1");
  EXPECT_EQ(run.check.request_id, "req_1");
  EXPECT_TRUE(run.check.valid);
}

TEST_F(GymbroServiceTest, ALateSubscriberGetsTheWholeStream) {
  Start(GymbroUpstreamTrace({"a", "b"}));
  const Exchange first = Send();
  auto again = CaptureEventStream(EventsUrl("msg_1"), std::nullopt, milliseconds(20000));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->events, first.stream.events);
}

TEST_F(GymbroServiceTest, SplitsLongChunks) {
  std::string text;
  for (int i = 0; i < 24; ++i)
    text += "深蹲时保持核心收紧，膝盖与脚尖方向一致。下蹲到大腿与地面平行。\n";
  Start(GymbroUpstreamTrace({text}));
  const Exchange run = Send();
  const auto pieces = gymbro::SplitDelta(text);
  ASSERT_GT(pieces.size(), 2u);
  EXPECT_EQ(run.check.deltas, pieces.size());
  EXPECT_EQ(run.check.reply, text);
  EXPECT_TRUE(run.check.findings.empty()) << run.check.findings[0].message;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    const Json data = Json::parse(run.stream.events[3 + i].data);
    EXPECT_EQ(data["delta"], pieces[i]);
    EXPECT_EQ(data["seq"], i + 1);
  }
}

TEST_F(GymbroServiceTest, UpstreamEndingWithoutFinishingIsAnError) {
  Start(GymbroUpstreamTrace({"a", "b"}, nullptr, /*finish=*/false));
  const Exchange run = Send();
  EXPECT_TRUE(run.check.valid);
  EXPECT_EQ(run.check.termination, gymbro::Termination::kError);
  EXPECT_EQ(run.check.error_code, "upstream_incomplete");
  EXPECT_EQ(run.check.error_message,
            "the upstream stream ended without a finish_reason or data: [DONE]");
  EXPECT_EQ(run.check.reply, "ab");
}

TEST_F(GymbroServiceTest, UpstreamCutMidStreamIsAnError) {
  Start(GymbroUpstreamTrace({"a", "b", "c", "d"}, {{"cut_after_events", 2}}));
  const Exchange run = Send();
  EXPECT_TRUE(run.check.valid);
  EXPECT_EQ(run.check.termination, gymbro::Termination::kError);
  EXPECT_EQ(run.check.error_code, "upstream_incomplete");
  EXPECT_EQ(run.check.reply, "ab");
}

TEST_F(GymbroServiceTest, UpstreamErrorsAreProviderErrors) {
  Start(GymbroUpstreamTrace({"a"}, {{"status", 500}}));
  const Exchange http = Send();
  EXPECT_EQ(Names(http), (V{"status", "status", "status", "error"}));
  EXPECT_EQ(http.check.error_code, "provider_error");
  EXPECT_TRUE(http.check.error_message.starts_with("the upstream answered HTTP 500: "))
      << http.check.error_message;
  EXPECT_TRUE(http.check.valid);
}

TEST_F(GymbroServiceTest, AnErrorObjectInTheUpstreamStreamIsAProviderError) {
  Start(GymbroUpstreamTrace(
      {"a", "b", "c"},
      {{"error_event",
        {{"after_events", 2}, {"error", {{"message", "overloaded"}, {"type", "server_error"}}}}}}));
  const Exchange run = Send();
  EXPECT_EQ(run.check.error_code, "provider_error");
  EXPECT_EQ(run.check.error_message, "overloaded");
  EXPECT_EQ(run.check.reply, "ab");
  const Json error = Json::parse(run.stream.events.back().data);
  EXPECT_EQ(error["error"], "overloaded");  // the legacy field
}

TEST_F(GymbroServiceTest, AnUnreachableUpstreamIsAnError) {
  StartService("http://127.0.0.1:1/v1");
  const Exchange run = Send();
  EXPECT_EQ(run.check.error_code, "provider_unavailable");
  EXPECT_TRUE(run.check.valid);
}

TEST_F(GymbroServiceTest, HeartbeatsWhileTheUpstreamIsSilent) {
  Start(GymbroUpstreamTrace({"a", "b"}, {{"stall_ms", 1000}, {"stall_after_events", 1}}),
        milliseconds(50));
  const Exchange run = Send();
  EXPECT_GE(run.check.heartbeats, 1u);
  EXPECT_TRUE(run.check.valid) << run.check.findings[0].message;
  EXPECT_EQ(run.check.reply, "ab");
  EXPECT_EQ(run.check.termination, gymbro::Termination::kCompleted);
}

TEST_F(GymbroServiceTest, RejectsBadInputAndUnknownMessages) {
  StartService("http://127.0.0.1:1/v1");
  auto bad =
      PostGymbroMessage(service_->base_url(), R"({"text":5})", std::nullopt, milliseconds(5000));
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(Json::parse(bad->body)["error"]["message"], "field \"text\": expected string");
  auto not_json = PostGymbroMessage(service_->base_url(), "nope", std::nullopt, milliseconds(5000));
  ASSERT_TRUE(not_json);
  EXPECT_EQ(not_json->status, 400);
  auto missing = CaptureEventStream(EventsUrl("msg_404"), std::nullopt, milliseconds(5000));
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_TRUE(missing->events.empty());
}

TEST(GymbroServiceStart, RejectsBadOptions) {
  auto none = GymbroService::Start({});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "upstream_base_url: expected a URL, got \"\"");
  GymbroServiceOptions zero;
  zero.upstream_base_url = "http://127.0.0.1:1/v1";
  zero.heartbeat_interval = milliseconds(0);
  auto bad = GymbroService::Start(zero);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "heartbeat_interval: expected more than 0 ms, got 0");
}

}  // namespace
}  // namespace llmconform::harness

#include "harness/gymbro_service.h"

#include <gtest/gtest.h>

#include "base/format.h"
#include "base/json.h"
#include "harness/gymbro_test_support.h"
#include "harness/sse_check.h"
#include "mockllm/server.h"
#include "mockllm/trace.h"
#include "net/fake_http_client.h"
#include "protocols/thinkingml/delta_splitter.h"
#include "protocols/thinkingml/gymbro_events.h"

namespace llmconform::harness {
namespace {

using std::chrono::milliseconds;

struct Exchange {
  wire::HttpResponse post;
  CapturedStream stream;
  gymbro::EventCheck check;
  Json journal;
};

// The service under test listens on loopback; its upstream is a
// net::FakeHttpClient (no mockllm, no sockets behind it, no stalls), except in
// the end-to-end test against mockllm.
class GymbroServiceTest : public ::testing::Test {
 protected:
  // Starts the service with `reply` as the upstream's answer.
  void Start(net::FakeHttpClient::Reply reply, milliseconds heartbeat = milliseconds(60000)) {
    upstream_->Push(std::move(reply));
    StartService("http://upstream/v1", heartbeat, upstream_);
  }
  // The upstream streams `chunks` and ends.
  void StartStreaming(std::vector<std::string> chunks) {
    Start(net::FakeHttpClient::Respond(200, "text/event-stream", std::move(chunks)));
  }

  // Starts mockllm with the trace and the service against it.
  void StartAgainstMockllm(const std::string& trace_text) {
    auto trace = mockllm::ParseTrace(trace_text, "<test>");
    ASSERT_TRUE(trace) << trace.error().message;
    std::vector<mockllm::Trace> traces;
    traces.push_back(std::move(*trace));
    auto upstream = mockllm::Server::Start(std::move(traces), {});
    ASSERT_TRUE(upstream) << upstream.error().message;
    mockllm_ = std::move(*upstream);
    StartService(mockllm_->TraceBaseUrl("gymbro/test"));
  }

  void StartService(const std::string& upstream_url, milliseconds heartbeat = milliseconds(60000),
                    std::shared_ptr<net::HttpClient> client = {}) {
    GymbroServiceOptions options;
    options.upstream_base_url = upstream_url;
    options.heartbeat_interval = heartbeat;
    options.upstream_timeout = milliseconds(20000);
    options.upstream_client = std::move(client);
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
    if (mockllm_) run.journal = mockllm_->Journal();
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

  std::shared_ptr<net::FakeHttpClient> upstream_ = std::make_shared<net::FakeHttpClient>();
  std::unique_ptr<mockllm::Server> mockllm_;
  std::unique_ptr<GymbroService> service_;
};

using V = std::vector<std::string>;

TEST_F(GymbroServiceTest, StreamsTheReplyAsTheSeedEventSequence) {
  StartStreaming(GymbroUpstreamChunks({"<thinking>", "中文", "</thinking>"}));
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
  const auto sent = upstream_->requests();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].method, "POST");
  EXPECT_EQ(sent[0].url, "http://upstream/v1/chat/completions");
  EXPECT_EQ(sent[0].body,
            R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"stream":true})");
  EXPECT_EQ(upstream_->timeouts()[0], net::HttpTimeouts::All(milliseconds(20000)));
}

// End to end: the upstream is mockllm, over real sockets.
TEST_F(GymbroServiceTest, StreamsFromMockllm) {
  StartAgainstMockllm(GymbroUpstreamTrace({"<thinking>", "中文", "</thinking>"}));
  const Exchange run = Send();
  EXPECT_EQ(Names(run), (V{"status", "status", "status", "content_delta", "content_delta",
                           "content_delta", "completed"}));
  EXPECT_TRUE(run.check.findings.empty()) << run.check.findings[0].message;
  EXPECT_EQ(run.check.reply, "<thinking>中文</thinking>");
  ASSERT_EQ(run.journal.size(), 1u);
  EXPECT_EQ(run.journal[0]["request"]["body"]["stream"], true);
  EXPECT_EQ(run.journal[0]["response"]["status"], 200);
}

TEST_F(GymbroServiceTest, MakesUpARequestIdWhenNoneIsSent) {
  StartStreaming(GymbroUpstreamChunks({"a"}));
  const Exchange run = Send(std::nullopt);
  EXPECT_EQ(run.post.headers.at("x-request-id"), "req_1");
  EXPECT_EQ(run.check.request_id, "req_1");
  EXPECT_TRUE(run.check.valid);
}

TEST_F(GymbroServiceTest, ALateSubscriberGetsTheWholeStream) {
  StartStreaming(GymbroUpstreamChunks({"a", "b"}));
  const Exchange first = Send();
  auto again = CaptureEventStream(EventsUrl("msg_1"), std::nullopt, milliseconds(20000));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->events, first.stream.events);
}

TEST_F(GymbroServiceTest, SplitsLongChunks) {
  std::string text;
  for (int i = 0; i < 24; ++i)
    text += "深蹲时保持核心收紧，膝盖与脚尖方向一致。下蹲到大腿与地面平行。\n";
  StartStreaming(GymbroUpstreamChunks({text}));
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
  StartStreaming(GymbroUpstreamChunks({"a", "b"}, /*finish=*/false));
  const Exchange run = Send();
  EXPECT_TRUE(run.check.valid);
  EXPECT_EQ(run.check.termination, gymbro::Termination::kError);
  EXPECT_EQ(run.check.error_code, "upstream_incomplete");
  EXPECT_EQ(run.check.error_message,
            "the upstream stream ended without a finish_reason or data: [DONE]");
  EXPECT_EQ(run.check.reply, "ab");
}

TEST_F(GymbroServiceTest, UpstreamCutMidStreamIsAnError) {
  net::FakeHttpClient::Reply cut = net::FakeHttpClient::Respond(
      200, "text/event-stream", GymbroUpstreamChunks({"a", "b"}, false));
  cut.fail_after_chunks = net::HttpFailure::kBroken;
  Start(std::move(cut));
  const Exchange run = Send();
  EXPECT_TRUE(run.check.valid);
  EXPECT_EQ(run.check.termination, gymbro::Termination::kError);
  EXPECT_EQ(run.check.error_code, "upstream_incomplete");
  EXPECT_EQ(run.check.reply, "ab");
}

TEST_F(GymbroServiceTest, UpstreamErrorsAreProviderErrors) {
  Start(net::FakeHttpClient::Respond(500, "application/json",
                                     {R"({"error":{"message":"boom","type":"server_error"}})"}));
  const Exchange http = Send();
  EXPECT_EQ(Names(http), (V{"status", "status", "status", "error"}));
  EXPECT_EQ(http.check.error_code, "provider_error");
  EXPECT_EQ(http.check.error_message, "the upstream answered HTTP 500: boom");
  EXPECT_TRUE(http.check.valid);
}

TEST_F(GymbroServiceTest, AnErrorObjectInTheUpstreamStreamIsAProviderError) {
  std::vector<std::string> chunks = GymbroUpstreamChunks({"a", "b"}, false);
  chunks.push_back("data: {\"error\":{\"message\":\"overloaded\",\"type\":\"server_error\"}}\n\n");
  StartStreaming(std::move(chunks));
  const Exchange run = Send();
  EXPECT_EQ(run.check.error_code, "provider_error");
  EXPECT_EQ(run.check.error_message, "overloaded");
  EXPECT_EQ(run.check.reply, "ab");
  const Json error = Json::parse(run.stream.events.back().data);
  EXPECT_EQ(error["error"], "overloaded");  // the legacy field
}

TEST_F(GymbroServiceTest, AnUnreachableUpstreamIsAnError) {
  Start(net::FakeHttpClient::Fail(net::HttpFailure::kUnreachable));
  const Exchange run = Send();
  EXPECT_EQ(run.check.error_code, "provider_unavailable");
  EXPECT_EQ(run.check.error_message, "POST http://upstream/v1/chat/completions: Connection");
  EXPECT_TRUE(run.check.valid);
}

TEST_F(GymbroServiceTest, AnUpstreamTimeoutIsAnError) {
  net::FakeHttpClient::Reply stall =
      net::FakeHttpClient::Respond(200, "text/event-stream", GymbroUpstreamChunks({"a"}, false));
  stall.fail_after_chunks = net::HttpFailure::kTimeout;
  Start(std::move(stall));
  const Exchange run = Send();
  EXPECT_EQ(run.check.error_code, "upstream_timeout");
  EXPECT_EQ(run.check.error_message,
            "POST http://upstream/v1/chat/completions: timed out after 20000 ms");
  EXPECT_EQ(run.check.reply, "a");
  EXPECT_TRUE(run.check.valid);
}

TEST_F(GymbroServiceTest, HeartbeatsWhileTheUpstreamIsSilent) {
  // The upstream holds its second chunk until the service has published a
  // heartbeat, which the hook watches for on the service's own event stream.
  net::FakeHttpClient::Reply reply =
      net::FakeHttpClient::Respond(200, "text/event-stream", GymbroUpstreamChunks({"a", "b"}));
  reply.before_chunk = [this](std::size_t i) {
    if (i != 1) return;
    std::string seen;
    net::RealHttpClient()->Send({"GET", EventsUrl("msg_1"), {}, ""},
                                net::HttpTimeouts::All(milliseconds(20000)),
                                {.on_head = {}, .on_body = [&](std::string_view bytes) {
                                   seen.append(bytes);
                                   return seen.find("event: heartbeat") == std::string::npos;
                                 }});
  };
  Start(std::move(reply), milliseconds(50));
  const Exchange run = Send();
  EXPECT_GE(run.check.heartbeats, 1u);
  EXPECT_TRUE(run.check.valid) << run.check.findings[0].message;
  EXPECT_EQ(run.check.reply, "ab");
  EXPECT_EQ(run.check.termination, gymbro::Termination::kCompleted);
}

TEST_F(GymbroServiceTest, RejectsBadInputAndUnknownMessages) {
  StartService("http://upstream/v1", milliseconds(60000), upstream_);
  auto bad =
      PostGymbroMessage(service_->base_url(), R"({"text":5})", std::nullopt, milliseconds(5000));
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(Json::parse(bad->body)["error"]["message"], "/text: expected string");
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

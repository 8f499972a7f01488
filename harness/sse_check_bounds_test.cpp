// sse-check against streams that never end (issue 17): reading stops at the
// event and byte limits and at the total deadline, and says which. The
// streams are net::FakeHttpClient replies; the real client's deadline is tested in
// http_client_test.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "harness/sse_check.h"
#include "net/fake_http_client.h"

namespace llmconform::harness {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;

constexpr std::string_view kHeartbeat =
    "event: heartbeat\ndata: {\"message_id\":\"m\",\"request_id\":\"r\",\"ts\":1}\n\n";

// A 200 text/event-stream of heartbeats: endless, or `n` of them and then a
// timeout.
net::FakeHttpClient::Reply Heartbeats(std::optional<std::size_t> n) {
  net::FakeHttpClient::Reply r =
      net::FakeHttpClient::Respond(200, "text/event-stream", {std::string(kHeartbeat)});
  if (!n) {
    r.endless = true;
  } else {
    r.chunks.assign(*n, std::string(kHeartbeat));
    r.fail_after_chunks = net::HttpFailure::kTimeout;
  }
  return r;
}

TEST(SseCheckBounds, AnEndlessStreamStopsAtMaxEventsWithAFinding) {
  net::FakeHttpClient endless;
  endless.Push(Heartbeats(std::nullopt));
  auto s = CaptureEventStream("http://h/events", "r", milliseconds(60000),
                              StreamLimits{.max_events = 500, .max_bytes = 1 << 30}, endless);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->events.size(), 500u);
  EXPECT_EQ(s->transport_error, "reading stopped after 500 events: more than --max-events 500");
}

TEST(SseCheckBounds, AnEndlessStreamStopsAtMaxBytesWithAFinding) {
  net::FakeHttpClient endless;
  endless.Push(Heartbeats(std::nullopt));
  auto s = CaptureEventStream("http://h/events", "r", milliseconds(60000),
                              StreamLimits{.max_events = 1 << 30, .max_bytes = 100000}, endless);
  ASSERT_TRUE(s) << s.error().message;
  const std::size_t whole = 100000 / kHeartbeat.size();
  EXPECT_EQ(s->events.size(), whole);
  EXPECT_EQ(s->transport_error, "reading stopped after " +
                                    std::to_string(whole * kHeartbeat.size()) +
                                    " bytes: more than --max-bytes 100000");
  // Judged: the stream has no terminal event, and the report says why.
  const std::vector<std::string> rules = {"GYMBRO-6.8"};
  const auto results = JudgeStream(*s, {}, rules);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].outcome, reports::Outcome::kFail);
  EXPECT_THAT(results[0].message, HasSubstr("--max-bytes"));
}

TEST(SseCheckBounds, ASilentStreamStopsAtTheTotalDeadline) {
  net::FakeHttpClient silent;
  silent.Push(Heartbeats(0));
  auto s = CaptureEventStream("http://h/events", "r", milliseconds(300), {}, silent);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(s->events.empty());
  EXPECT_EQ(s->status, 200);
  EXPECT_EQ(s->transport_error, "reading stopped after 300 ms: timed out");
  EXPECT_EQ(silent.timeouts()[0], net::HttpTimeouts::All(milliseconds(300)));
}

TEST(SseCheckBounds, ATricklingStreamStopsAtTheTotalDeadline) {
  net::FakeHttpClient trickle;
  trickle.Push(Heartbeats(7));
  auto s = CaptureEventStream("http://h/events", "r", milliseconds(400), {}, trickle);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->transport_error, "reading stopped after 400 ms: timed out");
  EXPECT_EQ(s->events.size(), 7u);
}

TEST(SseCheckBounds, AStreamCutAfterItsHeadSaysSo) {
  net::FakeHttpClient cut;
  net::FakeHttpClient::Reply r = Heartbeats(2);
  r.fail_after_chunks = net::HttpFailure::kBroken;
  cut.Push(std::move(r));
  auto s = CaptureEventStream("http://h/events", std::nullopt, milliseconds(400), {}, cut);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->events.size(), 2u);
  EXPECT_EQ(s->transport_error, "Read");
}

}  // namespace
}  // namespace llmconform::harness

#include "mockllm/replay_plan.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "protocols/wire/sse.h"

namespace llmconform::mockllm {
namespace {

using llmconform::wire::ParseSse;

RecordedResponse Stream() {
  RecordedResponse r;
  r.streamed = true;
  r.headers = {{"content-type", "text/event-stream"}, {"x-request-id", "req_9"}};
  r.chunks = {{0, "data: {\"n\":0}\n\n"},
              {40, "data: {\"n\""},
              {45, ":1}\n\n"},
              {100, "data: {\"n\":2}\n\ndata: [DONE]\n\n"}};
  return r;
}

const std::string kReplayPlanStream =
    "data: {\"n\":0}\n\ndata: {\"n\":1}\n\ndata: {\"n\":2}\n\ndata: [DONE]\n\n";

Fault ReplayPlanF(const OJson& j) {
  auto f = FaultFromJson(j);
  EXPECT_TRUE(f) << f.error().message;
  return *f;
}

TEST(ReplayPlan, NoFaultKeepsRecordedPiecesAndTimes) {
  const ResponsePlan p = PlanResponse(Stream(), Fault{}, 1);
  EXPECT_TRUE(p.chunked);
  EXPECT_FALSE(p.cut);
  EXPECT_EQ(p.content_type, "text/event-stream");
  ASSERT_EQ(p.headers.size(), 1u);
  EXPECT_EQ(p.headers[0], (std::pair<std::string, std::string>{"x-request-id", "req_9"}));
  ASSERT_EQ(p.pieces.size(), 4u);
  EXPECT_EQ(p.pieces[1], (Piece{40, 0, "data: {\"n\""}));
  EXPECT_EQ(p.Body(), kReplayPlanStream);
}

// The server frames the answer itself: what a recording says of its own
// framing (any case) never reaches the wire beside it.
TEST(ReplayPlan, FramingHeadersARecordingCarriesAreNotReplayed) {
  RecordedResponse r = Stream();
  r.headers = {{"Content-Length", "3"},      {"transfer-encoding", "chunked"},
               {"Connection", "close"},      {"Keep-Alive", "timeout=5"},
               {"TE", "trailers"},           {"Trailer", "x-checksum"},
               {"Upgrade", "h2c"},           {"Proxy-Connection", "keep-alive"},
               {"Content-Encoding", "gzip"}, {"x-request-id", "req_9"}};
  const ResponsePlan p = PlanResponse(r, Fault{}, 1);
  ASSERT_EQ(p.headers.size(), 1u);
  EXPECT_EQ(p.headers[0], (std::pair<std::string, std::string>{"x-request-id", "req_9"}));
  const ResponsePlan faulted = PlanResponse(
      r, ReplayPlanF({{"status", 503}, {"headers", {{"Upgrade", "h2c"}, {"x-a", "1"}}}}), 1);
  ASSERT_EQ(faulted.headers.size(), 1u);
  EXPECT_EQ(faulted.headers[0].first, "x-a");
}

TEST(ReplayPlan, JsonBodyDefaultsItsContentType) {
  RecordedResponse r;
  r.body = OJson{{"b", 1}, {"a", 2}};
  const ResponsePlan p = PlanResponse(r, Fault{}, 0);
  EXPECT_FALSE(p.chunked);
  EXPECT_EQ(p.content_type, "application/json");
  EXPECT_EQ(p.Body(), R"({"b":1,"a":2})");
  EXPECT_EQ(p.content_length, p.Body().size());
}

TEST(ReplayPlan, StatusFaultAnswersAnOpenAiError) {
  const ResponsePlan p = PlanResponse(
      Stream(), ReplayPlanF({{"status", 429}, {"retry_after", 2}, {"retry_after_ms", 1500}}), 0);
  EXPECT_EQ(p.status, 429);
  EXPECT_FALSE(p.chunked);
  EXPECT_EQ(
      p.Body(),
      R"({"error":{"message":"mockllm injected HTTP 429","type":"requests","param":null,"code":"rate_limit_exceeded"}})");
  ASSERT_EQ(p.headers.size(), 4u);
  EXPECT_EQ(p.headers[0], (std::pair<std::string, std::string>{"retry-after", "2"}));
  EXPECT_EQ(p.headers[1], (std::pair<std::string, std::string>{"retry-after-ms", "1500"}));
  // OpenAI's rate-limit headers of an exhausted limit (mockllm/surface_errors.h).
  EXPECT_EQ(p.headers[2],
            (std::pair<std::string, std::string>{"x-ratelimit-remaining-requests", "0"}));
  EXPECT_EQ(p.headers[3],
            (std::pair<std::string, std::string>{"x-ratelimit-reset-requests", "1500ms"}));
  const ResponsePlan custom =
      PlanResponse(Stream(), ReplayPlanF({{"status", 503}, {"body", "busy"}}), 0);
  EXPECT_EQ(custom.Body(), "busy");
  EXPECT_EQ(custom.content_type, "text/plain");
}

TEST(ReplayPlan, EventEdits) {
  EXPECT_EQ(PlanResponse(Stream(), ReplayPlanF({{"drop_done", true}}), 0).Body(),
            "data: {\"n\":0}\n\ndata: {\"n\":1}\n\ndata: {\"n\":2}\n\n");
  EXPECT_EQ(PlanResponse(Stream(), ReplayPlanF({{"malformed_event", 1}}), 0).Body(),
            "data: {\"n\":0}\n\ndata: {\"n\n\ndata: {\"n\":2}\n\ndata: [DONE]\n\n");
  const ResponsePlan error =
      PlanResponse(Stream(), ReplayPlanF({{"error_event", {{"after_events", 2}}}}), 0);
  EXPECT_EQ(error.Body(),
            "data: {\"n\":0}\n\ndata: {\"n\":1}\n\n"
            "data: {\"error\":{\"message\":\"mockllm injected "
            "error\",\"type\":\"server_error\",\"param\":null,"
            "\"code\":null}}\n\n");
  EXPECT_FALSE(error.cut);
  // Event edits re-cut the stream one event a piece, timed by the event's last byte.
  ASSERT_EQ(error.pieces.size(), 3u);
  EXPECT_EQ(error.pieces[1].at_ms, 45);
}

// On the Responses API the injected error is its own `error` event, numbered
// after the events before it.
TEST(ReplayPlan, ErrorEventInTheResponsesShape) {
  RecordedResponse r;
  r.streamed = true;
  r.chunks = {
      {0,
       "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0}\n\n"},
      {5,
       "event: response.in_progress\ndata: "
       "{\"type\":\"response.in_progress\",\"sequence_number\":1}\n\n"},
      {9,
       "event: response.completed\ndata: "
       "{\"type\":\"response.completed\",\"sequence_number\":2}\n\n"}};
  const ResponsePlan p = PlanResponse(r, ReplayPlanF({{"error_event", {{"after_events", 2}}}}), 0,
                                      llmconform::wire::Surface::kResponses);
  EXPECT_EQ(p.Body(),
            r.chunks[0].raw + r.chunks[1].raw +
                "event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":"
                "\"mockllm injected error\",\"param\":null,\"sequence_number\":2}\n\n");
  EXPECT_FALSE(p.cut);
}

TEST(ReplayPlan, CrlfAndBomKeepTheEvents) {
  const ResponsePlan p = PlanResponse(Stream(), ReplayPlanF({{"crlf", true}, {"bom", true}}), 0);
  const std::string body = p.Body();
  EXPECT_EQ(body.substr(0, 3), "\xEF\xBB\xBF");
  EXPECT_EQ(body.find("\n\n"), std::string::npos);
  EXPECT_NE(body.find("data: {\"n\":0}\r\n\r\n"), std::string::npos);
  EXPECT_EQ(ParseSse(body).events, ParseSse(kReplayPlanStream).events);
}

TEST(ReplayPlan, KeepAlivesFollowTheRecordedTimeline) {
  const ResponsePlan p = PlanResponse(Stream(), ReplayPlanF({{"keepalive_ms", 30}}), 0);
  EXPECT_EQ(p.Body(),
            "data: {\"n\":0}\n\n: keep-alive\n\ndata: {\"n\":1}\n\n: keep-alive\n\n: keep-alive\n\n"
            "data: {\"n\":2}\n\ndata: [DONE]\n\n");
  auto parsed = ParseSse(p.Body());
  EXPECT_EQ(parsed.events, ParseSse(kReplayPlanStream).events);
  EXPECT_EQ(parsed.comments, 3u);
}

TEST(ReplayPlan, KeepAlivesAreBoundedPerResponse) {
  // Every 1 ms up to a chunk at 10^12 ms would be 10^12 comments, planned
  // when the trace loads.
  RecordedResponse late = Stream();
  late.chunks.back().t_ms = 1'000'000'000'000;
  const ResponsePlan p = PlanResponse(late, ReplayPlanF({{"keepalive_ms", 1}}), 0);
  EXPECT_EQ(ParseSse(p.Body()).comments, kMaxKeepAlives);
  EXPECT_EQ(ParseSse(p.Body()).events, ParseSse(kReplayPlanStream).events);
}

TEST(ReplayPlan, CutsAfterEventsOrBytes) {
  const ResponsePlan events = PlanResponse(Stream(), ReplayPlanF({{"cut_after_events", 2}}), 0);
  EXPECT_TRUE(events.cut);
  EXPECT_EQ(events.Body(), "data: {\"n\":0}\n\ndata: {\"n\":1}\n\n");
  const ResponsePlan bytes = PlanResponse(Stream(), ReplayPlanF({{"cut_after_bytes", 20}}), 0);
  EXPECT_TRUE(bytes.cut);
  EXPECT_EQ(bytes.Body(), kReplayPlanStream.substr(0, 20));
  EXPECT_EQ(bytes.content_length, kReplayPlanStream.size());
}

TEST(ReplayPlan, StallSitsAtTheEventBoundary) {
  const ResponsePlan p =
      PlanResponse(Stream(), ReplayPlanF({{"stall_ms", 5000}, {"stall_after_events", 1}}), 0);
  EXPECT_EQ(p.Body(), kReplayPlanStream);
  ASSERT_EQ(p.pieces.size(), 4u);
  EXPECT_EQ(p.pieces[1].stall_ms_before, 5000);
  EXPECT_EQ(p.pieces[1].bytes, "data: {\"n\"");
  EXPECT_EQ(p.pieces[0].stall_ms_before, 0);
}

TEST(ReplayPlan, BurstJoinsPiecesExceptAcrossStallsAndResplits) {
  const ResponsePlan plain = PlanResponse(Stream(), Fault{}, 0);
  ASSERT_EQ(plain.burst.size(), 1u);
  EXPECT_EQ(plain.burst[0].bytes, kReplayPlanStream);
  const ResponsePlan stalled =
      PlanResponse(Stream(), ReplayPlanF({{"stall_ms", 10}, {"stall_after_events", 1}}), 0);
  ASSERT_EQ(stalled.burst.size(), 2u);
  EXPECT_EQ(stalled.burst[0].bytes, "data: {\"n\":0}\n\n");
  EXPECT_EQ(stalled.burst[1].stall_ms_before, 10);
  const ResponsePlan resplit = PlanResponse(Stream(), ReplayPlanF({{"resplit", true}}), 3);
  EXPECT_EQ(resplit.burst, resplit.pieces);
}

TEST(ReplayPlan, DelayBeforeTheFirstByte) {
  EXPECT_EQ(PlanResponse(Stream(), ReplayPlanF({{"delay_ms", 250}}), 0).delay_ms, 250);
}

TEST(ReplayPlan, SameSeedSameBytesAndPieces) {
  const ResponsePlan a = PlanResponse(Stream(), ReplayPlanF({{"resplit", true}}), 7);
  const ResponsePlan b = PlanResponse(Stream(), ReplayPlanF({{"resplit", true}}), 7);
  const ResponsePlan c = PlanResponse(Stream(), ReplayPlanF({{"resplit", true}}), 8);
  EXPECT_EQ(a.pieces, b.pieces);
  EXPECT_NE(a.pieces, c.pieces);
  EXPECT_EQ(c.Body(), kReplayPlanStream);
  // A seed in the fault wins over the server's.
  EXPECT_EQ(PlanResponse(Stream(), ReplayPlanF({{"resplit", true}, {"seed", 7}}), 99).pieces,
            a.pieces);
}

TEST(ReplayPlan, SseEventEndsCountOnlyDataBlocks) {
  EXPECT_EQ(SseEventEnds("data: a\n\n: c\n\ndata: b\r\n\r\npartial"),
            (std::vector<std::size_t>{9, 25}));
}

RC_GTEST_PROP(ReplayPlanProperty, AnyResplitReplaysTheSameBytes, (std::uint64_t seed)) {
  RecordedResponse r;
  r.streamed = true;
  std::int64_t at = 0;
  for (const std::string& raw : *rc::gen::arbitrary<std::vector<std::string>>()) {
    at += *rc::gen::inRange(0, 50);
    r.chunks.push_back(Chunk{at, raw});
  }
  std::string original;
  for (const Chunk& c : r.chunks) original += c.raw;
  const ResponsePlan p = PlanResponse(r, ReplayPlanF({{"resplit", true}}), seed);
  RC_ASSERT(p.Body() == original);
  std::int64_t last = 0;
  for (const Piece& piece : p.pieces) {
    RC_ASSERT(!piece.bytes.empty());
    RC_ASSERT(piece.at_ms >= last);  // a piece never goes before its bytes were recorded
    last = piece.at_ms;
  }
  RC_ASSERT(ParseSse(p.Body()).events == ParseSse(original).events);
}

RC_GTEST_PROP(ReplayPlanProperty, SeededSplitCoversTheInput,
              (std::string bytes, std::uint64_t seed)) {
  std::string joined;
  for (const std::string& piece : SeededSplit(bytes, seed)) {
    RC_ASSERT(!piece.empty());
    RC_ASSERT(piece.size() <= 32u);
    joined += piece;
  }
  RC_ASSERT(joined == bytes);
}

}  // namespace
}  // namespace llmconform::mockllm

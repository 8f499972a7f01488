#include "net/fake_http_client.h"

#include <gtest/gtest.h>

namespace llmconform::net {
namespace {

using std::chrono::milliseconds;

const HttpRequest kGet{"GET", "http://h/e", {{"Accept", "text/event-stream"}}, ""};

TEST(FakeHttpClient, AnswersInOrderAndRecordsWhatWasSent) {
  FakeHttpClient fake;
  fake.Push(FakeHttpClient::Respond(200, "text/plain", {"a", "b"}));
  fake.Push(FakeHttpClient::Respond(500, "application/json", {"{}"}));
  auto first = fake.Send(kGet, HttpTimeouts::All(milliseconds(7)));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200);
  EXPECT_EQ(first->headers.at("content-type"), "text/plain");
  EXPECT_EQ(first->body, "ab");
  const HttpRequest post{"POST", "http://h/p", {}, "{\"x\":1}"};
  auto second = fake.Send(post, {});
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 500);
  auto none = fake.Send(kGet, {});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().failure, HttpFailure::kUnreachable);
  EXPECT_EQ(fake.requests(), (std::vector<HttpRequest>{kGet, post, kGet}));
  EXPECT_EQ(fake.timeouts()[0], HttpTimeouts::All(milliseconds(7)));
}

TEST(FakeHttpClient, StreamsChunksToTheHandlersAndKeepsNoCopy) {
  FakeHttpClient fake;
  FakeHttpClient::Reply reply = FakeHttpClient::Respond(200, "text/event-stream", {"1", "2", "3"});
  std::vector<std::size_t> before;
  reply.before_chunk = [&](std::size_t i) { before.push_back(i); };
  fake.Push(std::move(reply));
  std::string seen;
  auto r = fake.Send(kGet, {},
                     {.on_head =
                          [&](const HttpResponse& head) {
                            seen += "head" + std::to_string(head.status) + " ";
                            return true;
                          },
                      .on_body =
                          [&](std::string_view b) {
                            seen += std::string(b) + " ";
                            return true;
                          }});
  ASSERT_TRUE(r);
  EXPECT_EQ(seen, "head200 1 2 3 ");
  EXPECT_EQ(r->body, "");
  EXPECT_EQ(before, (std::vector<std::size_t>{0, 1, 2}));
}

TEST(FakeHttpClient, AStopBetweenChunksCancels) {
  FakeHttpClient fake;
  std::stop_source stop;
  FakeHttpClient::Reply reply = FakeHttpClient::Respond(200, "text/event-stream", {"x"});
  reply.endless = true;
  reply.before_chunk = [&](std::size_t i) {
    if (i == 3) stop.request_stop();
  };
  fake.Push(std::move(reply));
  std::size_t chunks = 0;
  auto r = fake.Send(kGet, {},
                     {.on_body =
                          [&](std::string_view) {
                            ++chunks;
                            return true;
                          },
                      .stop = stop.get_token()});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().failure, HttpFailure::kCancelled);
  EXPECT_EQ(chunks, 3u);
}

TEST(FakeHttpClient, AnEndlessReplyRunsUntilTheCallerCancels) {
  FakeHttpClient fake;
  FakeHttpClient::Reply reply = FakeHttpClient::Respond(200, "text/event-stream", {"x"});
  reply.endless = true;
  fake.Push(std::move(reply));
  int n = 0;
  auto r =
      fake.Send(kGet, {}, {.on_head = {}, .on_body = [&](std::string_view) { return ++n < 1000; }});
  ASSERT_FALSE(r);
  EXPECT_EQ(n, 1000);
  EXPECT_EQ(r.error().failure, HttpFailure::kCancelled);
  EXPECT_EQ(r.error().message, "GET http://h/e: cancelled by the client");
}

TEST(FakeHttpClient, ScriptedFailuresReadLikeTheRealClientsErrors) {
  FakeHttpClient fake;
  fake.Push(FakeHttpClient::Fail(HttpFailure::kUnreachable));
  FakeHttpClient::Reply cut = FakeHttpClient::Respond(200, "text/event-stream", {"a"});
  cut.fail_after_chunks = HttpFailure::kTimeout;
  fake.Push(std::move(cut));
  auto down = fake.Send(kGet, {});
  ASSERT_FALSE(down);
  EXPECT_EQ(down.error().failure, HttpFailure::kUnreachable);
  EXPECT_EQ(down.error().message, "GET http://h/e: Connection");
  std::string body;
  auto slow = fake.Send(kGet, HttpTimeouts::All(milliseconds(300)),
                        {.on_head = {}, .on_body = [&](std::string_view b) {
                           body.append(b);
                           return true;
                         }});
  ASSERT_FALSE(slow);
  EXPECT_EQ(body, "a");
  EXPECT_EQ(slow.error().failure, HttpFailure::kTimeout);
  EXPECT_EQ(slow.error().what, "timed out after 300 ms");
  auto bad = fake.Send({"GET", "ftp://x", {}, ""}, {});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().failure, HttpFailure::kBadUrl);
}

}  // namespace
}  // namespace llmconform::net

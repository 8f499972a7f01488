// previous_response_id chains in replay, and the API-shaped errors mockllm
// answers on each surface's paths.

#include "mockllm/response_chain.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include "base/test_paths.h"
#include "mockllm/server.h"

namespace llmconform::mockllm {
namespace {

using ::testing::HasSubstr;

const std::string kChain = std::string(test_paths::SourceRoot()) +
                           "/fixtures/recorded/openai-responses/"
                           "test_openai_previous_response_id.trace.jsonl";

// The recorded requests, as the openai SDK sends them.
const std::string kResponseChainFirst =
    R"({"input":[{"content":"The secret key is sesame","role":"user"}],"instructions":"","model":"gpt-5","text":{"format":{"type":"text"}}})";
std::string Second(std::string_view previous) {
  return std::string(
             R"({"input":[{"content":"What is the secret key again?","role":"user"}],"instructions":"","model":"gpt-5","text":{"format":{"type":"text"}},"previous_response_id":")") +
         std::string(previous) + "\"}";
}

std::unique_ptr<Server> Start(const std::string& file) {
  auto t = LoadTraceFile(file);
  EXPECT_TRUE(t) << file;
  auto s = Server::Start({*t}, {});
  EXPECT_TRUE(s) << s.error().message;
  return std::move(*s);
}

httplib::Result ResponseChainPost(const Server& s, const std::string& path, const std::string& body,
                                  const char* type = "application/json") {
  httplib::Client c("127.0.0.1", s.port());
  c.set_read_timeout(10, 0);
  return c.Post(path, body, type);
}

TEST(ResponseChain, RecordedIds) {
  auto t = LoadTraceFile(kChain);
  ASSERT_TRUE(t);
  EXPECT_EQ(RecordedResponseId(t->exchanges[0].response), "resp_1234");
  EXPECT_EQ(RecordedResponseId(t->exchanges[1].response), "resp_5678");
  RecordedResponse streamed;
  streamed.streamed = true;
  streamed.chunks = {{0, "event: response.created\ndata: {\"type\":\"response.created\","},
                     {1, "\"response\":{\"id\":\"resp_s\"}}\n\n"}};
  EXPECT_EQ(RecordedResponseId(streamed), "resp_s");
  EXPECT_EQ(RecordedResponseId(RecordedResponse{}), "");
}

// A chain replays in order, unpinned and pinned: the second request names the
// first response's id, which the first replayed response carried.
TEST(ResponseChain, AChainReplaysInOrder) {
  for (const bool pinned : {false, true}) {
    auto s = Start(kChain);
    const std::string base =
        pinned ? "/t/" + UrlEncode("openai/test_openai_previous_response_id") : "";
    auto first = ResponseChainPost(*s, base + "/v1/responses", kResponseChainFirst);
    ASSERT_TRUE(first);
    ASSERT_EQ(first->status, 200) << first->body;
    const std::string id = Json::parse(first->body)["id"];
    auto second = ResponseChainPost(*s, base + "/v1/responses", Second(id));
    ASSERT_TRUE(second);
    EXPECT_EQ(second->status, 200) << second->body;
    EXPECT_EQ(Json::parse(second->body)["previous_response_id"], id);
  }
}

// An id no replayed response carried is the API's 400, journaled; a pinned
// session keeps its place, so the right id then matches.
TEST(ResponseChain, AnUnknownPreviousResponseIsTheApisError) {
  auto s = Start(kChain);
  const std::string pinned = "/t/" + UrlEncode("openai/test_openai_previous_response_id");
  // Before the first response was replayed its id is unknown too.
  auto early = ResponseChainPost(*s, pinned + "/v1/responses", Second("resp_1234"));
  ASSERT_TRUE(early);
  EXPECT_EQ(early->status, 400);
  ASSERT_TRUE(ResponseChainPost(*s, pinned + "/v1/responses", kResponseChainFirst));
  auto wrong = ResponseChainPost(*s, pinned + "/v1/responses", Second("resp_nope"));
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 400);
  EXPECT_EQ(
      Json::parse(wrong->body),
      Json::parse(
          R"({"error":{"message":"Previous response with id 'resp_nope' not found.","type":"invalid_request_error","param":"previous_response_id","code":"previous_response_not_found"}})"));
  auto right = ResponseChainPost(*s, pinned + "/v1/responses", Second("resp_1234"));
  ASSERT_TRUE(right);
  EXPECT_EQ(right->status, 200) << right->body;
  const Json journal = s->Journal();
  ASSERT_EQ(journal.size(), 4u);
  EXPECT_EQ(journal[2]["response"]["status"], 400);
  EXPECT_EQ(journal[2]["findings"][0]["rule"], "malformed_request");
  EXPECT_THAT(journal[2]["findings"][0]["message"].get<std::string>(), HasSubstr("resp_nope"));
  // A reset forgets the replayed ids.
  s->Reset();
  auto after = ResponseChainPost(*s, "/v1/responses", Second("resp_1234"));
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 400);
}

// A recording that begins mid-chain names an id none of its responses carries: it replays.
TEST(ResponseChain, ARecordingThatBeginsMidChainReplays) {
  auto t = LoadTraceFile(kChain);
  ASSERT_TRUE(t);
  t->exchanges.erase(t->exchanges.begin());
  auto s = Server::Start({*t}, {});
  ASSERT_TRUE(s);
  auto r = ResponseChainPost(**s, "/v1/responses", Second("resp_1234"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
}

// Where mockllm stands in for the API (a body that is not JSON), it answers
// in the shape of the surface of the path; its own errors keep OpenAI's.
TEST(SurfaceShapedAnswers, NotJsonOnEachSurface) {
  auto s = Start(kChain);
  auto messages = ResponseChainPost(*s, "/v1/messages", "{oops");
  ASSERT_TRUE(messages);
  EXPECT_EQ(messages->status, 400);
  const Json m = Json::parse(messages->body);
  EXPECT_EQ(m["type"], "error");
  EXPECT_EQ(m["error"]["type"], "invalid_request_error");
  EXPECT_THAT(m["error"]["message"].get<std::string>(), HasSubstr("not valid JSON"));
  auto gemini = ResponseChainPost(*s, "/v1beta/models/gemini-2.5-flash:generateContent", "{oops");
  ASSERT_TRUE(gemini);
  const Json g = Json::parse(gemini->body);
  EXPECT_EQ(g["error"]["code"], 400);
  EXPECT_EQ(g["error"]["status"], "INVALID_ARGUMENT");
  auto responses = ResponseChainPost(*s, "/v1/responses", "{oops");
  ASSERT_TRUE(responses);
  EXPECT_EQ(Json::parse(responses->body)["error"]["code"], "invalid_json");
  auto unmatched =
      ResponseChainPost(*s, "/v1/messages", R"({"model":"claude","max_tokens":1,"messages":[]})");
  ASSERT_TRUE(unmatched);
  EXPECT_EQ(Json::parse(unmatched->body)["error"]["type"], "mockllm_no_match");
}

// The listener's refusal of a body over the limit, too.
TEST(SurfaceShapedAnswers, BodyTooLargeOnTheMessagesPath) {
  auto t = LoadTraceFile(kChain);
  ASSERT_TRUE(t);
  auto s = Server::Start({*t}, {.listen = {.max_body_bytes = 64}});
  ASSERT_TRUE(s);
  auto r = ResponseChainPost(**s, "/v1/messages", std::string(200, ' ') + "{}");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  Json j = Json::parse(r->body);  // not const: a missing member reads as null
  EXPECT_EQ(j["type"], "error");
  EXPECT_EQ(j["error"]["type"], "request_too_large");
}

}  // namespace
}  // namespace llmconform::mockllm

#include "mockllm/http_message.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace llmconform::mockllm {
namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

// Paths are decoded as cpp-httplib decoded them before the listener had its
// own request type: recorded paths (the recorder's, the journal's) stay as
// they were.
TEST(DecodeUrl, PercentEscapesAndUnicodeEscapesAreDecodedOthersKept) {
  EXPECT_EQ(DecodeUrl("/a%2fb+%u0041%zz", false), "/a/b+A%zz");
  EXPECT_EQ(DecodeUrl("a+b%20c", true), "a b c");
  EXPECT_EQ(DecodeUrl("%u00e9%C3%A9", false), "\xC3\xA9\xC3\xA9");
  EXPECT_EQ(DecodeUrl("%u20AC", false), "\xE2\x82\xAC");
  EXPECT_EQ(DecodeUrl("x%uD800y", false), "xy");  // a lone surrogate is left out
  EXPECT_EQ(DecodeUrl("%", false), "%");
  EXPECT_EQ(DecodeUrl("%4", false), "%4");
  EXPECT_EQ(DecodeUrl("%u12", false), "%u12");
  EXPECT_EQ(DecodeUrl("%00", false), std::string(1, '\0'));
}

TEST(ParseTarget, PathAndQueryParameters) {
  HttpRequest req;
  req.target = "/__admin/journal%2Fx?a=1&b&c=%41+x&=z&a=2&a=1&&d=1=2";
  ParseTarget(req);
  EXPECT_EQ(req.path, "/__admin/journal/x");
  const Fields params(req.params.begin(), req.params.end());
  EXPECT_EQ(params,
            (Fields{{"a", "1"}, {"a", "2"}, {"b", ""}, {"c", "A x"}, {"d", "2"}, {"z", ""}}));
  EXPECT_TRUE(req.HasParam("b"));
  EXPECT_EQ(req.Param("a"), "1");
  EXPECT_FALSE(req.HasParam("A"));
  EXPECT_EQ(req.Param("missing"), "");

  req.target = "/v1/chat/completions";
  ParseTarget(req);
  EXPECT_EQ(req.path, "/v1/chat/completions");
  EXPECT_TRUE(req.params.empty());
}

TEST(HttpFields, NamesCompareCaseInsensitivelyAndKeepTheirSpellingAndOrder) {
  HttpRequest req;
  req.headers.emplace("X-Trace", "one");
  req.headers.emplace("content-type", "application/json");
  req.headers.emplace("x-trace", "two");
  req.headers.emplace("REMOTE_ADDR", "sent by the client");
  EXPECT_TRUE(req.HasHeader("Content-Type"));
  EXPECT_EQ(req.Header("X-TRACE"), "one");
  EXPECT_EQ(req.Header("Accept"), "");
  // Lower-cased, ordered by name, nothing a client sent left out.
  EXPECT_EQ(RequestHeaders(req.headers), (Fields{{"content-type", "application/json"},
                                                 {"remote_addr", "sent by the client"},
                                                 {"x-trace", "one"},
                                                 {"x-trace", "two"}}));
}

TEST(HttpResponse, TheLastBodySetIsItsOneBodyWithOneContentType) {
  HttpResponse res;
  EXPECT_TRUE(std::holds_alternative<HttpResponse::None>(res.body));
  EXPECT_EQ(res.status, 200);
  res.SetBody("first", "text/plain");
  auto owner = std::make_shared<std::string>("{\"a\":1}");
  res.LendBody(owner, *owner, "application/json");
  ASSERT_TRUE(std::holds_alternative<HttpResponse::Lent>(res.body));
  EXPECT_EQ(res.Bytes(), "{\"a\":1}");
  EXPECT_EQ(res.headers.count("content-type"), 1u);
  EXPECT_EQ(FieldValue(res.headers, "Content-Type"), "application/json");
  EXPECT_EQ(owner.use_count(), 2);  // the response holds the lent bytes' owner

  res.ProvideBody(std::nullopt, "text/event-stream", [](std::size_t, HttpSink&) { return true; });
  const auto* provided = std::get_if<HttpResponse::Provided>(&res.body);
  ASSERT_NE(provided, nullptr);
  EXPECT_FALSE(provided->length.has_value());
  EXPECT_EQ(res.Bytes(), "");
  EXPECT_EQ(owner.use_count(), 1);
  EXPECT_EQ(FieldValue(res.headers, "Content-Type"), "text/event-stream");

  res.SetHeader("X-Kept", "1");
  res.FinishOnWorker([](HttpResponse& r) { r.SetBody("done", "text/plain"); });
  ASSERT_TRUE(std::holds_alternative<HttpResponse::OnWorker>(res.body));
  EXPECT_EQ(FieldValue(res.headers, "X-Kept"), "1");  // fields stay
}

TEST(HttpResponse, FieldsWithLineBreaksAreNotAddedAndSecondValuesDoNotReplace) {
  HttpResponse res;
  res.SetHeader("X-A", "1");
  res.SetHeader("x-a", "2");
  res.SetHeader("X-B", "a\r\nX-Injected: 1");
  res.SetHeader("X-C\n", "1");
  EXPECT_EQ(Fields(res.headers.begin(), res.headers.end()), (Fields{{"X-A", "1"}, {"x-a", "2"}}));
}

TEST(HttpResponse, OnWrittenRunsOnceWhenLetGoToldWhetherTheAnswerLeftWhole) {
  std::vector<bool> told;
  {
    HttpResponse res;
    res.on_written = [&](bool whole) { told.push_back(whole); };
  }
  {
    HttpResponse res;
    res.on_written = [&](bool whole) { told.push_back(whole); };
    res.written_whole = true;
  }
  EXPECT_EQ(told, (std::vector<bool>{false, true}));
}

TEST(AnswerJson, StatusAndCompactJson) {
  HttpResponse res;
  AnswerJson(res, 404, {{"error", {{"message", "no"}}}});
  EXPECT_EQ(res.status, 404);
  EXPECT_EQ(res.Bytes(), "{\"error\":{\"message\":\"no\"}}");
  EXPECT_EQ(FieldValue(res.headers, "Content-Type"), "application/json");
}

}  // namespace
}  // namespace llmconform::mockllm

#include "mockllm/trace.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <utility>
#include <vector>

namespace llmconform::mockllm {
namespace {

constexpr std::string_view kTraceHeader =
    R"({"format":"llmconform-trace/1","id":"t/one","origin":"synthesized"})";

std::string TraceText(std::initializer_list<std::string_view> exchanges) {
  std::string out(kTraceHeader);
  out += "\n";
  for (auto x : exchanges) {
    out += x;
    out += "\n";
  }
  return out;
}

TEST(TraceFormat, ReadsHeaderAndExchanges) {
  auto t = ParseTrace(
      TraceText(
          {R"({"seq":1,"request":{"method":"POST","path":"/v1/chat/completions","headers":{},"body":{"model":"m","messages":[]}},"response":{"status":200,"headers":{"content-type":"application/json"},"body":{"id":"x","object":"chat.completion"}}})"}),
      "a.jsonl");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->id, "t/one");
  ASSERT_EQ(t->exchanges.size(), 1u);
  const Exchange& x = t->exchanges[0];
  EXPECT_EQ(x.seq, 1);
  EXPECT_EQ(x.line, 2u);
  EXPECT_EQ(x.request.path, "/v1/chat/completions");
  EXPECT_FALSE(x.response.streamed);
  // Keys keep their file order in the replayed body.
  EXPECT_EQ(x.response.BodyBytes(), R"({"id":"x","object":"chat.completion"})");
}

TEST(TraceFormat, ExpandsEventsToStandardFraming) {
  auto t = ParseTrace(
      TraceText(
          {R"({"request":{"path":"/v1/chat/completions"},"response":{"status":200,"events":[{"data":{"b":1,"a":2}},{"comment":"keep-alive","t_ms":5},{"event":"status","id":"7","data":"x\ny","t_ms":9},{"data":"[DONE]"}]}})"}),
      "a.jsonl");
  ASSERT_TRUE(t) << t.error().message;
  const auto& chunks = t->exchanges[0].response.chunks;
  ASSERT_EQ(chunks.size(), 4u);
  EXPECT_EQ(chunks[0], (Chunk{0, "data: {\"b\":1,\"a\":2}\n\n"}));
  EXPECT_EQ(chunks[1], (Chunk{5, ": keep-alive\n\n"}));
  EXPECT_EQ(chunks[2], (Chunk{9, "event: status\nid: 7\ndata: x\ndata: y\n\n"}));
  EXPECT_EQ(chunks[3], (Chunk{9, "data: [DONE]\n\n"}));
  EXPECT_TRUE(t->exchanges[0].response.streamed);
}

TEST(TraceFormat, ErrorsNameFileLineColumnAndPointer) {
  auto bad_status = ParseTrace(
      TraceText({R"({"request":{"path":"/v1/x"},"response":{"status":"200"}})"}), "f.jsonl");
  ASSERT_FALSE(bad_status);
  EXPECT_EQ(bad_status.error().message,
            "f.jsonl:2:50: /response/status: expected integer, got string");

  // Compared before it is narrowed to an int, where it would read 200.
  auto wrapped = ParseTrace(
      TraceText({R"({"request":{"path":"/v1/x"},"response":{"status":4294967496}})"}), "f.jsonl");
  ASSERT_FALSE(wrapped);
  EXPECT_EQ(wrapped.error().message,
            "f.jsonl:2:50: /response/status: expected a final HTTP status 200-599, got 4294967496");

  // A 1xx is no final answer.
  auto informational = ParseTrace(
      TraceText({R"({"request":{"path":"/v1/x"},"response":{"status":101}})"}), "f.jsonl");
  ASSERT_FALSE(informational);
  EXPECT_EQ(informational.error().message,
            "f.jsonl:2:50: /response/status: expected a final HTTP status 200-599, got 101");

  // Response headers are replayed: names are tokens, values hold no control
  // character (a HAR's "Content-Length " replayed beside the real one).
  for (const auto& [headers, says] : std::vector<std::pair<std::string, std::string>>{
           {R"({"Content-Length ":"3"})",
            "/response/headers/Content-Length : the header name \"Content-Length \" is not an "
            "HTTP token (byte 14 is 0x20)"},
           {R"({"X:Injected":"1"})",
            "/response/headers/X:Injected: the header name \"X:Injected\" is not an HTTP token "
            "(byte 1 is ':')"},
           {R"({"x-a/b":"1"})",
            "/response/headers/x-a~1b: the header name \"x-a/b\" is not an HTTP token (byte 3 is "
            "'/')"},
           {R"({"x":"a\u000bb"})",
            "/response/headers/x: the header value holds a control character (0x0b at byte 1)"}}) {
    auto bad =
        ParseTrace(TraceText({R"({"request":{"path":"/v1/x"},"response":{"status":200,"headers":)" +
                              headers + "}}"}),
                   "f.jsonl");
    ASSERT_FALSE(bad) << headers;
    EXPECT_NE(bad.error().message.find(says), std::string::npos) << bad.error().message;
  }
  // Request headers are not replayed; a tab is no control character here.
  EXPECT_TRUE(ParseTrace(
      TraceText(
          {R"({"request":{"path":"/v1/x","headers":{"a b":"\u0001"}},"response":{"status":200,"headers":{"x":"a\tb"}}})"}),
      "f.jsonl"));

  auto syntax = ParseTrace(TraceText({R"({"request":{"path":"/v1/x"},})"}), "f.jsonl");
  ASSERT_FALSE(syntax);
  EXPECT_EQ(syntax.error().message,
            "f.jsonl:2:29: syntax error while parsing object key - unexpected '}'; expected string "
            "literal");

  auto missing = ParseTrace(TraceText({R"({"request":{"path":"/v1/x"}})"}), "f.jsonl");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "f.jsonl:2:1: /: missing field \"response\"");

  auto header = ParseTrace(R"({"format":"other/2","id":"x"})", "h.jsonl");
  ASSERT_FALSE(header);
  EXPECT_EQ(header.error().message,
            "h.jsonl:1:11: /format: expected \"llmconform-trace/1\", got \"other/2\"");

  auto empty = ParseTrace("\n\n", "e.jsonl");
  ASSERT_FALSE(empty);
  EXPECT_EQ(
      empty.error().message,
      "e.jsonl:1:1: empty trace: expected a header line {\"format\":\"llmconform-trace/1\",…}");

  auto backwards = ParseTrace(
      TraceText(
          {R"({"request":{"path":"/v1/x"},"response":{"status":200,"chunks":[{"t_ms":5,"raw":"a"},{"t_ms":4,"raw":"b"}]}})"}),
      "f.jsonl");
  ASSERT_FALSE(backwards);
  EXPECT_EQ(backwards.error().message,
            "f.jsonl:2:93: /response/chunks/1/t_ms: t_ms goes backwards (4 after 5)");

  auto fault = ParseTrace(
      TraceText(
          {R"({"request":{"path":"/v1/x"},"response":{"status":200},"fault":{"stutter":1}})"}),
      "f.jsonl");
  ASSERT_FALSE(fault);
  EXPECT_EQ(fault.error().message.substr(0, 55),
            "f.jsonl:2:74: /fault/stutter: unknown fault \"stutter\" (");
}

TEST(TraceFormat, RefusesNestingTooDeepToWalk) {
  auto deep = ParseTrace(TraceText({std::string(600, '[') + std::string(600, ']')}), "d.jsonl");
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().message, "d.jsonl:2:513: arrays and objects nest deeper than 512 levels");
}

TEST(TraceFormat, WritesInvalidUtf8PiecesAsBase64) {
  Trace t;
  t.id = "b";
  t.header = {{"format", "llmconform-trace/1"}, {"id", "b"}};
  Exchange x;
  x.request.path = "/v1/chat/completions";
  x.response.streamed = true;
  x.response.chunks = {{0, "data: \xE4\xBD"}, {3, "\xA0\n\n"}};  // a character split across reads
  t.exchanges.push_back(x);
  const std::string text = WriteTrace(t);
  EXPECT_NE(text.find("\"raw_b64\""), std::string::npos);
  auto back = ParseTrace(text, "b.jsonl");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->exchanges[0].response.chunks, x.response.chunks);
}

TEST(TraceFormat, Base64RoundTrip) {
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Decode("Zm8="), "fo");
  EXPECT_FALSE(Base64Decode("Zm8"));
  EXPECT_FALSE(Base64Decode("Z=8="));
}

TEST(TraceFromJson, BuildsWhatParseTraceReadsFromTheSameLines) {
  const OJson header = OJson::parse(kTraceHeader);
  const OJson exchanges = OJson::parse(
      R"([{"seq":1,"request":{"path":"/v1/chat/completions","body":{"model":"m"}},"response":{"status":200,"body":{"b":1,"a":2}},"note":"kept"},
          {"request":{"path":"/v1/x"},"response":{"status":200,"events":[{"data":"[DONE]"}]}}])");
  auto t = TraceFromJson(header, exchanges, "POST");
  ASSERT_TRUE(t) << t.error().message;
  auto lines = ParseTrace(TraceText({exchanges[0].dump(), exchanges[1].dump()}), "a.jsonl");
  ASSERT_TRUE(lines) << lines.error().message;
  EXPECT_EQ(*t, *lines);
  EXPECT_EQ(t->id, "t/one");
  EXPECT_EQ(t->source, "POST");
  ASSERT_EQ(t->exchanges.size(), 2u);
  EXPECT_EQ(t->exchanges[0].line, 0u);  // built from JSON, not read from a line
  EXPECT_EQ(t->exchanges[0].extra, (OJson{{"note", "kept"}}));
  EXPECT_EQ(t->exchanges[0].response.BodyBytes(), R"({"b":1,"a":2})");
  EXPECT_EQ(t->exchanges[1].response.chunks, (std::vector<Chunk>{{0, "data: [DONE]\n\n"}}));
  // null: a trace without exchanges.
  auto empty = TraceFromJson(header, nullptr, "POST");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->exchanges.empty());
  EXPECT_EQ(empty->header, header);
}

TEST(TraceFromJson, ChecksTheHeaderAsAHeaderLine) {
  auto no_id = TraceFromJson({{"format", kTraceFormat}}, OJson::array(), "POST");
  ASSERT_FALSE(no_id);
  EXPECT_EQ(no_id.error().pointer, "");
  EXPECT_EQ(no_id.error().message, "/: missing field \"id\"");
  auto format = TraceFromJson({{"format", "other/2"}, {"id", "x"}}, nullptr, "POST");
  ASSERT_FALSE(format);
  EXPECT_EQ(format.error().pointer, "/format");
  EXPECT_EQ(format.error().what, "expected \"llmconform-trace/1\", got \"other/2\"");
  auto empty_id = TraceFromJson({{"format", kTraceFormat}, {"id", ""}}, nullptr, "POST");
  ASSERT_FALSE(empty_id);
  EXPECT_EQ(empty_id.error().pointer, "/id");
}

TEST(TraceFromJson, ErrorsPointIntoTheTraceObjectAndLocateInItsText) {
  const std::string text =
      "{\"format\":\"llmconform-trace/1\",\"id\":\"t\",\"exchanges\":[\n"
      "  {\"request\":{\"path\":\"/v1/x\"},\"response\":{\"status\":200}},\n"
      "  {\"request\":{\"path\":\"/v1/x\"},\"response\":{\"status\":\"200\"}}\n"
      "]}";
  OJson object = OJson::parse(text);
  const OJson exchanges = object["exchanges"];
  object.erase("exchanges");
  auto bad = TraceFromJson(object, exchanges, "t.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().pointer, "/exchanges/1/response/status");
  EXPECT_EQ(bad.error().what, "expected integer, got string");
  EXPECT_EQ(PlacedInText(bad.error(), "t.json", text).message,
            "t.json:3:52: /exchanges/1/response/status: expected integer, got string");

  auto not_array = TraceFromJson(object, "none", "t.json");
  ASSERT_FALSE(not_array);
  EXPECT_EQ(not_array.error().pointer, "/exchanges");
  EXPECT_EQ(not_array.error().what, "expected array, got string");
  auto not_object = TraceFromJson(object, OJson::array({1}), "t.json");
  ASSERT_FALSE(not_object);
  EXPECT_EQ(not_object.error().pointer, "/exchanges/0");
  EXPECT_EQ(not_object.error().what, "expected object, got number");
}

// A generator of exchanges built from arbitrary strings and JSON-ish values.
OJson GenValue(int depth) {
  const int kind = *rc::gen::inRange(0, depth > 0 ? 6 : 4);
  switch (kind) {
    case 0:
      return *rc::gen::arbitrary<int>();
    case 1:
      return *rc::gen::arbitrary<std::string>();
    case 2:
      return *rc::gen::arbitrary<bool>();
    case 3:
      return nullptr;
    case 4: {
      OJson a = OJson::array();
      const int n = *rc::gen::inRange(0, 3);
      for (int i = 0; i < n; ++i) a.push_back(GenValue(depth - 1));
      return a;
    }
    default: {
      OJson o = OJson::object();
      const int n = *rc::gen::inRange(0, 3);
      for (int i = 0; i < n; ++i) o[*rc::gen::arbitrary<std::string>()] = GenValue(depth - 1);
      return o;
    }
  }
}

RC_GTEST_PROP(TraceFormatProperty, WriteReadWriteIsIdentical, ()) {
  Trace t;
  t.id = *rc::gen::nonEmpty(rc::gen::arbitrary<std::string>());
  t.header = {{"format", "llmconform-trace/1"}, {"id", t.id}, {"notes", GenValue(2)}};
  const int n = *rc::gen::inRange(0, 4);
  for (int i = 0; i < n; ++i) {
    Exchange x;
    x.seq = i + 1;
    x.request.path = "/v1/" + *rc::gen::arbitrary<std::string>();
    x.request.body = GenValue(3);
    x.response.status = *rc::gen::inRange(200, 600);
    if (*rc::gen::arbitrary<bool>()) {
      x.response.streamed = true;
      std::int64_t at = 0;
      for (auto& raw : *rc::gen::arbitrary<std::vector<std::string>>()) {
        at += *rc::gen::inRange(0, 100);
        x.response.chunks.push_back(Chunk{at, raw});
      }
    } else if (*rc::gen::arbitrary<bool>()) {
      x.response.raw = *rc::gen::arbitrary<std::string>();
    } else {
      x.response.body = GenValue(3);
    }
    t.exchanges.push_back(std::move(x));
  }
  const std::string once = WriteTrace(t);
  auto back = ParseTrace(once, "p.jsonl");
  RC_ASSERT(back.has_value());
  RC_ASSERT(WriteTrace(*back) == once);
}

}  // namespace
}  // namespace llmconform::mockllm

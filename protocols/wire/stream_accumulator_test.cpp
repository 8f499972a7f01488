#include "protocols/wire/stream_accumulator.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

namespace llmconform::wire {
namespace {

std::vector<std::string> Rules(const AccumulatedStream& s) {
  std::vector<std::string> out;
  for (const auto& f : s.findings) out.push_back(f.rule);
  return out;
}

const char* kParallelToolCalls =
    "data: "
    "{\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,"
    "\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":"
    "\"fs_read\","
    "\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n"
    "data: "
    "{\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
    "{\"arguments\":\"{\\\"path\\\":\"}}]},\"finish_reason\":null}]}\n\n"
    "data: "
    "{\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
    "{\"arguments\":\"\\\"a\\\"}\"}}]},\"finish_reason\":null}]}\n\n"
    "data: "
    "{\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_"
    "b\","
    "\"type\":\"function\",\"function\":{\"name\":\"fs_list\",\"arguments\":\"{}\"}}]},\"finish_"
    "reason\":null}]}\n\n"
    "data: "
    "{\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
    "data: {\"id\":\"c\",\"choices\":[],\"usage\":{\"total_tokens\":9}}\n\n"
    "data: [DONE]\n\n";

TEST(StreamAccumulator, ParallelToolCallsOpenAiStyle) {
  auto s = AccumulateStream(kParallelToolCalls);
  ASSERT_EQ(s.message.tool_calls.size(), 2u);
  EXPECT_EQ(s.message.tool_calls[0].id, "call_a");
  EXPECT_EQ(s.message.tool_calls[0].function.arguments, "{\"path\":\"a\"}");
  EXPECT_EQ(s.message.tool_calls[1].function.name, "fs_list");
  EXPECT_EQ(s.finish_reason, "tool_calls");
  EXPECT_EQ(s.usage["total_tokens"], 9);
  EXPECT_TRUE(s.saw_done);
  EXPECT_TRUE(s.findings.empty()) << s.findings[0].message;
  EXPECT_TRUE(s.message.content->is_null());
}

// Mistral's reasoning models (magistral-medium-2509, as quoted raw in
// BerriAI/litellm#16272): thinking blocks in delta.content, then text as a
// plain string.
const char* kMistralThinking =
    R"(data: {"id":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}

data: {"id":"m","choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"The user "}]}]},"finish_reason":null}]}

data: {"id":"m","choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":[{"type":"text","text":"says hello."}]}]},"finish_reason":null}]}

data: {"id":"m","choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}

data: {"id":"m","choices":[{"index":0,"delta":{"content":"!"},"finish_reason":"stop"}],"usage":{"total_tokens":7}}

data: [DONE]

)";

TEST(StreamAccumulator, MistralContentArrayKeepsThinkingAsTheBodyWould) {
  auto s = AccumulateStream(kMistralThinking);
  ASSERT_TRUE(s.message.content && s.message.content->is_array()) << s.message.content->dump();
  EXPECT_EQ(*s.message.content, Json::parse(R"([
    {"type":"thinking","thinking":[{"type":"text","text":"The user says hello."}]},
    {"type":"text","text":"Hello!"}])"));
  EXPECT_EQ(s.message.Text(), "Hello!");
  EXPECT_EQ(s.message.ContentThinking(), "The user says hello.");
  EXPECT_EQ(Rules(s), std::vector<std::string>{"DIA-CONTENT-ARRAY"});
}

TEST(StreamAccumulator, UnknownContentBlocksAreKeptAndReported) {
  auto s = AccumulateStream(
      R"(data: {"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"x"}},7,{"type":"text","text":"b"}]},"finish_reason":"stop"}]})"
      "\n\ndata: [DONE]\n\n");
  ASSERT_TRUE(s.message.content && s.message.content->is_array());
  EXPECT_EQ(
      *s.message.content,
      Json::parse(
          R"([{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"x"}},7,{"type":"text","text":"b"}])"));
  EXPECT_EQ(s.message.Text(), "ab");
  const auto rules = Rules(s);
  EXPECT_NE(std::find(rules.begin(), rules.end(), "WIRE-STREAM-UNKNOWN-CONTENT-BLOCK"),
            rules.end());
}

TEST(StreamAccumulator, TextBeforeTheFirstBlockArrayBecomesATextBlock) {
  auto s = AccumulateStream(
      R"(data: {"choices":[{"index":0,"delta":{"content":"x"}}]})"
      "\n\n"
      R"(data: {"choices":[{"index":0,"delta":{"content":[{"type":"thinking","thinking":"t","signature":"s"}]},"finish_reason":"stop"}]})"
      "\n\ndata: [DONE]\n\n");
  EXPECT_EQ(
      *s.message.content,
      Json::parse(
          R"([{"type":"text","text":"x"},{"type":"thinking","thinking":"t","signature":"s"}])"));
  EXPECT_EQ(s.message.ContentThinking(), "t");
}

RC_GTEST_PROP(StreamAccumulator, ThinkingBlocksMergeWhateverTheirSplit, ()) {
  // Thinking sent one piece per chunk reads as one block holding all of it.
  const auto pieces = *rc::gen::container<std::vector<std::string>>(
      rc::gen::container<std::string>(rc::gen::inRange(' ', '~')));
  std::string sse;
  std::string joined;
  for (const auto& p : pieces) {
    Json block = {{"type", "thinking"},
                  {"thinking", Json::array({{{"type", "text"}, {"text", p}}})}};
    Json delta = {{"content", Json::array({block})}};
    Json chunk = {{"choices", Json::array({{{"index", 0}, {"delta", delta}}})}};
    sse += "data: " + chunk.dump() + "\n\n";
    joined += p;
  }
  auto s = AccumulateStream(sse);
  RC_ASSERT(s.message.ContentThinking() == joined);
  if (!pieces.empty()) RC_ASSERT(s.message.content->size() == 1u);
}

TEST(StreamAccumulator, AToolCallIndexNoIntHoldsIsMalformedNotWrapped) {
  // 4294967296 read as an int is 0: the second call would be merged into the
  // first. Each such delta is reported and left out.
  const auto call = [](const std::string& index, const std::string& id) {
    return "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":" + index +
           ",\"id\":\"" + id +
           "\",\"type\":\"function\",\"function\":{\"name\":\"a\",\"arguments\":\"{}\"}}]}}]}\n\n";
  };
  for (const std::string index : {"4294967296", "18446744073709551615", "-1", "2147483648"}) {
    auto s = AccumulateStream(call("0", "call_a") + call(index, "call_b") +
                              "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":"
                              "\"tool_calls\"}]}\n\ndata: [DONE]\n\n");
    ASSERT_EQ(s.message.tool_calls.size(), 1u) << index;
    EXPECT_EQ(s.message.tool_calls[0].id, "call_a");
    EXPECT_EQ(s.message.tool_calls[0].function.arguments, "{}");
    EXPECT_EQ(Rules(s), std::vector<std::string>{"WIRE-STREAM-MALFORMED-CHUNK"}) << index;
    EXPECT_EQ(s.findings[0].message,
              "chunk 2: tool_calls[0] has index " + index + ", not one from 0 to 2147483647");
  }
}

TEST(StreamAccumulator, DialectsAreToleratedAndReported) {
  const std::string stream =
      ": keep-alive\n\n"
      "data: "
      "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"reasoning_content\":\"hm\"}}]"
      "}\n\n"
      "data: "
      "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"g1\",\"type\":\"function\","
      "\"function\":{\"name\":\"a\",\"arguments\":\"{}\"}}]}}]}\n\n"
      "data: "
      "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"g2\",\"function\":{\"name\":"
      "\"b\","
      "\"arguments\":\"{}\"}}]},\"finish_reason\":\"stop\"}]}\n\n";
  auto s = AccumulateStream(stream);
  ASSERT_EQ(s.message.tool_calls.size(), 2u);
  EXPECT_EQ(s.message.tool_calls[1].id, "g2");
  EXPECT_EQ(s.message.tool_calls[1].type, "function");
  EXPECT_EQ(s.message.reasoning_content, "hm");
  EXPECT_EQ(Rules(s),
            (std::vector<std::string>{"DIA-REASONING-CONTENT", "DIA-TOOLCALL-NO-INDEX",
                                      "DIA-KEEPALIVE-COMMENT", "DIA-TOOLCALL-NO-TYPE",
                                      "DIA-FINISH-REASON-NOT-TOOL-CALLS", "DIA-NO-DONE"}));
}

TEST(StreamAccumulator, RepeatedIdIsNotConcatenated) {
  auto s = AccumulateStream(
      "data: "
      "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"x\",\"type\":"
      "\"function\","
      "\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"a\"}}]}}]}\n\n"
      "data: "
      "{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"x\","
      "\"function\":"
      "{\"arguments\":\"\\\":1}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n");
  ASSERT_EQ(s.message.tool_calls.size(), 1u);
  EXPECT_EQ(s.message.tool_calls[0].id, "x");
  EXPECT_EQ(s.message.tool_calls[0].function.arguments, "{\"a\":1}");
  EXPECT_EQ(Rules(s), std::vector<std::string>{"DIA-TOOLCALL-ID-REPEATED"});
}

TEST(StreamAccumulator, ErrorAfterHttp200AndMalformedChunks) {
  auto s = AccumulateStream(
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n"
      "data: {not json\n\n"
      "data: {\"error\":{\"code\":502,\"message\":\"upstream died\"}}\n\n");
  EXPECT_EQ(s.message.Text(), "Hel");
  ASSERT_TRUE(s.error);
  EXPECT_EQ(s.error->message, "upstream died");
  EXPECT_EQ(Rules(s), (std::vector<std::string>{"WIRE-STREAM-MALFORMED-CHUNK",
                                                "DIA-ERROR-IN-STREAM", "DIA-NO-DONE"}));
}

// OpenRouter ends a stream cut by a limit with one chunk that carries both the
// error and the usage of what was generated (fixtures/recorded/openrouter/
// test_openrouter_stream_error): the tokens were spent, so the usage counts.
TEST(StreamAccumulator, UsageInTheErrorChunkIsKept) {
  auto s = AccumulateStream(
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n"
      "data: {\"error\":{\"code\":400,\"message\":\"Token limit reached\"},"
      "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"}}],"
      "\"usage\":{\"prompt_tokens\":43,\"completion_tokens\":10,\"total_tokens\":53}}\n\n"
      "data: [DONE]\n\n");
  EXPECT_EQ(s.message.Text(), "Hi");
  ASSERT_TRUE(s.error);
  EXPECT_EQ(s.error->message, "Token limit reached");
  EXPECT_EQ(s.usage,
            Json::parse(R"({"prompt_tokens":43,"completion_tokens":10,"total_tokens":53})"));
  EXPECT_EQ(Rules(s), std::vector<std::string>{"DIA-ERROR-IN-STREAM"});
}

// Found by stream_accumulator_fuzz: a choice whose index is not a number
// (here an object, by a repeated key) threw nlohmann's type_error.302.
TEST(StreamAccumulator, ChoiceIndexThatIsNotANumberIsAnotherChoice) {
  auto s = AccumulateStream(
      "data: {\"choices\":[{\"index\":0,\"index\":{\"role\":\"assistant\"},"
      "\"delta\":{\"content\":\"skipped\"}}]}\n\n"
      "data: {\"choices\":[{\"index\":\"0\",\"delta\":{\"content\":\"skipped\"}}]}\n\n"
      "data: {\"choices\":[{\"index\":[0],\"delta\":{\"content\":\"skipped\"}}]}\n\n"
      "data: {\"choices\":[{\"index\":null,\"delta\":{\"content\":\"a\"}}]}\n\n"
      "data: {\"choices\":[{\"index\":0.0,\"delta\":{\"content\":\"b\"}}]}\n\n"
      "data: {\"choices\":[{\"delta\":{\"content\":\"c\"}}]}\n\n"
      "data: [DONE]\n\n");
  EXPECT_EQ(s.message.Text(), "abc");
}

TEST(StreamAccumulator, AzureEmptyFirstChoices) {
  auto s = AccumulateStream(
      "data: {\"id\":\"\",\"choices\":[],\"prompt_filter_results\":[]}\n\n"
      "data: "
      "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n"
      "data: [DONE]\n\n");
  EXPECT_EQ(s.message.Text(), "ok");
  EXPECT_EQ(Rules(s), std::vector<std::string>{"DIA-EMPTY-FIRST-CHUNK"});
}

RC_GTEST_PROP(StreamAccumulatorProperties, AnyChunkingAccumulatesTheSame, ()) {
  const std::string stream = kParallelToolCalls;
  const auto splits = *rc::gen::container<std::vector<std::size_t>>(
      rc::gen::inRange<std::size_t>(0, stream.size() + 1));
  SseParser parser;
  StreamAccumulator acc;
  std::vector<std::size_t> sorted = splits;
  std::sort(sorted.begin(), sorted.end());
  std::size_t at = 0;
  std::vector<SseEvent> events;
  for (std::size_t s : sorted) {
    if (s <= at) continue;
    parser.Feed(std::string_view(stream).substr(at, s - at), events);
    at = s;
  }
  parser.Feed(std::string_view(stream).substr(at), events);
  for (const auto& e : events) acc.AddEvent(e);
  auto got = acc.Finish();
  auto want = AccumulateStream(stream);
  RC_ASSERT(ToJson(got.message) == ToJson(want.message));
  RC_ASSERT(got.finish_reason == want.finish_reason);
  RC_ASSERT(got.usage == want.usage);
}

}  // namespace
}  // namespace llmconform::wire

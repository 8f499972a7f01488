#include "mockllm/dialect/stream_events.h"

#include <gtest/gtest.h>

#include "mockllm/dialect_rewrite.h"
#include "protocols/wire/sse.h"
#include "protocols/wire/sse_blocks.h"

namespace llmconform::mockllm::dialect {
namespace {

const std::string kChunk =
    R"({"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]})";

std::vector<Chunk> Chunks(std::vector<std::pair<std::int64_t, std::string>> pieces) {
  std::vector<Chunk> out;
  for (auto& [t, raw] : pieces) out.push_back(Chunk{t, std::move(raw)});
  return out;
}

TEST(StreamEvents, OnlyTheDataFieldIsData) {
  const EventStream s =
      SplitEvents(Chunks({{0, "datafoo: x\ndata " + kChunk + "\ndata: " + kChunk + "\n\n"}}));
  ASSERT_EQ(s.events.size(), 1u);
  EXPECT_EQ(s.events[0].data, kChunk);
  EXPECT_TRUE(s.events[0].is_json);
  EXPECT_EQ(s.events[0].field_lines, "datafoo: x\ndata " + kChunk + "\n");
}

TEST(StreamEvents, CommentBlocksJoinTheNextEventAndTheRestIsATail) {
  const EventStream s = SplitEvents(
      Chunks({{5, ": keep-alive\n\n"}, {10, "data: [DONE]\n\n"}, {20, ": bye\n\ndata: {"}}));
  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_EQ(s.events[0].raw, ": keep-alive\n\ndata: [DONE]\n\n");
  EXPECT_TRUE(s.events[0].done);
  EXPECT_EQ(s.events[0].field_lines, ": keep-alive\n");
  EXPECT_EQ(s.events[0].t_ms, 10);
  EXPECT_EQ(s.events[1].raw, ": bye\n\ndata: {");  // never parsed
  EXPECT_FALSE(s.events[1].is_json);
  EXPECT_EQ(s.events[1].t_ms, 20);
}

TEST(StreamEvents, TheBomIsTheStreamsNotTheFirstEvents) {
  const EventStream s = SplitEvents(
      Chunks({{0, std::string(wire::kSseBom) + "data: " + kChunk + "\n\ndata: [DONE]\n\n"}}));
  EXPECT_TRUE(s.bom);
  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_TRUE(s.events[0].is_json);
  EXPECT_FALSE(s.events[0].raw.starts_with(wire::kSseBom));
}

// A rewritten stream keeps its BOM first, before the events a rewrite inserts.
TEST(StreamEvents, ARewriteKeepsTheBomFirst) {
  RecordedResponse r;
  r.streamed = true;
  r.chunks = Chunks({{0, std::string(wire::kSseBom) + "data: " + kChunk + "\n\ndata: [DONE]\n\n"}});
  const Dialect* deepseek = FindDialect("deepseek");  // keep-alives, reasoning_content
  ASSERT_NE(deepseek, nullptr);
  const RecordedResponse out = RewriteResponse(r, *deepseek, true, wire::Surface::kChat);
  std::string joined;
  for (const Chunk& c : out.chunks) joined += c.raw;
  EXPECT_TRUE(joined.starts_with(std::string(wire::kSseBom) + ": keep-alive")) << joined;
  EXPECT_NE(joined.find("reasoning_content"), std::string::npos);
  // Only one BOM, and every event still reads.
  EXPECT_EQ(joined.find(wire::kSseBom, 1), std::string::npos);
  EXPECT_EQ(wire::ParseSse(joined).events.back().data, "[DONE]");
}

}  // namespace
}  // namespace llmconform::mockllm::dialect

#include "protocols/wire/sse_blocks.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "protocols/wire/sse.h"

namespace llmconform::wire {
namespace {

struct Span {
  std::size_t begin, end;
  bool has_data, complete;
  friend bool operator==(const Span&, const Span&) = default;
};

std::vector<Span> Spans(std::string_view s) {
  std::vector<Span> out;
  for (const SseBlock& b : SplitSseBlocks(s))
    out.push_back({b.begin, b.end, b.has_data, b.complete});
  return out;
}

TEST(SseLine, ReadsFieldsAsTheStandardSays) {
  EXPECT_EQ(ReadSseLine("").kind, SseLine::Kind::kBlank);
  EXPECT_EQ(ReadSseLine(": keep-alive").kind, SseLine::Kind::kComment);
  const SseLine data = ReadSseLine("data:  x: y");
  EXPECT_TRUE(data.IsData());
  EXPECT_EQ(data.value, " x: y");             // one space stripped, later colons kept
  EXPECT_TRUE(ReadSseLine("data").IsData());  // no colon: the whole line is the name
  EXPECT_EQ(ReadSseLine("data").value, "");
  // Names are compared exactly: these are fields of other names, ignored.
  EXPECT_FALSE(ReadSseLine("datafoo: x").IsData());
  EXPECT_FALSE(ReadSseLine("data x").IsData());
  EXPECT_FALSE(ReadSseLine("Data: x").IsData());
  EXPECT_EQ(ReadSseLine("event:done").field, "event");
  EXPECT_EQ(ReadSseLine("event:done").value, "done");
}

TEST(SseLine, LineEndsAreCrLfOrCrlf) {
  std::vector<std::string> lines;
  ForEachSseLine("a\rb\nc\r\n\r\nd",
                 [&](const SseLine&, std::string_view l) { lines.emplace_back(l); });
  EXPECT_EQ(lines, (std::vector<std::string>{"a", "b", "c", ""}));  // "d" has no end yet
  EXPECT_FALSE(FindSseLineEnd("abc", 0).has_value());
  EXPECT_EQ(FindSseLineEnd("ab\r\nc", 0)->next, 4u);
  EXPECT_EQ(FindSseLineEnd("ab\r", 0)->next, 3u);  // a CR at the end is a whole line end
}

TEST(SseBlocks, TileTheStreamAndMarkEvents) {
  EXPECT_EQ(
      Spans("data: a\n\n: c\n\ndata: b\r\n\r\npartial"),
      (std::vector<Span>{
          {0, 9, true, true}, {9, 14, false, true}, {14, 25, true, true}, {25, 32, false, false}}));
  // A block of data lines with no blank line after it is not an event.
  const auto tail = SplitSseBlocks("data: a\n\ndata: b\n");
  ASSERT_EQ(tail.size(), 2u);
  EXPECT_TRUE(tail[1].has_data);
  EXPECT_FALSE(tail[1].IsEvent());
  EXPECT_TRUE(SplitSseBlocks("").empty());
}

TEST(SseBlocks, TheBomBelongsToTheFirstBlockAndIsNotALine) {
  const std::string s = std::string(kSseBom) + "data: a\n\n";
  const auto blocks = SplitSseBlocks(s);
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].begin, 0u);
  EXPECT_TRUE(blocks[0].IsEvent());
  // Only one BOM is stripped: after a second one the first field is no `data`.
  EXPECT_FALSE(SplitSseBlocks(std::string(kSseBom) + s)[0].has_data);
}

TEST(SseBlocks, FieldsThatOnlyStartWithDataMakeNoEvent) {
  EXPECT_EQ(SseEventEnds("datafoo: x\n\ndata x\n\ndata:y\n\n"), std::vector<std::size_t>{28});
}

TEST(SseBlocks, ABlockIsTimedByTheReadHoldingItsLastByte) {
  TimedStream s;
  s.Append("data: a\n", 10);
  s.Append("", 15);  // an empty read holds no byte
  s.Append("\ndata: b\n\n: c", 40);
  s.Append("\n\n", 70);
  const auto blocks = SplitSseBlocks(s);
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[0].t_ms, 40);  // its blank line came with the third read
  EXPECT_EQ(blocks[1].t_ms, 40);
  EXPECT_EQ(blocks[2].t_ms, 70);
  EXPECT_EQ(s.TimeAt(0), 10);
  EXPECT_EQ(s.TimeAt(1000), 70);  // past the end: the last read's
  EXPECT_EQ(TimedStream().TimeAt(0), 0);
}

// Any stream: the blocks tile it, and they are the parser's events: as many
// complete blocks with data as the parser dispatches, each block parsed alone
// giving that event's name and data.
RC_GTEST_PROP(SseBlocksProperties, BlocksAreTheParsersEvents, ()) {
  const auto piece = rc::gen::elementOf(std::vector<std::string>{
      "data: x", "data", "data:{\"a\":1}", "datafoo: y", "event: e", "id: 3", ": c", "retry: 5",
      "\n", "\r", "\r\n", "\n\n", "\xEF\xBB\xBF", "da", "ta: z", " "});
  const auto pieces = *rc::gen::container<std::vector<std::string>>(piece);
  std::string stream;
  for (const auto& p : pieces) stream += p;
  const auto blocks = SplitSseBlocks(stream);
  std::size_t at = 0;
  std::vector<std::pair<std::string, std::string>> from_blocks;
  for (const SseBlock& b : blocks) {
    RC_ASSERT(b.begin == at);
    RC_ASSERT(b.end > b.begin);
    at = b.end;
    if (!b.IsEvent()) continue;
    // Parsed alone. A later block is prefixed with a BOM for the parser to
    // strip, so that a BOM the block itself starts with is read as in the stream.
    const std::string alone =
        b.begin == 0 ? std::string(b.In(stream)) : std::string(kSseBom) + std::string(b.In(stream));
    const auto events = ParseSse(alone).events;
    RC_ASSERT(events.size() == 1u);
    from_blocks.emplace_back(events[0].event, events[0].data);
  }
  RC_ASSERT(at == stream.size());
  std::vector<std::pair<std::string, std::string>> whole;
  for (const SseEvent& e : ParseSse(stream).events) whole.emplace_back(e.event, e.data);
  RC_ASSERT(from_blocks == whole);
}

}  // namespace
}  // namespace llmconform::wire

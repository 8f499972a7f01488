#include "protocols/wire/sse.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace llmconform::wire {
namespace {

std::vector<SseEvent> Events(std::string_view s, std::vector<std::size_t> splits = {}) {
  return ParseSse(s, std::move(splits)).events;
}

TEST(SseParser, ParsesDataEvents) {
  auto ev = Events("data: {\"a\":1}\n\ndata: [DONE]\n\n");
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].data, "{\"a\":1}");
  EXPECT_EQ(ev[0].event, "message");
  EXPECT_EQ(ev[1].data, "[DONE]");
}

TEST(SseParser, JoinsDataLinesWithLf) {
  auto ev = Events("data: a\ndata:b\ndata:  c\n\n");
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].data, "a\nb\n c");  // only one space is stripped
}

TEST(SseParser, AcceptsCrLfAndCrLineEnds) {
  EXPECT_EQ(Events("data: x\r\n\r\n"), Events("data: x\n\n"));
  EXPECT_EQ(Events("data: x\r\r"), Events("data: x\n\n"));
  EXPECT_EQ(Events("data: x\r\n\r\n", {7}), Events("data: x\n\n"));  // CRLF split across reads
}

TEST(SseParser, StripsOneLeadingBomEvenWhenSplit) {
  const std::string s =
      "\xEF\xBB\xBF"
      "data: x\n\n";
  EXPECT_EQ(Events(s), Events("data: x\n\n"));
  EXPECT_EQ(Events(s, {1, 2}), Events("data: x\n\n"));
  // Only one: a second BOM makes the first field name "\xEF\xBB\xBFdata", ignored.
  EXPECT_TRUE(Events("\xEF\xBB\xBF\xEF\xBB\xBF"
                     "data: x\n\n")
                  .empty());
}

TEST(SseParser, CommentsAndUnknownFieldsAreIgnored) {
  auto r = ParseSse(": keep-alive\n\nfoo: bar\ndata: y\n\n");
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].data, "y");
  EXPECT_EQ(r.comments, 1u);
}

TEST(SseParser, NoDispatchWithoutDataOrBlankLine) {
  EXPECT_TRUE(Events("event: ping\n\n").empty());
  EXPECT_TRUE(Events("data: partial\n").empty());  // trailing partial event discarded
  EXPECT_TRUE(Events("data: partial").empty());
  auto ev = Events("data\n\n");  // a field with no colon: empty value, still a data line
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].data, "");
}

TEST(SseParser, EventNameAndIdInForceAtDispatch) {
  auto ev = Events("event: status\nid: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n");
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].event, "status");
  EXPECT_EQ(ev[0].id, "7");
  EXPECT_EQ(ev[1].event, "message");  // the type resets after dispatch
  EXPECT_EQ(ev[1].id, "7");           // the id does not
  EXPECT_EQ(ev[2].id, "");
}

TEST(SseParser, IdWithNulIsIgnored) {
  using namespace std::string_literals;
  auto ev = Events("id: 1\ndata: a\n\nid: x\0y\ndata: b\n\n"s);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[1].id, "1");
}

TEST(SseParser, RetryOnlyWhenAllDigits) {
  EXPECT_EQ(ParseSse("retry: 1500\n").retry, 1500u);
  EXPECT_FALSE(ParseSse("retry: 15a\n").retry.has_value());
  EXPECT_FALSE(ParseSse("retry: \n").retry.has_value());
  // Past 2^64 - 1: ignored, never wrapped; the last value that fits stays.
  EXPECT_EQ(ParseSse("retry: 18446744073709551615\n").retry, UINT64_MAX);
  EXPECT_EQ(ParseSse("retry: 7\nretry: 18446744073709551616\n").retry, 7u);
  EXPECT_FALSE(ParseSse("retry: 99999999999999999999999999\n").retry.has_value());
}

TEST(SseWriter, FramesEvents) {
  EXPECT_EQ(WriteSseData("{}"), "data: {}\n\n");
  EXPECT_EQ(WriteSseEvent({"status", "a\nb", "3"}), "event: status\nid: 3\ndata: a\ndata: b\n\n");
  EXPECT_EQ(WriteSseComment("keep-alive"), ": keep-alive\n");
}

RC_GTEST_PROP(SseProperties, AnySplitGivesTheSameEvents, (const std::string& body)) {
  // Build a stream from arbitrary bytes plus structure that exercises line ends.
  std::string stream =
      "\xEF\xBB\xBF"
      "data: " +
      body + "\r\n\r\ndata: x\r\r" + body + "\n\n";
  const auto whole = ParseSse(stream);
  const auto splits = *rc::gen::container<std::vector<std::size_t>>(
      rc::gen::inRange<std::size_t>(0, stream.size() + 1));
  const auto split = ParseSse(stream, splits);
  RC_ASSERT(split.events == whole.events);
  RC_ASSERT(split.retry == whole.retry);
  RC_ASSERT(split.comments == whole.comments);
}

RC_GTEST_PROP(SseProperties, WriterParserRoundTrip, ()) {
  const auto no_breaks = rc::gen::container<std::string>(rc::gen::suchThat(
      rc::gen::arbitrary<char>(), [](char c) { return c != '\r' && c != '\n' && c != '\0'; }));
  const auto lines = *rc::gen::nonEmpty(rc::gen::container<std::vector<std::string>>(no_breaks));
  std::string data;
  for (std::size_t i = 0; i < lines.size(); ++i) data += (i ? "\n" : "") + lines[i];
  std::string name = *rc::gen::container<std::string>(rc::gen::elementOf(std::string("abcxyz_-")));
  std::string id =
      *rc::gen::container<std::string>(rc::gen::elementOf(std::string("0123456789abc")));
  SseEvent ev{name.empty() ? "message" : name, data, id};
  const auto parsed = ParseSse(WriteSseEvent(ev));
  RC_ASSERT(parsed.events.size() == 1u);
  RC_ASSERT(parsed.events[0] == ev);
}

}  // namespace
}  // namespace llmconform::wire

// The Gemini detector (DIA-GEM-*): each deviation located where it first
// shows, nothing on the Developer API's own shapes, and hostile bytes read
// without a crash.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocols/wire/dialect.h"
#include "protocols/wire/dialect_test_support.h"

namespace llmconform::wire {
namespace {

using test_support::Ids;

constexpr std::string_view kUsage =
    R"("usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":2,"totalTokenCount":7})";

std::string Chunk(std::string_view text, bool usage, bool finish, std::string_view extra = "") {
  std::string c = R"({"candidates":[{"content":{"parts":[{"text":")" + std::string(text) +
                  R"("}],"role":"model"})" + (finish ? R"(,"finishReason":"STOP")" : "") + "}]";
  if (usage) c += "," + std::string(kUsage);
  c += std::string(extra) + R"(,"modelVersion":"gemini-2.5-flash"})";
  return c;
}

std::string Sse(const std::vector<std::string>& chunks) {
  std::string out;
  for (const auto& c : chunks) out += "data: " + c + "\r\n\r\n";
  return out;
}

TEST(GeminiDialect, TheDeveloperApisShapesShowNothing) {
  EXPECT_TRUE(
      DetectStreamDialect(Surface::kGemini, Sse({Chunk("Hi", true, false), Chunk("!", true, true)}))
          .empty());
  EXPECT_TRUE(DetectBodyDialect(Surface::kGemini, Chunk("Hi", true, true), 200).empty());
  EXPECT_TRUE(DetectBodyDialect(Surface::kGemini,
                                R"({"error":{"code":429,"message":"quota",)"
                                R"("status":"RESOURCE_EXHAUSTED"}})",
                                429)
                  .empty());
  // One response, or none with usage, says nothing of where usage goes.
  EXPECT_TRUE(DetectStreamDialect(Surface::kGemini, Sse({Chunk("Hi", true, true)})).empty());
  EXPECT_TRUE(DetectStreamDialect(Surface::kGemini,
                                  Sse({Chunk("a", false, false), Chunk("b", false, true)}))
                  .empty());
}

TEST(GeminiDialect, EachDeviationIsLocated) {
  const auto usage = DetectStreamDialect(
      Surface::kGemini,
      Sse({Chunk("a", true, false), Chunk("b", false, false), Chunk("c", true, true)}));
  ASSERT_EQ(Ids(usage), std::vector<std::string>{"DIA-GEM-USAGE-LAST-ONLY"});
  EXPECT_EQ(usage[0].where, "event 2 /usageMetadata");

  const auto vertex = DetectStreamDialect(
      Surface::kGemini, Sse({Chunk("a", true, false),
                             Chunk("b", true, true, R"(,"createTime":"2025-01-01T00:00:00Z")")}));
  ASSERT_EQ(Ids(vertex), std::vector<std::string>{"DIA-GEM-VERTEX-FIELDS"});
  EXPECT_EQ(vertex[0].where, "event 2 /createTime");
  const auto traffic = DetectBodyDialect(
      Surface::kGemini,
      R"({"candidates":[],"usageMetadata":{"totalTokenCount":1,"trafficType":"ON_DEMAND"}})", 200);
  ASSERT_EQ(Ids(traffic), std::vector<std::string>{"DIA-GEM-VERTEX-FIELDS"});
  EXPECT_EQ(traffic[0].where, "/usageMetadata/trafficType");

  // A stream framed as a JSON array; what its responses show is located in it.
  const std::string array =
      "[" + Chunk("a", false, false) + "\n,\r\n" + Chunk("b", true, true) + "\n]";
  const auto as_stream = DetectStreamDialect(Surface::kGemini, array);
  EXPECT_EQ(Ids(as_stream),
            (std::vector<std::string>{"DIA-GEM-STREAM-JSON-ARRAY", "DIA-GEM-USAGE-LAST-ONLY"}));
  EXPECT_EQ(as_stream[1].where, "/0/usageMetadata");
  EXPECT_EQ(Ids(DetectBodyDialect(Surface::kGemini, array, 200)), Ids(as_stream));
  // Cut short: still an array, not SSE.
  EXPECT_EQ(Ids(DetectStreamDialect(Surface::kGemini, array.substr(0, 40))),
            std::vector<std::string>{"DIA-GEM-STREAM-JSON-ARRAY"});

  const auto error = DetectBodyDialect(
      Surface::kGemini, R"([{"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}}])",
      503);
  ASSERT_EQ(Ids(error), std::vector<std::string>{"DIA-GEM-ERROR-ARRAY"});
  EXPECT_EQ(error[0].where, "/0/error");
}

TEST(GeminiDialect, HostileBytesAreReadWithoutACrash) {
  for (std::string_view raw :
       {std::string_view(""), std::string_view("["), std::string_view("[[[[[[[["),
        std::string_view("data: [\n\n"), std::string_view("data: {\"candidates\":7}\n\n"),
        std::string_view("\xEF\xBB\xBF[1,2,3]"), std::string_view("data: {nope\n\ndata: null\n\n"),
        std::string_view("[{\"usageMetadata\":5},{\"createTime\":[]}]")}) {
    (void)DetectStreamDialect(Surface::kGemini, raw);
    (void)DetectBodyDialect(Surface::kGemini, raw, 200);
  }
  EXPECT_EQ(Ids(DetectStreamDialect(Surface::kGemini, "\xEF\xBB\xBF[1,2,3]")),
            std::vector<std::string>{"DIA-GEM-STREAM-JSON-ARRAY"});
  EXPECT_TRUE(DetectBodyDialect(Surface::kGemini, "[1,2,3]", 200).empty());
}

}  // namespace
}  // namespace llmconform::wire

// Anthropic Messages' detector (DIA-MSG-*): each deviation located at its
// first place; Anthropic's own shapes and hostile events show nothing.
#include <gtest/gtest.h>

#include "protocols/wire/dialect.h"

namespace llmconform::wire {
namespace {

std::string Ev(std::string_view type, std::string_view data) {
  return "event: " + std::string(type) + "\ndata: " + std::string(data) + "\n\n";
}

std::vector<std::pair<std::string, std::string>> Found(const std::vector<Deviation>& ds) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& d : ds) out.emplace_back(d.id, d.where);
  return out;
}

using Pairs = std::vector<std::pair<std::string, std::string>>;

const std::string kStart = Ev("message_start", R"({"type":"message_start","message":{"usage":)"
                                               R"({"input_tokens":12,"output_tokens":1}}})");
const std::string kStop = Ev("message_stop", R"({"type":"message_stop"})");

std::string BlockStart(int index, std::string_view block) {
  return Ev("content_block_start", R"({"type":"content_block_start","index":)" +
                                       std::to_string(index) + R"(,"content_block":)" +
                                       std::string(block) + "}");
}
std::string Delta(int index, std::string_view delta) {
  return Ev("content_block_delta", R"({"type":"content_block_delta","index":)" +
                                       std::to_string(index) + R"(,"delta":)" + std::string(delta) +
                                       "}");
}
std::string BlockStop(int index) {
  return Ev("content_block_stop",
            R"({"type":"content_block_stop","index":)" + std::to_string(index) + "}");
}

TEST(MessagesDialect, AnthropicsOwnShapesShowNothing) {
  const std::string s =
      kStart + BlockStart(0, R"({"type":"thinking","thinking":"","signature":""})") +
      Delta(0, R"({"type":"thinking_delta","thinking":"hm"})") +
      Delta(0, R"({"type":"signature_delta","signature":"EqQB"})") + BlockStop(0) +
      BlockStart(1, R"({"type":"tool_use","id":"t","name":"f","input":{}})") +
      Delta(1, R"({"type":"input_json_delta","partial_json":""})") +
      Delta(1, R"({"type":"input_json_delta","partial_json":"{\"a\":1}"})") + BlockStop(1) +
      Ev("message_delta", R"({"type":"message_delta","delta":{"stop_reason":"tool_use"},)"
                          R"("usage":{"output_tokens":9}})") +
      kStop;
  EXPECT_EQ(Found(DetectStreamDialect(Surface::kMessages, s)), Pairs{});
  EXPECT_EQ(Found(DetectBodyDialect(Surface::kMessages,
                                    R"({"type":"error","error":{"type":"overloaded_error",)"
                                    R"("message":"Overloaded"}})",
                                    529)),
            Pairs{});
  EXPECT_EQ(Found(DetectBodyDialect(Surface::kMessages,
                                    R"({"content":[{"type":"thinking","thinking":"x",)"
                                    R"("signature":"EqQB"},{"type":"text","text":"y"}]})",
                                    200)),
            Pairs{});
}

TEST(MessagesDialect, DeviationsAreLocated) {
  const std::string s =
      Ev("message_start", R"({"type":"message_start","message":{"usage":)"
                          R"({"input_tokens":0,"output_tokens":0}}})") +
      BlockStart(0, R"({"type":"thinking","thinking":""})") +
      Delta(0, R"({"type":"thinking_delta","thinking":"hm"})") + BlockStop(0) +
      BlockStart(1, R"({"type":"tool_use","id":"t","name":"f","input":{"a":1}})") + BlockStop(1) +
      BlockStart(2, R"({"type":"tool_use","id":"u","name":"f","input":{}})") +
      Delta(2, R"({"type":"input_json_delta","partial_json":"{\"a\":2}"})") + BlockStop(2) + kStop;
  EXPECT_EQ(Found(DetectStreamDialect(Surface::kMessages, s)),
            (Pairs{{"DIA-MSG-START-USAGE-ZERO", "event 1 /message/usage"},
                   {"DIA-MSG-THINKING-START-NO-SIGNATURE", "event 2 /content_block"},
                   {"DIA-MSG-THINKING-NO-SIGNATURE", "event 2 /content_block/signature"},
                   {"DIA-MSG-TOOL-INPUT-AT-START", "event 5 /content_block/input"},
                   {"DIA-MSG-TOOL-INPUT-WHOLE-DELTA", "event 8 /delta/partial_json"}}));
  EXPECT_EQ(Found(DetectBodyDialect(
                Surface::kMessages,
                R"({"error":{"message":"x","type":"None","param":"None","code":"429"}})", 429)),
            (Pairs{{"DIA-MSG-OPENAI-ERROR-BODY", "/error"}}));
  EXPECT_EQ(Found(DetectBodyDialect(Surface::kMessages,
                                    R"({"content":[{"type":"text","text":"y"},)"
                                    R"({"type":"thinking","thinking":"x","signature":""}]})",
                                    200)),
            (Pairs{{"DIA-MSG-THINKING-NO-SIGNATURE", "/content/1/signature"}}));
}

// A signature that comes only as a signature_delta (MiniMax) is a signature;
// a tool input cut before it closes is no whole delta.
TEST(MessagesDialect, LateSignatureAndCutInput) {
  const std::string s =
      kStart + BlockStart(0, R"({"type":"thinking","thinking":""})") +
      Delta(0, R"({"type":"signature_delta","signature":"EqQB"})") + BlockStop(0) +
      BlockStart(1, R"({"type":"tool_use","id":"t","name":"f","input":{}})") +
      Delta(1, R"({"type":"input_json_delta","partial_json":"{\"a\":"})") + BlockStop(1);
  EXPECT_EQ(Found(DetectStreamDialect(Surface::kMessages, s)),
            (Pairs{{"DIA-MSG-THINKING-START-NO-SIGNATURE", "event 2 /content_block"}}));
}

TEST(MessagesDialect, HostileEventsShowNothing) {
  const std::string s =
      "data: {nope\n\n" + Ev("content_block_delta", R"({"index":1e300,"delta":7})") +
      Ev("content_block_start", R"({"type":"content_block_start","index":-1,)"
                                R"("content_block":{"type":"tool_use","input":{"a":1}}})") +
      Ev("content_block_stop", R"({"type":"content_block_stop","index":99999999999999})") +
      Ev("message_start", R"({"type":"message_start","message":[1]})") +
      Ev("content_block_start", R"({"type":"content_block_start","index":3,"content_block":"x"})") +
      Delta(4, R"({"type":"input_json_delta","partial_json":7})") + "data: [DONE]\n\n";
  EXPECT_EQ(Found(DetectStreamDialect(Surface::kMessages, s)), Pairs{});
  EXPECT_TRUE(DetectStreamDialect(Surface::kMessages, "").empty());
  EXPECT_TRUE(DetectBodyDialect(Surface::kMessages, "not json", 500).empty());
  EXPECT_TRUE(DetectBodyDialect(Surface::kMessages, R"({"content":[1,"x",null]})", 200).empty());
  EXPECT_TRUE(DetectBodyDialect(Surface::kMessages, R"({"error":"x"})", 400).empty());
}

}  // namespace
}  // namespace llmconform::wire

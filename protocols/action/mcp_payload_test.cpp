#include "protocols/action/mcp_payload.h"

#include <gtest/gtest.h>

namespace llmconform::action {
namespace {

Command Safari() {
  return {"session_1764210832.530743", "open_app", OJson::parse(R"({"app_name":"Safari"})")};
}

TEST(BuildMcpPayload, WritesThePrefixEventAndPayloadInOrder) {
  auto payload = BuildMcpPayload(Safari());
  ASSERT_TRUE(payload) << payload.error().message;
  EXPECT_EQ(
      *payload,
      R"(__MCP__{"event":"mcp.command_request","payload":{"session_id":"session_1764210832.530743","command":"open_app","args":{"app_name":"Safari"}}})");
}

TEST(BuildMcpPayload, KeepsArgsAsWritten) {
  Command c = Safari();
  c.args = OJson::parse(R"({"z":"10:30","app_name":"Калькулятор","url":"https://a.b/c?d=e"})");
  auto payload = BuildMcpPayload(c);
  ASSERT_TRUE(payload);
  EXPECT_EQ(
      *payload,
      R"(__MCP__{"event":"mcp.command_request","payload":{"session_id":"session_1764210832.530743","command":"open_app","args":{"z":"10:30","app_name":"Калькулятор","url":"https://a.b/c?d=e"}}})");
}

TEST(BuildMcpPayload, RefusesInvalidUtf8) {
  Command c = Safari();
  c.session_id = "s\xFF";
  auto payload = BuildMcpPayload(c);
  ASSERT_FALSE(payload);
  EXPECT_EQ(payload.error().message,
            "__MCP__ payload: [json.exception.type_error.316] invalid UTF-8 byte at index 1: 0xFF");
}

TEST(ParseMcpPayload, ReadsWhatBuildWrites) {
  auto payload = BuildMcpPayload(Safari());
  ASSERT_TRUE(payload);
  auto back = ParseMcpPayload(*payload);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, Safari());
}

TEST(ParseMcpPayload, SaysWhatIsWrong) {
  const auto error = [](std::string_view text) {
    auto r = ParseMcpPayload(text);
    return r ? std::string("(parsed)") : r.error().message;
  };
  EXPECT_EQ(error(R"({"event":"mcp.command_request"})"),
            R"(__MCP__ payload: expected the prefix "__MCP__")");
  EXPECT_EQ(error("__MCP__{"), "__MCP__ payload: the text after the prefix is not valid JSON");
  EXPECT_EQ(error("__MCP__[]"), "__MCP__ payload: expected an object, got an array");
  EXPECT_EQ(error(R"(__MCP__{"event":"x","payload":{}})"),
            R"(__MCP__ payload: /event: expected "mcp.command_request", got "x")");
  EXPECT_EQ(error(R"(__MCP__{"event":"mcp.command_request","payload":{},"extra":1})"),
            R"(__MCP__ payload: unexpected member "extra")");
  EXPECT_EQ(
      error(
          R"(__MCP__{"event":"mcp.command_request","payload":{"session_id":"s","command":"open_app"}})"),
      "__MCP__ payload: /payload/args: missing");
  EXPECT_EQ(
      error(
          R"(__MCP__{"event":"mcp.command_request","payload":{"session_id":"s","command":"open_app","args":[]}})"),
      "__MCP__ payload: /payload/args: expected an object, got an array");
  EXPECT_EQ(
      error(
          R"(__MCP__{"event":"mcp.command_request","payload":{"session_id":1,"command":"open_app","args":{}}})"),
      "__MCP__ payload: /payload/session_id: expected a string, got a number");
}

}  // namespace
}  // namespace llmconform::action

namespace llmconform::action {
namespace {

// Issue 18 (ACT-14): numbers in args reach the payload spelled as the reply wrote them.
TEST(BuildMcpPayload, KeepsTheSpellingOfNumbersInArgs) {
  const auto r = ParseAssistantResponse(
      R"({"text":"ok","session_id":"s","command":"open_app","args":{"app_name":"Calc","n":12345678901234567890123,"x":1.50,"e":1e2,"z":-0}})",
      std::nullopt);
  ASSERT_TRUE(r.command);
  auto payload = BuildMcpPayload(*r.command);
  ASSERT_TRUE(payload);
  EXPECT_EQ(
      *payload,
      R"(__MCP__{"event":"mcp.command_request","payload":{"session_id":"s","command":"open_app","args":{"app_name":"Calc","n":12345678901234567890123,"x":1.50,"e":1e2,"z":-0}}})");
  auto back = ParseMcpPayload(*payload);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->args_json, r.command->args_json);
  EXPECT_EQ(*back, *r.command);
}

}  // namespace
}  // namespace llmconform::action

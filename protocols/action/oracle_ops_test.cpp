#include "protocols/action/oracle_ops.h"

#include <gtest/gtest.h>

#include "base/json.h"
#include "base/json_read.h"
#include "protocols/action/json_spelling.h"
#include "protocols/action/mcp_payload.h"

namespace llmconform::action {
namespace {

std::expected<Json, Error> RunParse(const Json& in) {
  for (const auto& op : OracleOps()) {
    if (op.name == "action.parse") return op.run(in);
  }
  ADD_FAILURE() << "action.parse is not listed";
  return Json();
}

TEST(ActionParseOp, KeptCommandWithPayload) {
  auto out = RunParse(
      {{"text",
        R"({"session_id":"other","command":"open_app","args":{"app_name":"Safari","at":"10:30"},"text":"Открываю Safari."})"},
       {"sessionId", "session_1764210832.530743"}});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(*out, Json::parse(R"({
    "text": "Открываю Safari.",
    "command": {"session_id": "session_1764210832.530743", "command": "open_app",
                "args": {"app_name": "Safari", "at": "10:30"}},
    "mcpPayload": "__MCP__{\"event\":\"mcp.command_request\",\"payload\":{\"session_id\":\"session_1764210832.530743\",\"command\":\"open_app\",\"args\":{\"app_name\":\"Safari\",\"at\":\"10:30\"}}}",
    "findings": [{"rule": "ACT-4",
                  "message": "\"session_id\" \"other\" differs from the request's \"session_1764210832.530743\"; the request's is used"}]
  })"));
}

TEST(ActionParseOp, PlainTextHasNullCommandAndPayload) {
  auto out = RunParse({{"text", "Привет! Как дела?"}});
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, (Json{{"text", "Привет! Как дела?"},
                        {"command", nullptr},
                        {"mcpPayload", nullptr},
                        {"findings", Json::array()}}));
}

TEST(ActionParseOp, DroppedCommandIsExplained) {
  auto out =
      RunParse({{"text", R"({"command":"open_app","args":{"app_name":"Safari"},"text":"t"})"},
                {"sessionId", nullptr}});
  ASSERT_TRUE(out);
  EXPECT_EQ((*out)["command"], nullptr);
  EXPECT_EQ((*out)["mcpPayload"], nullptr);
  EXPECT_EQ(
      (*out)["findings"],
      Json::parse(
          R"([{"rule":"ACT-4","message":"command \"open_app\" dropped: no session id: the request has none and \"session_id\" is missing"}])"));
}

TEST(ActionParseOp, SupportedCommandsAreConfigurable) {
  const std::string reply =
      R"({"session_id":"s","command":"focus_app","args":{"app_name":"Mail"},"text":""})";
  auto dropped = RunParse({{"text", reply}});
  ASSERT_TRUE(dropped);
  EXPECT_EQ((*dropped)["command"], nullptr);
  auto kept = RunParse({{"text", reply}, {"supportedCommands", {"open_app", "focus_app"}}});
  ASSERT_TRUE(kept);
  EXPECT_EQ((*kept)["command"]["command"], "focus_app");
}

const OracleOp& ParseOp() {
  static const std::vector<OracleOp> ops = OracleOps();
  return OracleOpNamed(ops, "action.parse");
}

// ACT-14: `ref` writes args with every number as the reply spelled it; the
// JSON value holds the double, and the written text parses to the same value.
TEST(ActionParseOp, WrittenArgsKeepNumberSpelling) {
  const std::string reply =
      R"({"text":"ok","command":"open_app","args":{"app_name":"Calc","n":12345678901234567890123,"x":1.50,"e":1e2,"z":-0,"list":[0.10,{"d":2E+3}]}})";
  auto out = ParseOp().run({{"text", reply}, {"sessionId", "s-1"}});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ((*out)["command"]["args"]["n"], 1.2345678901234568e+22);
  const std::string written = ParseOp().write(*out);
  EXPECT_NE(
      written.find(
          R"("args":{"app_name":"Calc","n":12345678901234567890123,"x":1.50,"e":1e2,"z":-0,"list":[0.10,{"d":2E+3}]})"),
      std::string::npos)
      << written;
  EXPECT_EQ(written.find("e+22"), std::string::npos) << written;
  EXPECT_EQ(Json::parse(written), *out);
  EXPECT_TRUE(SameJsonSpelling(
      *SpelledJsonAt(written, {"command", "args"}),
      *SpelledJsonAt((*out)["mcpPayload"].get<std::string>().substr(kMcpPrefix.size()),
                     {"payload", "args"})));
}

// Without a command (or with nothing to respell) the written text is the dump.
TEST(ActionParseOp, WrittenOutputWithoutCommandIsTheDump) {
  for (const std::string& text : {std::string("Привет"), std::string("{\"text\":\"x\"}")}) {
    auto out = ParseOp().run({{"text", text}});
    ASSERT_TRUE(out);
    EXPECT_EQ(ParseOp().write(*out), DumpJson(*out)) << text;
  }
  auto kept = ParseOp().run(
      {{"text", R"({"text":"t","command":"open_app","args":{"app_name":"A","s":"\u00e9"}})"},
       {"sessionId", "s"}});
  ASSERT_TRUE(kept);
  EXPECT_EQ(ParseOp().write(*kept), DumpJson(*kept));
}

TEST(DumpWithTextAt, ReplacesOnlyThePathAndKeepsTheRest) {
  const Json j = {{"a", {{"b", 1}, {"c", "x"}}}, {"d", nullptr}};
  constexpr std::string_view kPath[] = {"a", "b"};
  EXPECT_EQ(DumpWithTextAt(j, kPath, "1.000"), R"({"a":{"b":1.000,"c":"x"},"d":null})");
  constexpr std::string_view kNowhere[] = {"a", "z"};
  EXPECT_EQ(DumpWithTextAt(j, kNowhere, "0"), DumpJson(j));
  constexpr std::string_view kThroughScalar[] = {"d", "b"};
  EXPECT_EQ(DumpWithTextAt(j, kThroughScalar, "0"), DumpJson(j));
}

TEST(ActionParseOp, RejectsInputItCannotTake) {
  const auto error = [](const Json& in) {
    auto out = RunParse(in);
    return out ? std::string("(ran)") : out.error().message;
  };
  EXPECT_EQ(error(Json::array()), "/: expected object, got array");
  EXPECT_EQ(error(Json::object()), "/text: expected string, got nothing (the field is required)");
  EXPECT_EQ(error({{"text", 1}}), "/text: expected string, got number");
  EXPECT_EQ(error({{"text", ""}, {"sessionId", 5}}), "/sessionId: expected string, got number");
  EXPECT_EQ(error({{"text", ""}, {"supportedCommands", "open_app"}}),
            "/supportedCommands: expected array, got string");
  EXPECT_EQ(error({{"text", ""}, {"supportedCommands", {"open_app", 2}}}),
            "/supportedCommands/1: expected string, got number");
}

}  // namespace
}  // namespace llmconform::action

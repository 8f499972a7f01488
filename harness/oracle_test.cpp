#include "harness/oracle.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <sstream>

#include "base/json_read.h"

namespace llmconform::harness {
namespace {

struct Call {
  int code;
  std::string out, err;
};

Call CallOracle(std::string_view op, const std::string& input) {
  std::istringstream in(input);
  std::ostringstream out, err;
  const int code = RunOracle(op, in, out, err);
  return {code, out.str(), err.str()};
}

TEST(Oracle, TableIsSortedAndUnique) {
  auto ops = OracleOperations();
  ASSERT_FALSE(ops.empty());
  for (std::size_t i = 1; i < ops.size(); ++i) EXPECT_LT(ops[i - 1].name, ops[i].name);
  EXPECT_NE(FindOracleOperation("multiturn.buildLLMMessages"), nullptr);
}

TEST(Oracle, BuildLLMMessagesOnCjkEmojiAndNegativeBudget) {
  auto c = CallOracle(
      "multiturn.buildLLMMessages",
      R"({"systemPrompt":"","history":[{"role":"user","content":"😀"}],"currentUserMessage":"你好",
                   "maxTokenBudget":-3})");
  EXPECT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(c.out,
            "{\"messages\":[{\"content\":\"\",\"role\":\"system\"},{\"content\":\"你好\",\"role\":"
            "\"user\"}]}\n");
}

TEST(Oracle, EstimateTokens) {
  EXPECT_EQ(CallOracle("multiturn.estimateMessageTokens", R"({"text":"介绍林默"})").out,
            "{\"tokens\":3}\n");
  EXPECT_EQ(CallOracle("multiturn.estimateMessageTokens", R"({"text":""})").out,
            "{\"tokens\":0}\n");
}

TEST(Oracle, SseParseWithSplits) {
  auto c = CallOracle("sse.parse",
                      R"({"stream":"id: 1\r\ndata: a\r\n\r\nretry: 10\n","splits":[5,13,14]})");
  EXPECT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(c.out,
            "{\"events\":[{\"data\":\"a\",\"event\":\"message\",\"id\":\"1\"}],\"retry\":10}\n");
}

TEST(Oracle, ActionParseWritesArgsAsTheReplySpelledThem) {
  // ACT-14: a number beyond a double keeps its spelling in command.args.
  const std::string input =
      R"({"text":"{\"text\":\"ok\",\"command\":\"open_app\",\"args\":{\"app_name\":\"Calc\",\"n\":12345678901234567890123,\"x\":1.50}}","sessionId":"s"})";
  const std::string args = R"("args":{"app_name":"Calc","n":12345678901234567890123,"x":1.50})";
  auto c = CallOracle("action.parse", input);
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_NE(c.out.find(R"({"command":{)" + args + R"(,"command":"open_app","session_id":"s"})"),
            std::string::npos)
      << c.out;
  EXPECT_EQ(c.out.find("e+22"), std::string::npos) << c.out;
  EXPECT_EQ(c.out.back(), '\n');
  EXPECT_EQ(std::count(c.out.begin(), c.out.end(), '\n'), 1);
  EXPECT_TRUE(nlohmann::json::parse(c.out).is_object());

  std::istringstream in(R"({"id":7,"op":"action.parse","input":)" + input + "}\n");
  std::ostringstream out;
  EXPECT_EQ(ServeOracle(in, out), 0);
  EXPECT_EQ(out.str().rfind(R"({"id":7,"output":{"command":{)" + args, 0), 0u) << out.str();
  const auto answer = nlohmann::json::parse(out.str());
  EXPECT_EQ(answer["output"], nlohmann::json::parse(c.out));
}

TEST(Oracle, MalformedInputExitsTwoWithAJsonError) {
  auto c = CallOracle("multiturn.estimateMessageTokens", "{\"text\": ");
  EXPECT_EQ(c.code, 2);
  EXPECT_TRUE(c.out.empty());
  auto err = nlohmann::json::parse(c.err);
  EXPECT_EQ(err["error"].get<std::string>().rfind("stdin:1:", 0), 0u) << c.err;

  auto wrong = CallOracle("multiturn.estimateMessageTokens", R"({"text": 5})");
  EXPECT_EQ(wrong.code, 2);
  EXPECT_EQ(nlohmann::json::parse(wrong.err)["error"],
            "multiturn.estimateMessageTokens: /text: expected string, got number");

  auto unknown = CallOracle("nope.op", "{}");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_EQ(nlohmann::json::parse(unknown.err)["error"],
            "unknown operation \"nope.op\"; `llmconform ref --list` lists them");
}

TEST(Oracle, ForeignHistoryRoleIsAnInputError) {
  auto c = CallOracle(
      "multiturn.buildLLMMessages",
      R"({"systemPrompt":"s","history":[{"role":"tool","content":"x"}],"currentUserMessage":"u","maxTokenBudget":9})");
  // docs/protocols.md: a history role other than user/assistant is an input error.
  EXPECT_EQ(c.code, 2);
  EXPECT_NE(c.err.find("/history/0/role"), std::string::npos);
}

// wire.dialect reads the exchange as its "surface" says: a Responses stream
// whose delta comes for an item no output_item.added opened names
// DIA-RESP-NO-ITEM-ADDED, located; read as Chat (the default) it names no
// Responses deviation.
TEST(Oracle, WireDialectReadsTheSurfaceItIsGiven) {
  const std::string stream =
      "event: response.created\n"
      R"(data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","model":"m","status":"in_progress","output":[]}})"
      "\n\n"
      "event: response.output_text.delta\n"
      R"(data: {"type":"response.output_text.delta","sequence_number":1,"output_index":0,"content_index":0,"item_id":"msg_1","delta":"hi"})"
      "\n\n";
  const nlohmann::json responses{{"stream", stream}, {"surface", "responses"}};
  auto c = CallOracle("wire.dialect", responses.dump());
  ASSERT_EQ(c.code, 0) << c.err;
  const auto out = nlohmann::json::parse(c.out);
  ASSERT_EQ(out["deviations"].size(), 1u) << c.out;
  EXPECT_EQ(out["deviations"][0]["id"], "DIA-RESP-NO-ITEM-ADDED");
  EXPECT_EQ(out["deviations"][0]["where"], "event 2 /output_index");

  auto chat = CallOracle("wire.dialect", nlohmann::json{{"stream", stream}}.dump());
  ASSERT_EQ(chat.code, 0) << chat.err;
  for (const auto& d : nlohmann::json::parse(chat.out)["deviations"])
    EXPECT_FALSE(d["id"].get<std::string>().starts_with("DIA-RESP-")) << chat.out;

  // A body too: a completed response without usage.
  const nlohmann::json body{
      {"body",
       R"({"id":"resp_1","object":"response","model":"m","status":"completed","output":[]})"},
      {"surface", "responses"}};
  auto b = CallOracle("wire.dialect", body.dump());
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(nlohmann::json::parse(b.out)["deviations"][0]["id"], "DIA-RESP-NO-USAGE") << b.out;
}

// A surface the toolkit does not know is refused with exit 2, at /surface.
TEST(Oracle, WireDialectRefusesAnUnknownSurface) {
  for (const char* surface : {R"("bedrock")", R"("Responses")", "5", "null"}) {
    auto c = CallOracle("wire.dialect", std::string(R"({"stream":"","surface":)") + surface + "}");
    EXPECT_EQ(c.code, 2) << surface;
    EXPECT_TRUE(c.out.empty());
    EXPECT_EQ(nlohmann::json::parse(c.err)["error"],
              std::string("wire.dialect: /surface: expected a surface name (chat, responses, "
                          "gemini, messages), got ") +
                  surface);
  }
}

}  // namespace
}  // namespace llmconform::harness

namespace llmconform::harness {
namespace {

// Any JSON value, small, with strings drawn from text that stresses the
// protocols: CJK, emoji, tags, fences, control characters.
rc::Gen<nlohmann::json> ArbitraryJson(int depth) {
  auto text = rc::gen::oneOf(
      rc::gen::arbitrary<std::string>(),
      rc::gen::element<std::string>("", "介绍林默", "😀", "[CMD] ls", "<thinking><phase id=\"1\">",
                                    "```json\n{}\n```", "{\"command\":\"open_app\"}", "data: x\n\n",
                                    "\r\n", "@project/../x"));
  auto scalar = rc::gen::oneOf(
      rc::gen::just(nlohmann::json(nullptr)),
      rc::gen::map(rc::gen::arbitrary<bool>(), [](bool b) { return nlohmann::json(b); }),
      rc::gen::map(rc::gen::inRange(-1000, 1000), [](int i) { return nlohmann::json(i); }),
      rc::gen::map(text, [](std::string s) { return nlohmann::json(std::move(s)); }));
  if (depth <= 0) return scalar;
  return rc::gen::oneOf(
      scalar,
      rc::gen::map(rc::gen::container<std::vector<nlohmann::json>>(ArbitraryJson(depth - 1)),
                   [](std::vector<nlohmann::json> v) { return nlohmann::json(std::move(v)); }));
}

// Every operation answers any input with exit 0 and one JSON document, or
// exit 2 and a JSON error; it never crashes, hangs or writes both.
RC_GTEST_PROP(OracleProperties, EveryOperationAnswersAnyInput, ()) {
  const auto ops = OracleOperations();
  const auto& op = ops[*rc::gen::inRange<std::size_t>(0, ops.size())];
  // Field names the operations read, so that inputs get past the first check.
  static const std::vector<std::string> kFields = {
      "text",           "systemPrompt", "history",       "currentUserMessage",
      "maxTokenBudget", "stream",       "body",          "status",
      "surface",        "splits",       "sessionId",     "supportedCommands",
      "lastCommand",    "basePrompt",   "serverContext", "skillName",
      "skillMarkdown",  "parameters",   "customPrompt",  "step",
      "maxSteps",       "events",       "messages",      "tool",
      "args",           "mounts"};
  nlohmann::json input = nlohmann::json::object();
  const auto keys = *rc::gen::container<std::vector<std::string>>(rc::gen::elementOf(kFields));
  for (const auto& k : keys) input[k] = *ArbitraryJson(2);
  std::istringstream in(DumpJson(input));
  std::ostringstream out, err;
  const int code = RunOracle(op.name, in, out, err);
  RC_ASSERT(code == 0 || code == 2);
  if (code == 0) {
    RC_ASSERT(err.str().empty());
    RC_ASSERT(!nlohmann::json::parse(out.str(), nullptr, false).is_discarded());
  } else {
    RC_ASSERT(out.str().empty());
    RC_ASSERT(nlohmann::json::parse(err.str(), nullptr, false).contains("error"));
  }
}

}  // namespace
}  // namespace llmconform::harness

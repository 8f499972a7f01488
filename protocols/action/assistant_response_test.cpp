#include "protocols/action/assistant_response.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "protocols/action/json_text.h"
#include "protocols/action/mcp_payload.h"

namespace llmconform {
// For readable failures in this test binary.
void PrintTo(const Finding& f, std::ostream* os) { *os << f.rule << ": " << f.message; }
namespace action {
void PrintTo(const Command& c, std::ostream* os) {
  *os << "{" << c.session_id << ", " << c.command << ", " << c.args.dump() << "}";
}
void PrintTo(const AssistantResponse& r, std::ostream* os) {
  *os << "{text " << QuoteJson(r.text) << ", command ";
  if (r.command) {
    PrintTo(*r.command, os);
  } else {
    *os << "none";
  }
  for (const auto& f : r.findings) *os << ", " << f.rule << ": " << f.message;
  *os << "}";
}
}  // namespace action
}  // namespace llmconform

namespace llmconform::action {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr std::string_view kSession = "session_1764210832.530743";

AssistantResponse Parse(std::string_view reply,
                        std::optional<std::string_view> session = std::nullopt) {
  return ParseAssistantResponse(reply, session);
}

Command OpenApp(std::string_view session, std::string_view app) {
  OJson args = OJson::object();
  args["app_name"] = std::string(app);
  return {std::string(session), "open_app", std::move(args)};
}

std::vector<std::string> Rules(const AssistantResponse& r) {
  std::vector<std::string> rules;
  for (const auto& f : r.findings) rules.push_back(f.rule);
  return rules;
}

// --- The examples of the seed, as written there (004 §Общий формат … §Примеры).

TEST(SeedExamples, PlainAnswerAsJson) {
  auto r = Parse(R"({
  "text": "Привет! Как дела? Чем могу помочь?"
})");
  EXPECT_EQ(r, (AssistantResponse{"Привет! Как дела? Чем могу помочь?", std::nullopt, {}}));
}

TEST(SeedExamples, PlainAnswerAsAString) {
  auto r = Parse("Привет! Как дела? Чем могу помочь?\n");
  EXPECT_EQ(r, (AssistantResponse{"Привет! Как дела? Чем могу помочь?", std::nullopt, {}}));
}

TEST(SeedExamples, OpenSafari) {
  const std::string_view reply = R"({
  "session_id": "session_1764210832.530743",
  "command": "open_app",
  "args": {
    "app_name": "Safari"
  },
  "text": "Открываю Safari."
})";
  EXPECT_EQ(Parse(reply, kSession),
            (AssistantResponse{"Открываю Safari.", OpenApp(kSession, "Safari"), {}}));
  // The reply's session id serves when the request has none.
  EXPECT_EQ(Parse(reply), (AssistantResponse{"Открываю Safari.", OpenApp(kSession, "Safari"), {}}));
}

TEST(SeedExamples, OpenAppWithShortSessionId) {
  auto r = Parse(R"({
  "session_id": "session_123",
  "command": "open_app",
  "args": {
    "app_name": "Safari"
  },
  "text": "Открываю Safari."
})");
  EXPECT_EQ(r, (AssistantResponse{"Открываю Safari.", OpenApp("session_123", "Safari"), {}}));
}

TEST(SeedExamples, Example1OpenCalculator) {
  auto r = Parse(R"({
  "session_id": "session_1764210832.530743",
  "command": "open_app",
  "args": {
    "app_name": "Calculator"
  },
  "text": "Открываю калькулятор."
})",
                 kSession);
  EXPECT_EQ(r, (AssistantResponse{"Открываю калькулятор.", OpenApp(kSession, "Calculator"), {}}));
  auto payload = BuildMcpPayload(*r.command);
  ASSERT_TRUE(payload);
  EXPECT_EQ(
      *payload,
      R"(__MCP__{"event":"mcp.command_request","payload":{"session_id":"session_1764210832.530743","command":"open_app","args":{"app_name":"Calculator"}}})");
}

TEST(SeedExamples, Example2PlainAnswer) {
  auto r = Parse(R"({
  "text": "Калькулятор уже открыт. Что вы хотите вычислить?"
})",
                 kSession);
  EXPECT_EQ(
      r, (AssistantResponse{"Калькулятор уже открыт. Что вы хотите вычислить?", std::nullopt, {}}));
}

TEST(SeedExamples, Example3ActionWithEmptyText) {
  auto r = Parse(R"({
  "session_id": "session_1764210832.530743",
  "command": "open_app",
  "args": {
    "app_name": "Safari"
  },
  "text": ""
})",
                 kSession);
  EXPECT_EQ(r, (AssistantResponse{"", OpenApp(kSession, "Safari"), {}}));
}

// --- Each way a command is dropped (004 §Важно): the text alone is returned,
// with a finding that names the reason.

TEST(DroppedCommand, NoSessionIdAnywhere) {
  auto r =
      Parse(R"({"command":"open_app","args":{"app_name":"Safari"},"text":"Открываю Safari."})");
  EXPECT_EQ(r.text, "Открываю Safari.");
  EXPECT_EQ(r.command, std::nullopt);
  EXPECT_THAT(r.findings, ElementsAre(Finding{
                              "ACT-4",
                              "command \"open_app\" dropped: no session id: the request has none "
                              "and \"session_id\" is missing"}));
}

TEST(DroppedCommand, EmptySessionIdsCountAsNone) {
  auto r = ParseAssistantResponse(
      R"({"session_id":"","command":"open_app","args":{"app_name":"Safari"},"text":"x"})", "");
  EXPECT_EQ(r.command, std::nullopt);
  EXPECT_THAT(r.findings, ElementsAre(Finding{"ACT-4",
                                              "command \"open_app\" dropped: no session id: the "
                                              "request has none and \"session_id\" is empty"}));
  auto n =
      Parse(R"({"session_id":7,"command":"open_app","args":{"app_name":"Safari"},"text":"x"})");
  EXPECT_EQ(n.command, std::nullopt);
  EXPECT_THAT(n.findings, ElementsAre(Finding{"ACT-4",
                                              "command \"open_app\" dropped: no session id: the "
                                              "request has none and \"session_id\" is a number"}));
}

TEST(DroppedCommand, NoArgs) {
  auto r = Parse(R"({"session_id":"s1","command":"open_app","text":"Открываю."})", "s1");
  EXPECT_EQ(r.text, "Открываю.");
  EXPECT_EQ(r.command, std::nullopt);
  EXPECT_THAT(r.findings,
              ElementsAre(Finding{"ACT-7", "command \"open_app\" dropped: \"args\" is missing"}));
}

TEST(DroppedCommand, ArgsNotAnObject) {
  for (const auto& [args, what] :
       std::vector<std::pair<std::string, std::string>>{{R"("Safari")", "a string"},
                                                        {R"(["Safari"])", "an array"},
                                                        {"null", "null"},
                                                        {"1", "a number"}}) {
    auto r = Parse(R"({"session_id":"s1","command":"open_app","args":)" + args + R"(,"text":"t"})",
                   "s1");
    EXPECT_EQ(r.text, "t");
    EXPECT_EQ(r.command, std::nullopt);
    EXPECT_THAT(r.findings,
                ElementsAre(Finding{"ACT-7", "command \"open_app\" dropped: \"args\" is " + what +
                                                 ", expected an object"}))
        << args;
  }
}

TEST(DroppedCommand, EmptyOrMissingAppName) {
  const auto parse = [](std::string_view args) {
    return Parse(R"({"session_id":"s1","command":"open_app","args":)" + std::string(args) +
                     R"(,"text":"t"})",
                 "s1");
  };
  auto empty = parse(R"({"app_name":""})");
  EXPECT_EQ(empty.command, std::nullopt);
  EXPECT_THAT(
      empty.findings,
      ElementsAre(Finding{"ACT-8", "command \"open_app\" dropped: args.app_name is empty"}));
  auto missing = parse(R"({"name":"Safari"})");
  EXPECT_EQ(missing.command, std::nullopt);
  EXPECT_THAT(
      missing.findings,
      ElementsAre(Finding{"ACT-8", "command \"open_app\" dropped: args.app_name is missing"}));
  auto number = parse(R"({"app_name":5})");
  EXPECT_EQ(number.command, std::nullopt);
  EXPECT_THAT(number.findings,
              ElementsAre(Finding{"ACT-8",
                                  "command \"open_app\" dropped: args.app_name is a number, "
                                  "expected a non-empty string"}));
  // A blank name is not empty: the seed asks for non-empty, and it is kept as written.
  EXPECT_EQ(parse(R"({"app_name":" "})").command, OpenApp("s1", " "));
}

TEST(DroppedCommand, UnsupportedCommand) {
  auto r = Parse(
      R"({"session_id":"s1","command":"delete_files","args":{"app_name":"Finder"},"text":"Удаляю."})",
      "s1");
  EXPECT_EQ(r.text, "Удаляю.");
  EXPECT_EQ(r.command, std::nullopt);
  EXPECT_THAT(r.findings,
              ElementsAre(Finding{"ACT-6",
                                  "command \"delete_files\" dropped: not a supported command "
                                  "(supported: \"open_app\")"}));
  // Names are compared exactly.
  EXPECT_EQ(
      Parse(R"({"session_id":"s1","command":"Open_App","args":{"app_name":"Finder"},"text":""})",
            "s1")
          .command,
      std::nullopt);
  // The list is configurable; an empty list supports nothing.
  const std::vector<std::string> none;
  auto nothing = ParseAssistantResponse(
      R"({"session_id":"s1","command":"open_app","args":{"app_name":"Finder"},"text":""})", "s1",
      none);
  EXPECT_EQ(nothing.command, std::nullopt);
  EXPECT_THAT(nothing.findings,
              ElementsAre(Finding{"ACT-6",
                                  "command \"open_app\" dropped: not a supported command "
                                  "(supported: none)"}));
  const std::vector<std::string> more = {"open_app", "focus_app"};
  auto focus = ParseAssistantResponse(
      R"({"session_id":"s1","command":"focus_app","args":{"app_name":"Finder"},"text":""})", "s1",
      more);
  ASSERT_TRUE(focus.command);
  EXPECT_EQ(focus.command->command, "focus_app");
}

TEST(DroppedCommand, CommandNotAString) {
  auto r =
      Parse(R"({"session_id":"s1","command":["open_app"],"args":{"app_name":"Safari"},"text":"t"})",
            "s1");
  EXPECT_EQ(r.command, std::nullopt);
  EXPECT_THAT(r.findings,
              ElementsAre(Finding{
                  "ACT-5", "the command dropped: \"command\" is an array, expected a string"}));
}

TEST(DroppedCommand, EveryDefectIsReported) {
  auto r = Parse(R"({"command":"launch","args":{},"text":5})");
  EXPECT_EQ(r.text, "");
  EXPECT_EQ(r.command, std::nullopt);
  EXPECT_THAT(Rules(r), ElementsAre("ACT-3", "ACT-6", "ACT-4", "ACT-8"));
}

TEST(DroppedCommand, RequestSessionIdThatIsNotUtf8) {
  auto r =
      Parse(R"({"session_id":"s1","command":"open_app","args":{"app_name":"Safari"},"text":"t"})",
            "s\xFF");
  EXPECT_EQ(r.text, "t");
  EXPECT_EQ(r.command, std::nullopt);
  EXPECT_THAT(r.findings, ElementsAre(Finding{"ACT-13",
                                              "command \"open_app\" dropped: the request's "
                                              "session id is not valid UTF-8"}));
}

// --- `text` is always a string (004 §Важно).

TEST(Text, NotAStringBecomesEmptyWithAFinding) {
  auto r = Parse(R"({"text":{"ru":"Привет"}})");
  EXPECT_EQ(r, (AssistantResponse{
                   "",
                   std::nullopt,
                   {{"ACT-3", "\"text\" is an object, expected a string; the text is \"\""}}}));
  auto missing = Parse(R"({"answer":"Привет"})");
  EXPECT_EQ(missing, (AssistantResponse{
                         "", std::nullopt, {{"ACT-3", "\"text\" is missing; the text is \"\""}}}));
}

TEST(Text, MissingTextKeepsACompleteCommand) {
  auto r = Parse(R"({"session_id":"s1","command":"open_app","args":{"app_name":"Safari"}})", "s1");
  EXPECT_EQ(r.text, "");
  EXPECT_EQ(r.command, OpenApp("s1", "Safari"));
  EXPECT_THAT(Rules(r), ElementsAre("ACT-3"));
}

TEST(Text, NullCommandIsAPlainAnswer) {
  EXPECT_EQ(Parse(R"({"command":null,"text":"Готово."})"),
            (AssistantResponse{"Готово.", std::nullopt, {}}));
}

// --- The request's session id overrides the reply's (docs/protocols.md).

TEST(SessionId, RequestOverridesReply) {
  auto r = Parse(
      R"({"session_id":"other","command":"open_app","args":{"app_name":"Safari"},"text":"t"})",
      "mine");
  EXPECT_EQ(r.command, OpenApp("mine", "Safari"));
  EXPECT_THAT(r.findings, ElementsAre(Finding{"ACT-4",
                                              "\"session_id\" \"other\" differs from the request's "
                                              "\"mine\"; the request's is used"}));
  auto missing = Parse(R"({"command":"open_app","args":{"app_name":"Safari"},"text":"t"})", "mine");
  EXPECT_EQ(missing.command, OpenApp("mine", "Safari"));
  EXPECT_THAT(missing.findings,
              ElementsAre(Finding{"ACT-4",
                                  "\"session_id\" is missing; the request's session id \"mine\" is "
                                  "used"}));
  auto number = Parse(
      R"({"session_id":1,"command":"open_app","args":{"app_name":"Safari"},"text":"t"})", "mine");
  EXPECT_EQ(number.command, OpenApp("mine", "Safari"));
  EXPECT_THAT(number.findings,
              ElementsAre(Finding{"ACT-4",
                                  "\"session_id\" is a number, expected a string; the request's "
                                  "session id \"mine\" is used"}));
}

// --- Plain text, fences, prose.

TEST(PlainText, IsTrimmedAndHasNoCommand) {
  EXPECT_EQ(Parse("  \n\tСейчас 10:30.  \r\n"),
            (AssistantResponse{"Сейчас 10:30.", std::nullopt, {}}));
  EXPECT_EQ(Parse(""), (AssistantResponse{"", std::nullopt, {}}));
  EXPECT_EQ(Parse(" \n "), (AssistantResponse{"", std::nullopt, {}}));
}

TEST(PlainText, BracesThatAreNotJsonStayText) {
  EXPECT_EQ(Parse("Use {name} in the template, then close }"),
            (AssistantResponse{"Use {name} in the template, then close }", std::nullopt, {}}));
  EXPECT_EQ(Parse("} before {"), (AssistantResponse{"} before {", std::nullopt, {}}));
}

TEST(PlainText, JsonThatIsNotAnObjectIsText) {
  EXPECT_EQ(Parse(R"("Привет")"), (AssistantResponse{R"("Привет")", std::nullopt, {}}));
  EXPECT_EQ(Parse("[1, 2]"), (AssistantResponse{"[1, 2]", std::nullopt, {}}));
  EXPECT_EQ(Parse("42"), (AssistantResponse{"42", std::nullopt, {}}));
}

TEST(PlainText, BrokenJsonIsTextWithAFinding) {
  auto r = Parse(R"({"command":"open_app","args":{"app_name":"Safari"},"text":"t")");
  EXPECT_EQ(r.text, R"({"command":"open_app","args":{"app_name":"Safari"},"text":"t")");
  EXPECT_EQ(r.command, std::nullopt);
  EXPECT_THAT(r.findings, ElementsAre(Finding{
                              "ACT-1",
                              "the reply begins with \"{\" but is not a JSON object (parse error "
                              "at line 1, column 51: syntax error while parsing object - "
                              "unexpected end of input; expected '}'); it is read as plain text"}));
  auto unclosed = Parse(R"({"text":"t")");
  EXPECT_THAT(
      unclosed.findings,
      ElementsAre(Finding{"ACT-1",
                          "the reply begins with \"{\" but is not a JSON object (there is no "
                          "closing \"}\"); it is read as plain text"}));
}

TEST(PlainText, FencedTextKeepsItsFence) {
  EXPECT_EQ(Parse("```\nls -la\n```"), (AssistantResponse{"```\nls -la\n```", std::nullopt, {}}));
}

TEST(Fence, OneSurroundingFenceIsStripped) {
  auto r = Parse(
      "```json\n{\"session_id\":\"s1\",\"command\":\"open_app\",\"args\":{\"app_name\":"
      "\"Safari\"},\"text\":\"Открываю Safari.\"}\n```",
      "s1");
  EXPECT_EQ(r.text, "Открываю Safari.");
  EXPECT_EQ(r.command, OpenApp("s1", "Safari"));
  EXPECT_THAT(r.findings,
              ElementsAre(Finding{"ACT-2", "the JSON object is wrapped in a code fence"}));
  EXPECT_EQ(Parse("```\n{\"text\":\"a\"}\n```").text, "a");
  EXPECT_EQ(Parse("````json\n{\"text\":\"a\"}\n````").text, "a");
  EXPECT_EQ(Parse("```json\n{\"text\":\"a\"}```").text, "a");
}

TEST(Fence, BrokenFencedJsonIsTextWithAFinding) {
  auto r = Parse("```json\n{\"text\":\n```");
  EXPECT_EQ(r.text, "```json\n{\"text\":\n```");
  EXPECT_THAT(Rules(r), ElementsAre("ACT-1"));
}

TEST(Prose, JsonWithProseAroundIsRead) {
  auto r = Parse(
      "Конечно! Вот ответ:\n```json\n{\"session_id\":\"s1\",\"command\":\"open_app\","
      "\"args\":{\"app_name\":\"Calculator\"},\"text\":\"Открываю калькулятор.\"}\n```\n"
      "Надеюсь, это поможет.",
      "s1");
  EXPECT_EQ(r.text, "Открываю калькулятор.");
  EXPECT_EQ(r.command, OpenApp("s1", "Calculator"));
  EXPECT_THAT(r.findings, ElementsAre(Finding{
                              "ACT-2",
                              "the JSON object has text around it (43 bytes before it, 43 after "
                              "it)"}));
}

// --- String values are never rewritten (the public implementation turns
// "10:30" into "10: 30").

TEST(StringValues, ComeThroughByteForByte) {
  const std::string text =
      "Встреча в 10:30, ссылка: https://example.com/a:b?x=1&y=2#frag — 12:00:05 \\ \" \t {x:1}";
  OJson reply = OJson::object();
  reply["session_id"] = "session:10:30";
  reply["command"] = "open_app";
  reply["args"] = OJson::object();
  reply["args"]["app_name"] = "Zoom";
  reply["args"]["url"] = "zoommtg://zoom.us/join?confno=10:30";
  reply["args"]["at"] = "10:30";
  reply["text"] = text;
  auto r = Parse(reply.dump(2));
  EXPECT_EQ(r.text, text);
  ASSERT_TRUE(r.command);
  EXPECT_EQ(r.command->session_id, "session:10:30");
  EXPECT_EQ(r.command->args.dump(),
            R"({"app_name":"Zoom","url":"zoommtg://zoom.us/join?confno=10:30","at":"10:30"})");
  EXPECT_THAT(r.findings, IsEmpty());
  EXPECT_EQ(Parse("Сейчас 10:30. https://ya.ru/?q=10:30").text,
            "Сейчас 10:30. https://ya.ru/?q=10:30");
}

TEST(Robustness, DuplicateMembersTakeTheLastValue) {
  // As Python's json and JavaScript's JSON.parse read them, so a server in
  // either language sees the same command.
  auto r = Parse(
      R"({"session_id":"s","command":"delete","command":"open_app","args":{"app_name":"A","app_name":"B"},"text":"x","text":"y"})");
  EXPECT_EQ(r, (AssistantResponse{"y", OpenApp("s", "B"), {}}));
}

TEST(Robustness, InvalidUtf8IsPlainText) {
  auto r = Parse("{\"text\":\"\xFF\"}");
  EXPECT_EQ(r.text, "{\"text\":\"\xFF\"}");
  EXPECT_EQ(r.command, std::nullopt);
  ASSERT_THAT(Rules(r), ElementsAre("ACT-1"));
  EXPECT_TRUE(IsValidUtf8(r.findings[0].message)) << r.findings[0].message;
}

TEST(Robustness, DeepNestingIsRefused) {
  const std::string deep =
      "{\"text\":\"t\",\"x\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  auto r = Parse(deep);
  EXPECT_EQ(r.text, deep);
  EXPECT_THAT(r.findings,
              ElementsAre(Finding{"ACT-1",
                                  "the reply begins with \"{\" but is not a JSON object (it nests "
                                  "deeper than 256 levels); it is read as plain text"}));
  const std::string ok =
      "{\"text\":\"t\",\"x\":" + std::string(255, '[') + std::string(255, ']') + "}";
  EXPECT_EQ(Parse(ok).text, "t");
}

// --- Properties.

// Valid UTF-8 text, biased towards what matters here: braces, fences, colons,
// quotes, URLs, Cyrillic.
rc::Gen<std::string> Utf8Text() {
  const auto piece = rc::gen::oneOf(
      rc::gen::element<std::string>("{", "}", "```", "10:30", "\"", "\\", ":", "https://a.b/c?d=1",
                                    "\n", " ", "Открываю", "open_app", "session_id",
                                    "\xF0\x9F\x98\x80"),
      rc::gen::map(rc::gen::inRange<std::uint32_t>(1, 0x10FFFF), [](std::uint32_t cp) {
        if (cp >= 0xD800 && cp <= 0xDFFF) cp = 'x';
        std::string out;
        if (cp < 0x80) {
          out += static_cast<char>(cp);
        } else if (cp < 0x800) {
          out += static_cast<char>(0xC0 | (cp >> 6));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
          out += static_cast<char>(0xE0 | (cp >> 12));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
          out += static_cast<char>(0xF0 | (cp >> 18));
          out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        }
        return out;
      }));
  return rc::gen::map(rc::gen::container<std::vector<std::string>>(piece),
                      [](const std::vector<std::string>& pieces) {
                        std::string out;
                        for (const auto& p : pieces) out += p;
                        return out;
                      });
}

rc::Gen<std::string> NonEmptyUtf8Text() {
  return rc::gen::suchThat(Utf8Text(), [](const std::string& s) { return !s.empty(); });
}

// Fragments of action replies in any order: JSON-shaped noise.
rc::Gen<std::string> JsonishText() {
  return rc::gen::map(
      rc::gen::container<std::vector<std::string>>(rc::gen::element<std::string>(
          "{", "}", "[", "]", ",", ":", "\"", "\"text\"", "\"command\"", "\"open_app\"",
          "\"session_id\"", "\"s1\"", "\"args\"", "\"app_name\"", "\"Safari\"", "\"\"", "null", "1",
          "```", "```json\n", "\n", " ", "\xFF", "\\")),
      [](const std::vector<std::string>& pieces) {
        std::string out;
        for (const auto& p : pieces) out += p;
        return out;
      });
}

// What the parser promises for any input.
void CheckInvariants(const AssistantResponse& r, std::optional<std::string_view> request_session_id,
                     const std::vector<std::string>& supported) {
  for (const auto& f : r.findings) {
    RC_ASSERT(f.rule.starts_with("ACT-"));
    RC_ASSERT(IsValidUtf8(f.message));
  }
  if (!r.command) return;
  RC_ASSERT(std::find(supported.begin(), supported.end(), r.command->command) != supported.end());
  RC_ASSERT(!r.command->session_id.empty());
  if (request_session_id && !request_session_id->empty()) {
    RC_ASSERT(r.command->session_id == *request_session_id);
  }
  RC_ASSERT(r.command->args.is_object());
  const auto app = r.command->args.find("app_name");
  RC_ASSERT(app != r.command->args.end());
  RC_ASSERT(app->is_string());
  RC_ASSERT(!app->get<std::string>().empty());
  RC_ASSERT(BuildMcpPayload(*r.command).has_value());
}

RC_GTEST_PROP(ParseAssistantResponseProperties, NeverFailsOnAnyBytes,
              (const std::string& reply, const std::string& request_id, bool has_request_id)) {
  const auto session = has_request_id ? std::optional<std::string_view>(request_id) : std::nullopt;
  const std::vector<std::string> supported = *rc::gen::container<std::vector<std::string>>(
      rc::gen::element<std::string>("open_app", "", "close_app"));
  const auto r = ParseAssistantResponse(reply, session, supported);
  CheckInvariants(r, session, supported);
}

RC_GTEST_PROP(ParseAssistantResponseProperties, NeverFailsOnJsonShapedNoise, ()) {
  const std::string reply = *JsonishText();
  const std::string request_id = *rc::gen::element<std::string>("s1", "", "s\xFF");
  const auto session =
      *rc::gen::arbitrary<bool>() ? std::optional<std::string_view>(request_id) : std::nullopt;
  const auto r = ParseAssistantResponse(reply, session);
  CheckInvariants(r, session, DefaultSupportedCommands());
}

struct Action {
  std::string session_id;
  std::string app_name;
  std::string text;
  std::vector<std::pair<std::string, std::string>> extra_args;
};

rc::Gen<Action> ValidAction() {
  return rc::gen::build<Action>(
      rc::gen::set(&Action::session_id, NonEmptyUtf8Text()),
      rc::gen::set(&Action::app_name, NonEmptyUtf8Text()), rc::gen::set(&Action::text, Utf8Text()),
      rc::gen::set(
          &Action::extra_args,
          rc::gen::container<std::vector<std::pair<std::string, std::string>>>(
              rc::gen::pair(rc::gen::element<std::string>("url", "at", "mode"), Utf8Text()))));
}

// The reply a model would write for `a`, members in a generated order.
OJson ActionJson(const Action& a, const std::vector<int>& order) {
  OJson args = OJson::object();
  args["app_name"] = a.app_name;
  for (const auto& [k, v] : a.extra_args) args[k] = v;
  OJson reply = OJson::object();
  for (const int member : order) {
    switch (member) {
      case 0:
        reply["session_id"] = a.session_id;
        break;
      case 1:
        reply["command"] = "open_app";
        break;
      case 2:
        reply["args"] = args;
        break;
      default:
        reply["text"] = a.text;
        break;
    }
  }
  return reply;
}

Command ExpectedCommand(const Action& a) {
  OJson args = OJson::object();
  args["app_name"] = a.app_name;
  for (const auto& [k, v] : a.extra_args) args[k] = v;
  return {a.session_id, "open_app", std::move(args)};
}

RC_GTEST_PROP(ParseAssistantResponseProperties, ValidActionsRoundTrip, ()) {
  const Action a = *ValidAction();
  const auto order = *rc::gen::elementOf(
      std::vector<std::vector<int>>{{0, 1, 2, 3}, {3, 2, 1, 0}, {1, 0, 3, 2}, {2, 3, 0, 1}});
  const int indent = *rc::gen::element(-1, 0, 2, 4);
  const bool with_request_id = *rc::gen::arbitrary<bool>();
  const std::string reply = ActionJson(a, order).dump(indent);
  const auto r = ParseAssistantResponse(
      reply, with_request_id ? std::optional<std::string_view>(a.session_id) : std::nullopt);
  RC_ASSERT(r.findings.empty());
  RC_ASSERT(r.text == a.text);
  RC_ASSERT(r.command == std::optional<Command>(ExpectedCommand(a)));
  // And through the payload to the client and back.
  const auto payload = BuildMcpPayload(*r.command);
  RC_ASSERT(payload.has_value());
  const auto back = ParseMcpPayload(*payload);
  RC_ASSERT(back.has_value());
  RC_ASSERT(*back == ExpectedCommand(a));
}

RC_GTEST_PROP(ParseAssistantResponseProperties, RemovingARequiredPieceDropsTheCommand, ()) {
  const Action a = *ValidAction();
  OJson reply = ActionJson(a, {0, 1, 2, 3});
  struct Damage {
    std::string rule;
    std::function<void(OJson&)> apply;
  };
  const std::vector<Damage> damages = {
      {"ACT-4", [](OJson& j) { j.erase("session_id"); }},
      {"ACT-4", [](OJson& j) { j["session_id"] = ""; }},
      {"ACT-4", [](OJson& j) { j["session_id"] = 42; }},
      {"ACT-5", [](OJson& j) { j["command"] = OJson::array({"open_app"}); }},
      {"ACT-6", [](OJson& j) { j["command"] = "open_app "; }},
      {"ACT-7", [](OJson& j) { j.erase("args"); }},
      {"ACT-7", [](OJson& j) { j["args"] = j["args"]["app_name"]; }},
      {"ACT-8", [](OJson& j) { j["args"].erase("app_name"); }},
      {"ACT-8", [](OJson& j) { j["args"]["app_name"] = ""; }},
      {"ACT-8", [](OJson& j) { j["args"]["app_name"] = nullptr; }},
  };
  const auto& damage = *rc::gen::elementOf(damages);
  damage.apply(reply);
  const auto r = ParseAssistantResponse(reply.dump(), std::nullopt);
  RC_ASSERT(r.command == std::nullopt);
  RC_ASSERT(r.text == a.text);
  RC_ASSERT(Rules(r) == std::vector<std::string>{damage.rule});
  RC_ASSERT(r.findings[0].message.find(" dropped: ") != std::string::npos);
}

RC_GTEST_PROP(ParseAssistantResponseProperties, PlainTextIsTheTrimmedReply, ()) {
  // Text without "{" is never JSON: it comes back trimmed and otherwise untouched.
  const std::string reply = *rc::gen::suchThat(
      Utf8Text(), [](const std::string& s) { return s.find('{') == std::string::npos; });
  const auto r = ParseAssistantResponse(reply, "s1");
  const auto begin = reply.find_first_not_of(" \t\n\r\f\v");
  const std::string expected =
      begin == std::string::npos
          ? ""
          : reply.substr(begin, reply.find_last_not_of(" \t\n\r\f\v") - begin + 1);
  RC_ASSERT(r == (AssistantResponse{expected, std::nullopt, {}}));
}

}  // namespace
}  // namespace llmconform::action

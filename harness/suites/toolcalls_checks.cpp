#include "harness/suites/toolcalls_checks.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

#include "base/format.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "harness/suites/toolcalls_shapes.h"
#include "protocols/toolcalls/conversation_check.h"
#include "protocols/toolcalls/tool_schemas.h"

namespace llmconform::harness::toolcalls_suite {
namespace {

namespace tc = toolcalls;
using reports::CheckResult;

bool IsChatMode(const Scenario& s) { return s.input.value("mode", "run") == "chat"; }

// What a client wrote or sent is read with base/json_fields.h's lenient reads
// (MemberOf, StringOf, ArrayOf): a value of another shape fails the rule that
// reads it, never throws.
const Json& Turns(const Context& c) { return ArrayOf(c.obs.outputs, "turns"); }

// A request's tools fail TC-4.1-3 unless each is a function tool with a
// valid name and JSON Schema parameters; nullopt when they pass.
std::optional<CheckResult> BadTools(const std::string& rule, const SentRequest& r) {
  const Json& tools = MemberOf(r.body(), "tools");
  const std::string at = r.Where("/request/body/tools");
  if (!tools.is_array() || tools.empty()) {
    return CheckResult::Fail(rule, "a request declares no tools",
                             {"the five function tools", DumpJson(tools), at});
  }
  for (std::size_t k = 0; k < tools.size(); ++k) {
    const Json& t = tools[k];
    const Json& fn = MemberOf(t, "function");
    const std::string name = StringOf(fn, "name");
    if (StringOf(t, "type") != "function" || !tc::IsValidFunctionName(name) ||
        !MemberOf(fn, "parameters").is_object()) {
      return CheckResult::Fail(
          rule,
          Format("tool {} (\"{}\") is not a function tool with a valid name "
                 "and JSON Schema parameters",
                 k, name),
          {"{type:function, function:{name, parameters}}", DumpJson(t), Format("{}/{}", at, k)});
    }
  }
  return std::nullopt;
}

// The rules the conversation checker (protocols/toolcalls/conversation_check.h)
// reports: no request's messages break `rule`; with `with_tools`, each request
// also declares its tools as TC-4.1-3 says.
CheckResult CheckConversationRule(const std::string& rule, const Context& c, bool with_tools) {
  std::size_t tool_messages = 0;
  for (const auto& r : c.requests) {
    for (const auto& m : r.messages()) tool_messages += StringOf(m, "role") == "tool";
    for (const auto& f : tc::CheckConversation(r.messages())) {
      if (f.rule == rule)
        return CheckResult::Fail(rule, f.message, {"no finding", f.message, r.MessagesWhere()});
    }
    if (with_tools) {
      if (auto bad = BadTools(rule, r)) return *bad;
    }
  }
  return CheckResult::Pass(rule, Format("{} requests and {} tool messages obey the rule",
                                        c.requests.size(), tool_messages));
}

// TC-3.1-1, TC-3.2-*, TC-4.1-1, -2, -4, -5: as the conversation checker finds.
CheckResult CheckConversation(const std::string& rule, const Context& c) {
  return CheckConversationRule(rule, c, /*with_tools=*/false);
}

// TC-4.1-3: the conversation checker's finding, and the tools declared.
CheckResult CheckToolsDeclared(const std::string& rule, const Context& c) {
  return CheckConversationRule(rule, c, /*with_tools=*/true);
}

// TC-7-1: every reply with tool calls is followed by another request.
CheckResult CheckLoop(const std::string& rule, const Context& c) {
  const std::vector<SentRequest>& requests = c.requests;
  const Json& turns = Turns(c);
  for (std::size_t i = 0; i < turns.size(); ++i) {
    const Json& a = MemberOf(MemberOf(turns[i], "response"), "assistant");
    const Json& calls = MemberOf(a, "tool_calls");
    const bool has_calls = !calls.is_null() && !calls.empty();
    if (has_calls && i + 1 >= requests.size()) {
      return CheckResult::Fail(
          rule, Format("reply {} had tool calls but no request followed it", i + 1),
          {"another request", "the loop stopped", Format("outputs/turns/{}", i)});
    }
  }
  return CheckResult::Pass(
      rule, Format("the loop ran {} LLM calls and stopped only on a reply without tool calls",
                   requests.size()));
}

// TC-8-1: reasoning_content goes back with its assistant message.
CheckResult CheckReasoningSentBack(const std::string& rule, const Context& c) {
  const std::vector<SentRequest>& requests = c.requests;
  const Json& turns = Turns(c);
  int checked = 0;
  for (std::size_t i = 0; i < turns.size(); ++i) {
    const Json& a = MemberOf(MemberOf(turns[i], "response"), "assistant");
    if (!a.is_object() || !a.contains("reasoning_content")) continue;
    for (std::size_t k = i + 1; k < requests.size(); ++k) {
      for (const auto& m : requests[k].messages()) {
        if (StringOf(m, "role") != "assistant" ||
            MemberOf(m, "tool_calls") != MemberOf(a, "tool_calls") ||
            MemberOf(m, "content") != MemberOf(a, "content")) {
          continue;
        }
        ++checked;
        if (MemberOf(m, "reasoning_content") != a["reasoning_content"]) {
          return CheckResult::Fail(
              rule, Format("reply {}'s reasoning_content was not sent back", i + 1),
              {DumpJson(a["reasoning_content"]), DumpJson(MemberOf(m, "reasoning_content")),
               requests[k].MessagesWhere()});
        }
      }
    }
  }
  if (checked == 0)
    return CheckResult::Skip(rule,
                             "no reply with reasoning_content was sent back in a later request");
  return CheckResult::Pass(rule, Format("reasoning_content sent back unchanged {} times", checked));
}

// TC-4.2-1: one EngineTurn per LLM call, recording the request sent.
CheckResult CheckEngineTurns(const std::string& rule, const Context& c) {
  const std::vector<SentRequest>& requests = c.requests;
  const Json& turns = Turns(c);
  if (turns.size() != requests.size()) {
    return CheckResult::Fail(
        rule, "the engine did not record one EngineTurn per LLM call",
        {Format("{} turns", requests.size()), Format("{} turns", turns.size()), "outputs/turns"});
  }
  for (std::size_t i = 0; i < turns.size(); ++i) {
    for (const char* key : {"id", "phaseBefore", "request", "response", "toolRuns", "uiAfter"}) {
      if (!turns[i].contains(key)) {
        return CheckResult::Fail(rule, Format("EngineTurn {} has no {}", i + 1, key),
                                 {key, "nothing", Format("outputs/turns/{}", i)});
      }
    }
    if (MemberOf(MemberOf(turns[i], "request"), "messages") != requests[i].messages()) {
      return CheckResult::Fail(
          rule, Format("EngineTurn {} does not record the messages sent", i + 1),
          {"the journal's messages", "other messages", Format("outputs/turns/{}", i)});
    }
  }
  return CheckResult::Pass(
      rule, Format("{} EngineTurns recorded, each with the request sent", turns.size()));
}

// TC-4.2-2: the run ends in the expected phase, for the expected reason.
CheckResult CheckPhase(const std::string& rule, const Context& c) {
  const Json& outputs = c.obs.outputs;
  const Json& expect = c.scenario.expect;
  const std::string want = StringOf(expect, "phase");
  const std::string got = StringOf(outputs, "phase");
  if (want != got)
    return CheckResult::Fail(rule, "the run ended in another phase", {want, got, "outputs/phase"});
  if (expect.contains("stopReason") && expect["stopReason"] != MemberOf(outputs, "stopReason")) {
    return CheckResult::Fail(rule, "the run stopped for another reason",
                             {expect["stopReason"].dump(),
                              DumpJson(MemberOf(outputs, "stopReason")), "outputs/stopReason"});
  }
  return CheckResult::Pass(rule,
                           Format("the run ended {} ({})", got, StringOf(outputs, "stopReason")));
}

// TC-5.1-1: each RUN_DIRECTIVE is the exact §5.1 shell; the first has the run's intent.
CheckResult CheckRunDirective(const std::string& rule, const Context& c) {
  const Scenario& scenario = c.scenario;
  const bool chat = IsChatMode(c.scenario);
  const std::vector<SentRequest>& requests = c.requests;
  if (chat) return CheckResult::Skip(rule, "mode=chat sends no RUN_DIRECTIVE");
  const auto texts = UserTexts(requests, "RUN_DIRECTIVE");
  if (texts.empty())
    return CheckResult::Fail(rule, "no RUN_DIRECTIVE was sent",
                             {"a RUN_DIRECTIVE user message", "none", "journal"});
  for (const auto& [where, text] : texts) {
    auto d = ParseRunDirective(text);
    if (!d || (d->intent != "start" && d->intent != "continue" && d->intent != "resume")) {
      return CheckResult::Fail(rule, "a RUN_DIRECTIVE is not the exact §5.1 shell",
                               {"the §5.1 shell", text, where});
    }
  }
  const auto first = ParseRunDirective(texts.front().second);
  const std::string intent = scenario.input.value("intent", "start");
  if (first->intent != intent) {
    return CheckResult::Fail(rule, "the first RUN_DIRECTIVE has another intent",
                             {intent, first->intent, texts.front().first});
  }
  return CheckResult::Pass(rule,
                           Format("{} RUN_DIRECTIVE messages, each the exact shell", texts.size()));
}

// TC-5.2-1: each NODE_BRIEF is the exact §5.2 shell.
CheckResult CheckNodeBrief(const std::string& rule, const Context& c) {
  const bool chat = IsChatMode(c.scenario);
  const std::vector<SentRequest>& requests = c.requests;
  if (chat) return CheckResult::Skip(rule, "mode=chat sends no NODE_BRIEF");
  const auto texts = UserTexts(requests, "NODE_BRIEF");
  if (texts.empty())
    return CheckResult::Fail(rule, "no NODE_BRIEF was sent",
                             {"a NODE_BRIEF user message", "none", "journal"});
  for (const auto& [where, text] : texts) {
    if (!IsExactNodeBrief(text))
      return CheckResult::Fail(rule, "a NODE_BRIEF is not the exact §5.2 shell",
                               {"the §5.2 shell", text, where});
  }
  return CheckResult::Pass(rule,
                           Format("{} NODE_BRIEF messages, each the exact shell", texts.size()));
}

// TC-5.3-1: each user input is sent in the §5.3 shell.
CheckResult CheckUserInput(const std::string& rule, const Context& c) {
  const Scenario& scenario = c.scenario;
  const bool chat = IsChatMode(c.scenario);
  const std::vector<SentRequest>& requests = c.requests;
  const Json inputs = scenario.input.value("userInputs", Json::array());
  if (inputs.empty()) return CheckResult::Skip(rule, "the scenario gives no user input");
  const auto texts = UserTexts(requests, "USER_INPUT\n");
  for (const auto& in : inputs) {
    const std::string raw = in.get<std::string>();
    const bool found = std::any_of(texts.begin(), texts.end(), [&](const auto& t) {
      if (chat) return t.second == "USER_INPUT\n" + raw;
      const auto lines = Lines(t.second);
      return lines.size() >= 2 && lines[1].starts_with("- forNodeId: ") &&
             !lines[1].substr(13).empty() &&
             t.second == tc::ComposeUserInput(raw, lines[1].substr(13));
    });
    if (!found) {
      return CheckResult::Fail(
          rule, Format("the user input \"{}\" was not sent in the §5.3 shell", raw),
          {chat ? "USER_INPUT\\n<text>" : "USER_INPUT\\n- forNodeId: <node>\\n<text>",
           texts.empty() ? "none" : texts.back().second, "journal"});
    }
  }
  return CheckResult::Pass(rule, Format("{} user inputs sent in the exact shell", inputs.size()));
}

// TC-3.1-2: mode=chat sends the chat rules, the tool policy and the tools, no directives.
CheckResult CheckChatMode(const std::string& rule, const Context& c) {
  const bool chat = IsChatMode(c.scenario);
  const std::vector<SentRequest>& requests = c.requests;
  if (!chat) return CheckResult::Skip(rule, "the scenario runs in mode=run");
  for (const auto& r : requests) {
    const Json& ms = r.messages();
    std::size_t systems = 0;
    bool policy = false;
    for (const auto& m : ms) {
      const std::string content = StringOf(m, "content");
      if (StringOf(m, "role") == "system") {
        ++systems;
        policy = policy || content.starts_with("Tool policy:");
      }
      if (content.starts_with("RUN_DIRECTIVE") || content.starts_with("NODE_BRIEF")) {
        return CheckResult::Fail(rule, "mode=chat sent a RUN_DIRECTIVE or NODE_BRIEF",
                                 {"none", content.substr(0, 40), r.MessagesWhere()});
      }
    }
    if (systems != 2 || !policy || !r.body().contains("tools")) {
      return CheckResult::Fail(
          rule, "mode=chat must send the chat rules and the tool policy only, and the tools",
          {"2 system messages, one the tool policy", Format("{} system messages", systems),
           r.MessagesWhere()});
    }
  }
  return CheckResult::Pass(rule, "no directives, no persona; tool policy and tools sent");
}

// TC-1-2: the audit log holds one line per tool call, in order, with every
// field. The calls are those answered on the wire (the journal), not the
// ones the client says it ran.
CheckResult CheckAuditLog(const std::string& rule, const Context& c) {
  const Json& outputs = c.obs.outputs;
  const Json& audit = ArrayOf(outputs, "audit");
  std::vector<std::string> ids;
  for (const auto& call : AnsweredCalls(c.requests)) ids.push_back(call.id);
  if (audit.size() != ids.size()) {
    return CheckResult::Fail(
        rule, "the audit log does not hold one line per tool call answered on the wire",
        {Format("{} lines", ids.size()), Format("{} lines", audit.size()), "outputs/audit"});
  }
  for (std::size_t i = 0; i < audit.size(); ++i) {
    for (const char* key : {"time", "toolCallId", "tool", "args", "ok", "errorCode", "durationMs",
                            "sha256Before", "sha256After"}) {
      if (!audit[i].contains(key))
        return CheckResult::Fail(rule, Format("audit line {} has no {}", i + 1, key),
                                 {key, audit[i].dump(), Format("outputs/audit/{}", i)});
    }
    if (audit[i]["toolCallId"] != ids[i]) {
      return CheckResult::Fail(
          rule, "the audit log is not in the order of the tool calls",
          {ids[i], DumpJson(audit[i]["toolCallId"]), Format("outputs/audit/{}", i)});
    }
  }
  return CheckResult::Pass(rule,
                           Format("{} audit lines, one per tool call, in order", audit.size()));
}

// TC-1-1: a resumed run starts from the state document alone, at its node.
CheckResult CheckResume(const std::string& rule, const Context& c) {
  const Json& expect = c.scenario.expect;
  const std::vector<SentRequest>& requests = c.requests;
  if (requests.empty()) {
    return CheckResult::Fail(rule, "the resumed run sent no request",
                             {"a request with a RUN_DIRECTIVE", "none", "journal"});
  }
  const auto texts = UserTexts({requests.front()}, "RUN_DIRECTIVE");
  const auto d = texts.empty() ? std::nullopt : ParseRunDirective(texts.front().second);
  if (!d || d->intent != "resume") {
    return CheckResult::Fail(
        rule, "the first request of a resumed run has no RUN_DIRECTIVE with intent resume",
        {"intent: resume", texts.empty() ? "none" : texts.front().second,
         requests.front().MessagesWhere()});
  }
  const std::string node = expect.value("resumeNode", "");
  if (d->current_node_id != node) {
    return CheckResult::Fail(rule, "the resumed run does not start at the state's node",
                             {node, d->current_node_id, texts.front().first});
  }
  for (const auto& m : requests.front().messages()) {
    const std::string role = StringOf(m, "role");
    if (role == "assistant" || role == "tool") {
      return CheckResult::Fail(rule, "the resumed run carries earlier conversation",
                               {"no assistant or tool messages", DumpJson(m).substr(0, 80),
                                requests.front().MessagesWhere()});
    }
  }
  return CheckResult::Pass(rule, Format("resumed at {} from the state document alone", node));
}

// TC-2.2-1: the state document ends where the scenario expects, artifacts written.
CheckResult CheckStateDocument(const std::string& rule, const Context& c) {
  const Json& outputs = c.obs.outputs;
  const Json& expect = c.scenario.expect;
  const Json& state = MemberOf(outputs, "state");
  if (!state.is_object())
    return CheckResult::Fail(rule, "the run left no state document",
                             {"@state/workflow.md", "none", "outputs/state"});
  if (expect.contains("finalNode") && state.value("currentNodeId", Json()) != expect["finalNode"]) {
    return CheckResult::Fail(
        rule, "the state ended at another node",
        {expect["finalNode"].dump(), state.value("currentNodeId", Json()).dump(),
         "outputs/state/currentNodeId"});
  }
  if (expect.contains("stepsCompleted") &&
      state.value("stepsCompleted", Json()) != expect["stepsCompleted"]) {
    return CheckResult::Fail(
        rule, "stepsCompleted differs",
        {expect["stepsCompleted"].dump(), state.value("stepsCompleted", Json()).dump(),
         "outputs/state/stepsCompleted"});
  }
  const Json& files = ArrayOf(outputs, "projectFiles");
  for (const auto& a : expect.value("artifacts", Json::array())) {
    if (std::find(files.begin(), files.end(), a) == files.end()) {
      return CheckResult::Fail(rule,
                               Format("the artifact {} was not written", a.get<std::string>()),
                               {a.get<std::string>(), "absent", "outputs/projectFiles"});
    }
  }
  return CheckResult::Pass(
      rule, Format("the state reached {} with {} steps completed", StringOf(state, "currentNodeId"),
                   ArrayOf(state, "stepsCompleted").size()));
}

constexpr std::array<RuleCheck<Context>, 21> kRules = {{
    {"TC-1-1", &CheckResume},
    {"TC-1-2", &CheckAuditLog},
    {"TC-2.2-1", &CheckStateDocument},
    {"TC-3.1-1", &CheckConversation},
    {"TC-3.1-2", &CheckChatMode},
    {"TC-3.2-1", &CheckConversation},
    {"TC-3.2-2", &CheckConversation},
    {"TC-3.2-3", &CheckConversation},
    {"TC-3.2-4", &CheckConversation},
    {"TC-4.1-1", &CheckConversation},
    {"TC-4.1-2", &CheckConversation},
    {"TC-4.1-3", &CheckToolsDeclared},
    {"TC-4.1-4", &CheckConversation},
    {"TC-4.1-5", &CheckConversation},
    {"TC-4.2-1", &CheckEngineTurns},
    {"TC-4.2-2", &CheckPhase},
    {"TC-5.1-1", &CheckRunDirective},
    {"TC-5.2-1", &CheckNodeBrief},
    {"TC-5.3-1", &CheckUserInput},
    {"TC-7-1", &CheckLoop},
    {"TC-8-1", &CheckReasoningSentBack},
}};

}  // namespace

std::span<const RuleCheck<Context>> RunRules() { return kRules; }

std::span<const RuleCheck<Context>> Rules() {
  static const std::vector<RuleCheck<Context>> rules = JoinRuleTables({RunRules(), ToolRules()});
  return rules;
}

}  // namespace llmconform::harness::toolcalls_suite

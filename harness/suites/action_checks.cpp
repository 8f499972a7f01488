#include "harness/suites/action_checks.h"

#include <algorithm>
#include <array>
#include <optional>

#include "base/format.h"
#include "base/json_read.h"
#include "harness/requests_sent.h"
#include "protocols/action/json_spelling.h"
#include "protocols/action/mcp_payload.h"

namespace llmconform::harness::action_suite {
namespace {

using reports::CheckResult;

// A JSON value for evidence: compact, "(absent)" for a missing one.
std::string Show(const Json* j) { return j ? DumpJson(*j) : "(absent)"; }

const Json* Member(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

bool IsNullOrAbsent(const Json* j) { return !j || j->is_null(); }

// The rule ids `expect.findings` says the reply breaks.
std::vector<std::string> ExpectedFindings(const Scenario& s) {
  std::vector<std::string> ids;
  if (const Json* list = Member(s.expect, "findings"); list && list->is_array()) {
    for (const auto& id : *list) {
      if (id.is_string()) ids.push_back(id.get<std::string>());
    }
  }
  return ids;
}

// Fails unless outputs.text is expect.text exactly; nullopt when it is.
std::optional<CheckResult> CompareText(const std::string& rule, const Context& c) {
  const Json* want = Member(c.scenario.expect, "text");
  if (!want || !want->is_string())
    return CheckResult::Error(rule, "expect.text is missing or not a string");
  const Json* got = Member(c.obs.outputs, "text");
  if (!got) return CheckResult::Skip(rule, "the implementation reported no text (outputs/text)");
  if (!got->is_string()) {
    return CheckResult::Fail(rule, "the text for speech is not a string",
                             {want->dump(), Show(got), "outputs/text"});
  }
  if (*got != *want) {
    return CheckResult::Fail(rule, "the text for speech differs from the reply's text as written",
                             {want->dump(), Show(got), "outputs/text"});
  }
  return std::nullopt;
}

// Fails if a command or a payload was sent; nullopt when none was.
std::optional<CheckResult> NoCommandSent(const std::string& rule, const Context& c) {
  const Json* command = Member(c.obs.outputs, "command");
  const Json* payload = Member(c.obs.outputs, "mcpPayload");
  if (!IsNullOrAbsent(command)) {
    return CheckResult::Fail(rule, "a command was kept though none should be",
                             {"null", Show(command), "outputs/command"});
  }
  if (!IsNullOrAbsent(payload)) {
    return CheckResult::Fail(rule, "an __MCP__ payload was sent though no command should be kept",
                             {"null", Show(payload), "outputs/mcpPayload"});
  }
  return std::nullopt;
}

// ACT-1 … ACT-8: a finding for the rule exactly when the reply breaks it.
CheckResult ReplyRule(const std::string& rule, const Context& c) {
  const Json* findings = Member(c.obs.outputs, "findings");
  if (!findings || !findings->is_array()) {
    return CheckResult::Skip(rule, "the implementation reported no findings (outputs/findings)");
  }
  const auto expected = ExpectedFindings(c.scenario);
  const bool broken = std::find(expected.begin(), expected.end(), rule) != expected.end();
  std::optional<std::size_t> reported;
  for (std::size_t i = 0; i < findings->size() && !reported; ++i) {
    const Json* id = Member((*findings)[i], "rule");
    if (id && *id == rule) reported = i;
  }
  if (broken && reported) {
    const Json* message = Member((*findings)[*reported], "message");
    return CheckResult::Pass(
        rule, Format("the reply breaks {} and it was reported: {}", rule,
                     message && message->is_string() ? message->get<std::string>() : ""));
  }
  if (!broken && !reported)
    return CheckResult::Pass(rule, Format("the reply meets {}; nothing was reported", rule));
  if (broken) {
    return CheckResult::Fail(
        rule, Format("the reply breaks {} but no finding reports it", rule),
        {Format("a finding with rule {}", rule), Show(findings), "outputs/findings"});
  }
  return CheckResult::Fail(rule, Format("a finding reports {} though the reply meets it", rule),
                           {Format("no finding with rule {}", rule), Show(&(*findings)[*reported]),
                            Format("outputs/findings/{}", *reported)});
}

// ACT-9, ACT-10: a plain answer: its text and no command.
CheckResult TextOnly(const std::string& rule, const Context& c) {
  if (!IsNullOrAbsent(Member(c.scenario.expect, "command"))) {
    return CheckResult::Error(rule,
                              Format("{} is listed, but the scenario expects a command", rule));
  }
  if (auto text = CompareText(rule, c)) return *text;
  if (auto none = NoCommandSent(rule, c)) return *none;
  return CheckResult::Pass(rule, "a plain answer: the text as written, and no command");
}

// ACT-11: the text for speech, byte for byte.
CheckResult TextAsWritten(const std::string& rule, const Context& c) {
  if (auto text = CompareText(rule, c)) return *text;
  return CheckResult::Pass(
      rule, Format("the text for speech is {} as written", Show(Member(c.obs.outputs, "text"))));
}

// ACT-12: an incomplete or unsupported command reaches no one, and why is said.
CheckResult Dropped(const std::string& rule, const Context& c) {
  if (!IsNullOrAbsent(Member(c.scenario.expect, "command"))) {
    return CheckResult::Error(rule,
                              Format("{} is listed, but the scenario expects a command", rule));
  }
  if (auto none = NoCommandSent(rule, c)) return *none;
  if (auto text = CompareText(rule, c)) return *text;
  const auto expected = ExpectedFindings(c.scenario);
  const Json* findings = Member(c.obs.outputs, "findings");
  if (findings && findings->is_array()) {
    for (const auto& f : *findings) {
      const Json* id = Member(f, "rule");
      if (id && id->is_string() &&
          std::find(expected.begin(), expected.end(), id->get<std::string>()) != expected.end()) {
        const Json* message = Member(f, "message");
        return CheckResult::Pass(
            rule, Format("the command was ignored, the text alone delivered, and the reason "
                         "reported: {}",
                         message && message->is_string() ? message->get<std::string>() : ""));
      }
    }
  }
  std::string want;
  for (const auto& id : expected) want += (want.empty() ? "" : " or ") + id;
  return CheckResult::Fail(
      rule, "the command was ignored, but no finding says why",
      {Format("a finding with rule {}", want.empty() ? "(none expected?)" : want), Show(findings),
       "outputs/findings"});
}

// ACT-13: the command carries the request's session id (the reply's only without one).
CheckResult SessionId(const std::string& rule, const Context& c) {
  const Json* want_command = Member(c.scenario.expect, "command");
  if (IsNullOrAbsent(want_command))
    return CheckResult::Skip(rule, "no command is expected, so no session id is sent");
  const Json* want = Member(*want_command, "session_id");
  const Json* request_id = Member(c.scenario.input, "sessionId");
  if (!want || !want->is_string())
    return CheckResult::Error(rule, "expect.command has no string session_id");
  if (request_id && request_id->is_string() && !request_id->get<std::string>().empty() &&
      *request_id != *want) {
    return CheckResult::Error(rule,
                              "expect.command.session_id differs from input.sessionId: the "
                              "scenario contradicts ACT-13");
  }
  const Json* command = Member(c.obs.outputs, "command");
  if (!command)
    return CheckResult::Skip(rule, "the implementation reported no command (outputs/command)");
  const Json* got = Member(*command, "session_id");
  if (!got || *got != *want) {
    return CheckResult::Fail(rule, "the command does not carry the expected session id",
                             {want->dump(), Show(got), "outputs/command/session_id"});
  }
  if (const Json* payload = Member(c.obs.outputs, "mcpPayload"); payload && payload->is_string()) {
    auto sent = action::ParseMcpPayload(payload->get<std::string>());
    if (sent && sent->session_id != want->get<std::string>()) {
      return CheckResult::Fail(rule, "the __MCP__ payload does not carry the expected session id",
                               {want->dump(), Show(payload), "outputs/mcpPayload"});
    }
  }
  return CheckResult::Pass(
      rule, Format("the command carries session id {}{}", want->dump(),
                   request_id && request_id->is_string() && !request_id->get<std::string>().empty()
                       ? " (the request's)"
                       : " (the reply's; the request has none)"));
}

// ACT-14: the __MCP__ payload, when a command is kept, and nothing otherwise.
CheckResult Payload(const std::string& rule, const Context& c) {
  if (!c.obs.outputs.contains("text"))
    return CheckResult::Skip(rule, "the implementation reported no outputs");
  const Json* want = Member(c.scenario.expect, "mcpPayload");
  const Json* got = Member(c.obs.outputs, "mcpPayload");
  if (IsNullOrAbsent(want)) {
    if (IsNullOrAbsent(got))
      return CheckResult::Pass(rule, "no command is kept, and no __MCP__ payload is sent");
    return CheckResult::Fail(rule, "an __MCP__ payload was sent though no command should be kept",
                             {"null", Show(got), "outputs/mcpPayload"});
  }
  if (!want->is_string())
    return CheckResult::Error(rule, "expect.mcpPayload is neither a string nor null");
  auto want_command = action::ParseMcpPayload(want->get<std::string>());
  if (!want_command)
    return CheckResult::Error(rule, Format("expect.mcpPayload: {}", want_command.error().message));
  if (!got || !got->is_string()) {
    return CheckResult::Fail(rule, "no __MCP__ payload was sent",
                             {want->get<std::string>(), Show(got), "outputs/mcpPayload"});
  }
  auto got_command = action::ParseMcpPayload(got->get<std::string>());
  if (!got_command) {
    return CheckResult::Fail(
        rule, got_command.error().message,
        {want->get<std::string>(), got->get<std::string>(), "outputs/mcpPayload"});
  }
  // Compared as JSON values: the layout of the JSON is free, its content is
  // not, and numbers in args keep their spelling.
  if (got_command->session_id != want_command->session_id ||
      got_command->command != want_command->command ||
      !action::SameJsonSpelling(got_command->args_json, want_command->args_json)) {
    return CheckResult::Fail(
        rule, "the __MCP__ payload differs from the expected one",
        {want->get<std::string>(), got->get<std::string>(), "outputs/mcpPayload"});
  }
  return CheckResult::Pass(rule, Format("the client receives {}", got->get<std::string>()));
}

// ACT-15: the request carries the session id, so that the model can return it.
CheckResult RequestCarriesSessionId(const std::string& rule, const Context& c) {
  const Json* id = Member(c.scenario.input, "sessionId");
  if (!id || !id->is_string() || id->get<std::string>().empty()) {
    return CheckResult::Skip(rule, "the scenario's request has no session id");
  }
  const Json* body = nullptr;
  std::string where;
  const std::vector<SentRequest> requests = ReadRequestsSent(c.obs.journal);
  if (!requests.empty()) {
    body = &requests.front().body();
    where = requests.front().MessagesWhere();
  } else {
    body = Member(c.obs.outputs, "request");
    where = "outputs/request/messages";
  }
  const Json* messages = body ? Member(*body, "messages") : nullptr;
  if (!messages || !messages->is_array()) {
    return CheckResult::Fail(rule, "no request messages were observed",
                             {"a messages array", Show(body), where});
  }
  const std::string& session_id = id->get_ref<const std::string&>();
  for (std::size_t i = 0; i < messages->size(); ++i) {
    const Json* content = Member((*messages)[i], "content");
    if (content && content->is_string() &&
        content->get_ref<const std::string&>().find(session_id) != std::string::npos) {
      return CheckResult::Pass(rule,
                               Format("{}/{} carries the session id {}", where, i, id->dump()));
    }
  }
  return CheckResult::Fail(rule, "no message of the request carries the session id",
                           {Format("a message containing {}", id->dump()), Show(messages), where});
}

constexpr std::array<RuleCheck<Context>, 15> kRules = {{
    {"ACT-1", &ReplyRule},
    {"ACT-2", &ReplyRule},
    {"ACT-3", &ReplyRule},
    {"ACT-4", &ReplyRule},
    {"ACT-5", &ReplyRule},
    {"ACT-6", &ReplyRule},
    {"ACT-7", &ReplyRule},
    {"ACT-8", &ReplyRule},
    {"ACT-9", &TextOnly},
    {"ACT-10", &TextOnly},
    {"ACT-11", &TextAsWritten},
    {"ACT-12", &Dropped},
    {"ACT-13", &SessionId},
    {"ACT-14", &Payload},
    {"ACT-15", &RequestCarriesSessionId},
}};

}  // namespace

std::span<const RuleCheck<Context>> Rules() { return kRules; }

}  // namespace llmconform::harness::action_suite

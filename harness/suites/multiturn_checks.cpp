#include "harness/suites/multiturn_checks.h"

#include <algorithm>
#include <array>
#include <optional>

#include "base/format.h"
#include "base/json_fields.h"
#include "harness/requests_sent.h"

namespace llmconform::harness::multiturn_suite {
namespace {

using multiturn::Message;
using reports::CheckResult;

std::string Show(const std::vector<Message>& ms) { return ToJson(ms).dump(); }

// A failure when no messages array was observed; nullopt when one was.
std::optional<CheckResult> NoMessages(const std::string& rule, const Context& c) {
  if (c.sent.problem.empty()) return std::nullopt;
  return CheckResult::Fail(rule, c.sent.problem, {"a messages array", "nothing", c.sent.where});
}

std::int64_t FixedTokens(const multiturn::BuildArgs& args) {
  return multiturn::EstimateMessageTokens(args.system_prompt) +
         multiturn::EstimateMessageTokens(args.current_user_message);
}

// REQ-AIS-MULTITURN-1: [system, ...history, currentUser]: system first, user
// last, history roles in between.
CheckResult CheckOrder(const std::string& rule, const Context& c) {
  if (auto no = NoMessages(rule, c)) return *no;
  const auto& ms = c.sent.messages;
  bool ok = ms.size() >= 2 && ms.front().role == "system" && ms.back().role == "user";
  for (std::size_t i = 1; ok && i + 1 < ms.size(); ++i)
    ok = ms[i].role == "user" || ms[i].role == "assistant";
  if (ok)
    return CheckResult::Pass(
        rule, Format("{} messages in the order [system, ...history, user]", ms.size()));
  return CheckResult::Fail(rule,
                           "the messages are not in the order [system, ...history, currentUser]",
                           {"[system, ...history, user]", Show(ms), c.sent.where});
}

// REQ-AIS-MULTITURN-2: the system prompt first, unchanged.
CheckResult CheckSystemFirst(const std::string& rule, const Context& c) {
  if (auto no = NoMessages(rule, c)) return *no;
  const auto& ms = c.sent.messages;
  if (!ms.empty() && ms.front().role == "system" && ms.front().content == c.args.system_prompt) {
    return CheckResult::Pass(rule, "the system prompt is the first message, unchanged");
  }
  return CheckResult::Fail(rule, "the system prompt is not the first message as given",
                           {Show({{"system", c.args.system_prompt}}),
                            ms.empty() ? "[]" : Show({ms.front()}), c.sent.where + "/0"});
}

// REQ-AIS-MULTITURN-3: the current user message last, unchanged.
CheckResult CheckCurrentLast(const std::string& rule, const Context& c) {
  if (auto no = NoMessages(rule, c)) return *no;
  const auto& ms = c.sent.messages;
  if (!ms.empty() && ms.back().role == "user" && ms.back().content == c.args.current_user_message) {
    return CheckResult::Pass(rule, "the current user message is the last message, unchanged");
  }
  return CheckResult::Fail(
      rule, "the current user message is not the last message as given",
      {Show({{"user", c.args.current_user_message}}), ms.empty() ? "[]" : Show({ms.back()}),
       Format("{}/{}", c.sent.where, ms.empty() ? 0 : ms.size() - 1)});
}

// The kept history: the newest run of the given history; nullopt when it is
// one, else the failure. `kept` and `total` (tokens of all kept messages) are
// set either way.
std::optional<CheckResult> NotASuffix(const std::string& rule, const Context& c, std::size_t& kept,
                                      std::int64_t& total) {
  const auto& ms = c.sent.messages;
  const auto& history = c.args.history;
  kept = ms.size() >= 2 ? ms.size() - 2 : 0;
  bool suffix = kept <= history.size();
  for (std::size_t i = 0; suffix && i < kept; ++i)
    suffix = ms[1 + i] == history[history.size() - kept + i];
  if (!suffix) {
    return CheckResult::Fail(
        rule, "the kept history is not the newest contiguous run of the given history",
        {"a suffix of input.history", Show(std::vector<Message>(ms.begin() + 1, ms.end() - 1)),
         c.sent.where});
  }
  total = FixedTokens(c.args);
  for (std::size_t i = 0; i < kept; ++i)
    total += multiturn::EstimateMessageTokens(ms[1 + i].content);
  return std::nullopt;
}

// REQ-AIS-MULTITURN-4: the newest history that fits the budget, and no more.
CheckResult CheckTrimming(const std::string& rule, const Context& c) {
  if (auto no = NoMessages(rule, c)) return *no;
  std::size_t kept = 0;
  std::int64_t total = 0;
  if (auto bad = NotASuffix(rule, c, kept, total)) return *bad;
  const auto& history = c.args.history;
  const std::int64_t budget = c.args.max_token_budget;
  if (kept > 0 && total > budget) {
    return CheckResult::Fail(
        rule, Format("the kept messages total {} tokens, over the budget of {}", total, budget),
        {Format("<= {} tokens", budget), Format("{} tokens", total), c.sent.where});
  }
  if (kept < history.size() &&
      total + multiturn::EstimateMessageTokens(history[history.size() - kept - 1].content) <=
          budget) {
    return CheckResult::Fail(rule, "a history message that fits the budget was trimmed",
                             {Format("{} history messages", kept + 1),
                              Format("{} history messages", kept), c.sent.where});
  }
  return CheckResult::Pass(
      rule, Format("kept the newest {} of {} history messages ({} of {} tokens)", kept,
                   history.size(), total, budget));
}

// REQ-AIS-MULTITURN-5: system + current over the budget: both kept, all history dropped.
CheckResult CheckForcedCase(const std::string& rule, const Context& c) {
  if (auto no = NoMessages(rule, c)) return *no;
  std::size_t kept = 0;
  std::int64_t total = 0;
  if (auto bad = NotASuffix(rule, c, kept, total)) return *bad;
  const std::int64_t fixed = FixedTokens(c.args);
  const std::int64_t budget = c.args.max_token_budget;
  if (fixed <= budget) {
    return CheckResult::Skip(
        rule, Format("system + current take {} of {} tokens: the forced case does not arise", fixed,
                     budget));
  }
  if (kept == 0) {
    return CheckResult::Pass(
        rule, Format("system + current take {} > {} tokens: both kept, all history dropped", fixed,
                     budget));
  }
  return CheckResult::Fail(rule, "system + current exceed the budget, yet history was kept",
                           {"no history", Format("{} history messages", kept), c.sent.where});
}

// REQ-AIS-MULTITURN-6: estimateMessageTokens against the scenario's expected estimates.
CheckResult CheckTokens(const std::string& rule, const Context& c) {
  const Json& expect = c.scenario.expect;
  if (!expect.contains("tokens") || !expect["tokens"].is_object()) {
    return CheckResult::Skip(rule, "the scenario states no token estimates");
  }
  for (const auto& [text, want] : expect["tokens"].items()) {
    const std::int64_t got = multiturn::EstimateMessageTokens(text);
    if (!want.is_number_integer() || got != want.get<std::int64_t>()) {
      return CheckResult::Fail(
          rule, Format("estimateMessageTokens(\"{}\") is {}", text, got),
          {want.dump(), std::to_string(got), Format("expect/tokens/{}", text)});
    }
  }
  return CheckResult::Pass(rule,
                           Format("{} token estimates match the formula", expect["tokens"].size()));
}

// REQ-AIS-MULTITURN-7: roles are system, user or assistant.
CheckResult CheckRoles(const std::string& rule, const Context& c) {
  if (auto no = NoMessages(rule, c)) return *no;
  const auto& ms = c.sent.messages;
  const bool ok = std::all_of(ms.begin(), ms.end(), [](const Message& m) {
    return m.role == "system" || m.role == "user" || m.role == "assistant";
  });
  if (ok) return CheckResult::Pass(rule, "every role is system, user or assistant");
  return CheckResult::Fail(rule, "a message has a role other than system, user or assistant",
                           {"system | user | assistant", Show(ms), c.sent.where});
}

// REQ-AIS-MULTITURN-8: the request carries exactly buildLLMMessages' result.
CheckResult CheckBuildResult(const std::string& rule, const Context& c) {
  if (auto no = NoMessages(rule, c)) return *no;
  auto want = multiturn::BuildLLMMessages(c.args);
  if (!want) return CheckResult::Error(rule, want.error().message);
  const std::vector<Message> want_messages = multiturn::ToMessages(*want);
  if (want_messages == c.sent.messages)
    return CheckResult::Pass(rule, "the request carries exactly buildLLMMessages' result");
  return CheckResult::Fail(rule,
                           "the request does not carry buildLLMMessages' result for this input",
                           {Show(want_messages), Show(c.sent.messages), c.sent.where});
}

// REQ-AIS-MULTITURN: the messages sent are the scenario's expected messages.
CheckResult CheckExpectedMessages(const std::string& rule, const Context& c) {
  if (auto no = NoMessages(rule, c)) return *no;
  if (!c.scenario.expect.contains("messages")) {
    return CheckResult::Skip(rule, "the scenario states no exact expected messages");
  }
  const Json want = c.scenario.expect["messages"];
  const Json got = ToJson(c.sent.messages);
  if (want == got)
    return CheckResult::Pass(
        rule, Format("the {} messages sent are exactly as specified", c.sent.messages.size()));
  return CheckResult::Fail(rule, "the messages sent differ from the scenario's expected messages",
                           {want.dump(), got.dump(), c.sent.where});
}

// MULTITURN-USAGE: the reply's token usage is read as the provider sent it.
CheckResult CheckUsage(const std::string& rule, const Context& c) {
  if (!c.scenario.expect.contains("usage"))
    return CheckResult::Skip(rule, "the scenario states no usage");
  if (!c.obs.outputs.contains("usage"))
    return CheckResult::Skip(rule, "the client received no reply");
  const Json& want = c.scenario.expect["usage"];
  const Json& got = c.obs.outputs["usage"];
  const bool same = want.is_object() && got.is_object() &&
                    std::all_of(want.items().begin(), want.items().end(), [&](const auto& item) {
                      return got.contains(item.key()) && got[item.key()] == item.value();
                    });
  if (!same) {
    return CheckResult::Fail(rule, "the usage read is not the one the provider sent",
                             {want.dump(), got.dump(), "outputs/usage"});
  }
  return CheckResult::Pass(rule, Format("the reply's usage was read: {}", want.dump()));
}

constexpr std::array<RuleCheck<Context>, 10> kRules = {{
    {"REQ-AIS-MULTITURN", &CheckExpectedMessages},
    {"REQ-AIS-MULTITURN-1", &CheckOrder},
    {"REQ-AIS-MULTITURN-2", &CheckSystemFirst},
    {"REQ-AIS-MULTITURN-3", &CheckCurrentLast},
    {"REQ-AIS-MULTITURN-4", &CheckTrimming},
    {"REQ-AIS-MULTITURN-5", &CheckForcedCase},
    {"REQ-AIS-MULTITURN-6", &CheckTokens},
    {"REQ-AIS-MULTITURN-7", &CheckRoles},
    {"REQ-AIS-MULTITURN-8", &CheckBuildResult},
    {"MULTITURN-USAGE", &CheckUsage},
}};

}  // namespace

Json ToJson(const std::vector<Message>& messages) {
  Json out = Json::array();
  for (const auto& m : messages) out.push_back({{"role", m.role}, {"content", m.content}});
  return out;
}

Sent MessagesSent(const Observation& obs) {
  Sent sent;
  const Json* list = nullptr;
  const std::vector<SentRequest> requests = ReadRequestsSent(obs.journal);
  if (!requests.empty()) {
    sent.where = requests.front().MessagesWhere();
    list = &requests.front().messages();
  } else {
    sent.where = "outputs/messages";
    if (obs.outputs.contains("messages")) list = &obs.outputs["messages"];
  }
  if (!list || !list->is_array()) {
    sent.problem = Format("no messages array at {}", sent.where);
    return sent;
  }
  for (const auto& m : *list)
    sent.messages.push_back({StringOf(m, "role"), StringOf(m, "content")});
  return sent;
}

std::span<const RuleCheck<Context>> Rules() { return kRules; }

}  // namespace llmconform::harness::multiturn_suite

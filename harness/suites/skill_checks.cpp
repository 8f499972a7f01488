#include "harness/suites/skill_checks.h"

#include <vector>

#include "base/format.h"
#include "base/json_fields.h"
#include "base/json_read.h"

namespace llmconform::harness::skill_suite {

std::span<const RuleCheck<Context>> Rules() {
  static const std::vector<RuleCheck<Context>> rules =
      JoinRuleTables({RequestRules(), ReplyRules()});
  return rules;
}

CheckResult NoRequests(const std::string& rule) {
  return CheckResult::Fail(rule, "no request reached mockllm",
                           {"at least one request", "none", "journal"});
}

bool HasLaterTurn(const Context& c, std::size_t k) { return k + 1 < c.turns().size(); }

const sk::Message* NextUserMessage(const Context& c, std::size_t k) {
  return HasLaterTurn(c, k) ? c.turns()[k + 1].LastUser() : nullptr;
}

std::optional<CheckResult> WrongEnd(const std::string& rule, const Context& c,
                                    std::string_view reason, std::string_view message_contains) {
  if (!c.has_outputs()) return std::nullopt;
  const Json& end = c.obs.outputs.value("end", Json::object());
  const std::string got_reason = end.is_object() ? StringOf(end, "reason") : "";
  const std::string got_message = end.is_object() ? StringOf(end, "message") : "";
  if (got_reason != reason || got_message.find(message_contains) == std::string::npos) {
    return CheckResult::Fail(rule, "the session did not end as the protocol says",
                             {Format("{{\"reason\":\"{}\", a message containing {}}}", reason,
                                     QuoteJson(message_contains)),
                              end.dump(), "outputs/end"});
  }
  // And as the scenario says, where it says so.
  const Json want = c.scenario.expect.value("end", Json::object());
  const bool same = (!want.contains("reason") || want["reason"] == got_reason) &&
                    (!want.contains("message") || want["message"] == got_message) &&
                    (!want.contains("messageContains") ||
                     got_message.find(want.value("messageContains", "")) != std::string::npos);
  if (!same) {
    return CheckResult::Fail(rule, "the session's end differs from the scenario's",
                             {want.dump(), end.dump(), "outputs/end"});
  }
  return std::nullopt;
}

}  // namespace llmconform::harness::skill_suite

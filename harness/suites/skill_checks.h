// The checks of the skill suite, one per rule of specs/skill/rules.json, in
// one table (harness/suites/rule_table.h): the rules on requests, messages,
// prompts, user messages and steps in skill_request_checks.cpp, the rules on
// cleaning, parsing, replies and states in skill_reply_checks.cpp. They judge
// the conversation that reached the wire (skill_conversation.h) and, where the
// reference's outputs are there, compare them with the scenario's `expect`.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/json_quote.h"
#include "harness/suite.h"
#include "harness/suites/rule_table.h"
#include "harness/suites/skill_conversation.h"
#include "harness/suites/skill_script.h"

namespace llmconform::harness::skill_suite {

using reports::CheckResult;
using reports::Evidence;

struct Context {
  const Scenario& scenario;
  const Script& script;
  const Observation& obs;
  const Conversation& conv;

  const std::vector<Turn>& turns() const { return conv.turns; }
  bool has_outputs() const { return obs.outputs.contains("transcript"); }
  std::int64_t max_steps() const { return script.setup.max_steps; }
};

// The whole table, and its two halves.
std::span<const RuleCheck<Context>> Rules();
std::span<const RuleCheck<Context>> RequestRules();
std::span<const RuleCheck<Context>> ReplyRules();

// ---- shared by the checks

// `s` as a JSON string literal (invalid UTF-8 shown as U+FFFD).
using ::llmconform::QuoteJson;  // base/json_quote.h
// The failure of a rule about requests when there were none.
CheckResult NoRequests(const std::string& rule);
// Whether a turn follows turn `k`.
bool HasLaterTurn(const Context& c, std::size_t k);
// The user message of the request after turn `k`, or nullptr.
const sk::Message* NextUserMessage(const Context& c, std::size_t k);
// When the client's outputs are there: a failure unless the session ended
// for `reason` with a message holding `message_contains`, and as the
// scenario's expect.end says; nullopt otherwise.
std::optional<CheckResult> WrongEnd(const std::string& rule, const Context& c,
                                    std::string_view reason, std::string_view message_contains);

}  // namespace llmconform::harness::skill_suite

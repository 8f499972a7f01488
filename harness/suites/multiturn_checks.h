// The checks of the multiturn suite, one per rule of specs/multiturn/rules.json,
// in one table (harness/suites/rule_table.h). They judge the messages that
// reached the wire (the first request in mockllm's journal) or, without a
// journal, the messages the driver reports in outputs.messages.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "harness/suite.h"
#include "harness/suites/rule_table.h"
#include "protocols/multiturn/multiturn.h"

namespace llmconform::harness::multiturn_suite {

// The messages the client sent, and where they were read.
struct Sent {
  std::vector<multiturn::Message> messages;
  std::string where;    // "journal[0]/request/body/messages" or "outputs/messages"
  std::string problem;  // "" when a messages array was found
};
Sent MessagesSent(const Observation& obs);

struct Context {
  const Scenario& scenario;
  const Observation& obs;
  const multiturn::BuildArgs& args;  // the scenario's input
  const Sent& sent;
};

std::span<const RuleCheck<Context>> Rules();

// Messages as [{role, content}…].
nlohmann::json ToJson(const std::vector<multiturn::Message>& messages);

}  // namespace llmconform::harness::multiturn_suite

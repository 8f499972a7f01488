// The checks of the client profile, one per rule of specs/client/rules.json,
// in one table (harness/suites/rule_table.h). Each compares what the client
// read (its output, docs/gate.md "Client profile") with the reference
// reading of the bytes mockllm sent for the scenario's last request
// (harness/suites/client_reading.h over the journal's "replied",
// harness/replies_sent.h). A field the client's output leaves out is an SDK
// that does not expose it: the rule is skipped with that reason, not failed.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "harness/suite.h"
#include "harness/suites/rule_table.h"

namespace llmconform::harness::client_suite {

struct Context {
  const Scenario& scenario;
  const Observation& obs;
  // The last journal entry that replayed an exchange (null when none): its
  // "replied", "attempt" and "refused" (harness/replies_sent.h).
  const nlohmann::json& entry;
  // ReadReplied of its "replied": what a correct client reads (null: none).
  const nlohmann::json& reference;
};

std::span<const RuleCheck<Context>> Rules();

}  // namespace llmconform::harness::client_suite

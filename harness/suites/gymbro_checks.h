// The checks of the gymbro and thinkingml suites, one table entry per rule
// of specs/gymbro/rules.json and specs/thinkingml/rules.json. Most rules are
// judged by the stream judge (harness/sse_check.h, JudgeStream: every rule of
// StreamRuleIds() on the events, every TML rule on the joined reply), which
// `llmconform sse-check` applies to any service; the suite's own checks below
// judge what only a scenario knows (the upstream's behaviour, the client's
// join and verdict, the POST).
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/suite.h"
#include "protocols/thinkingml/gymbro_events.h"

namespace llmconform::harness::gymbro_suite {

// The scenario's expect (harness/suites/gymbro_suite.h lists its fields).
struct Expect {
  std::optional<gymbro::Termination> outcome;
  std::optional<std::string> error_code;
  std::optional<std::string> reply;
  std::vector<std::string> violations;
  std::optional<std::int64_t> min_heartbeats;
  std::optional<std::int64_t> min_deltas;
};

// Errors name the field: "/expect/outcome: expected \"completed\" or \"error\", got \"x\"".
std::expected<Expect, Error> ReadExpect(const Scenario& s);

struct Context {
  const Observation& obs;
  const Expect& expect;
  const gymbro::EventCheck& events;  // the stream's events as a client reads them
};

struct StreamRule {
  std::string_view rule;
  // The suite's check beside the stream judge's, or nullptr for a rule the
  // stream judge alone decides. nullopt: nothing to add for this scenario.
  std::optional<reports::CheckResult> (*check)(const std::string& rule, const Context& c);
};

// The table of the gymbro suite (GYMBRO-*) and of the thinkingml suite (TML-*).
std::span<const StreamRule> GymbroRules();
std::span<const StreamRule> ThinkingmlRules();

}  // namespace llmconform::harness::gymbro_suite

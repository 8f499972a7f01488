// What `llmconform check` (the differential tester) knows of one oracle
// operation, in one record: its name, the generator of its inputs, the rules
// it is measured against, the rules the reference reports deciding, and what
// decided a disagreement. Each protocol defines its records in one file
// (harness/difftest/ops_<protocol>.cpp); generators.cpp joins them into the
// one table. Internal to the differential tester.
#pragma once

#include <rapidcheck.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "harness/difftest/generators.h"

namespace llmconform::harness::difftest {

struct OpRecord {
  std::string name;  // the oracle op, e.g. "action.parse"
  rc::Gen<nlohmann::json> generator;
  // What `check --coverage` measures the op against: rule ids, or prefixes of
  // them ending in '-' (RulePrefixes in generators.h).
  std::vector<std::string> rules;
  // Adds to `rules` what the reference decided for `input` beyond the
  // findings of its `output` (both objects): the steps it reports taking
  // (skill's CleanTrace, ParseTrace), else what its output's shape shows.
  // Empty when the findings say all.
  std::function<void(const nlohmann::json& input, const nlohmann::json& output,
                     std::set<std::string>& rules)>
      evidenced;
  // What decided a disagreement, as the reference reports it: the sub-rule
  // or step of the reference at the first place `actual` (the SUT's output,
  // any JSON) differs from `expected` (the reference's output for `input`).
  // Unset, or an empty rule: the op's deciding rule (DecidingRule).
  std::function<Decision(const nlohmann::json& input, const nlohmann::json& expected,
                         const nlohmann::json& actual)>
      decide;
};

std::vector<OpRecord> ActionOps();
std::vector<OpRecord> MultiturnOps();
std::vector<OpRecord> SkillOps();
std::vector<OpRecord> ThinkingmlOps();  // thinkingml.* and gymbro.checkEvents
std::vector<OpRecord> WireOps();        // sse.parse, wire.*
std::vector<OpRecord> ToolcallsOps();

}  // namespace llmconform::harness::difftest

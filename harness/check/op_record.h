// What `llmconform check` knows of one oracle operation, in one record: its
// name, the generator of its inputs, the rules it is measured against, and
// the rules an answer's shape evidences. One file a protocol defines its
// records (harness/check/ops_<protocol>.cpp); generators.cpp joins them into
// the one table. Internal to check.
#pragma once

#include <rapidcheck.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace llmconform::harness::check {

struct OpRecord {
  std::string name;  // the oracle op, e.g. "action.parse"
  rc::Gen<nlohmann::json> generator;
  // What `check --coverage` measures the op against: rule ids, or prefixes of
  // them ending in '-' (RulePrefixes in generators.h).
  std::vector<std::string> rules;
  // Adds to `rules` what the reference's `output` for `input` evidences beyond
  // its findings; both are objects. Empty when the findings say all.
  std::function<void(const nlohmann::json& input, const nlohmann::json& output,
                     std::set<std::string>& rules)>
      evidenced;
};

std::vector<OpRecord> ActionOps();
std::vector<OpRecord> MultiturnOps();
std::vector<OpRecord> SkillOps();
std::vector<OpRecord> ThinkingmlOps();  // thinkingml.* and gymbro.checkEvents
std::vector<OpRecord> WireOps();        // sse.parse, wire.*
std::vector<OpRecord> ToolcallsOps();

}  // namespace llmconform::harness::check

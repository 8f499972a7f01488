// Where each rule is decided: for every rule ID of specs/*/rules.json and
// every dialect ID (DIA-*), the functions that decide it and their
// `file:line`, so a rule in a report leads to its code in one step
// (`llmconform list --rules`).
//
// The index is generated when llmconform is built (cmake/rule_deciders.py),
// from the code itself: the entries of the suites' rule tables
// (harness/suites/rule_table.h) and the places in protocols/ and harness/
// that report a rule's ID. It is never written by hand; rule_index_test.cpp
// holds it to every catalogue and to the source files it names.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/scenario.h"

namespace llmconform::harness {

enum class RuleDeciderKind {
  kTable,    // the check a suite's rule table names for the rule
  kReports,  // a function that reports a finding or result with the rule's ID
};

struct RuleDecider {
  std::string_view rule;      // "ACT-1"
  std::string_view function;  // "ReplyRule", "Validator::OnText"
  std::string_view file;      // relative to the repository's root
  int line = 0;               // 1-based: the function's head (kTable), the report (kReports)
  RuleDeciderKind kind = RuleDeciderKind::kTable;
};

// Every entry of the generated index, by rule ID.
std::span<const RuleDecider> RuleDeciderIndex();

// The deciders of `rule`, table entries first. Empty when nothing decides
// the rule.
std::vector<RuleDecider> DecidersOf(std::string_view rule);

// "table" or "reports".
std::string_view RuleDeciderKindName(RuleDeciderKind kind);

// The rule catalogues `rules` (by protocol) with each rule's deciders, then
// the dialect IDs (protocol "wire", severity "dialect", source
// specs/wire/dialects.json), of the protocols `keep` accepts: what
// `llmconform list --rules` prints. As text, a rule is its head line
// ("ID  [severity]  source"), its text, and one line per decider
// ("decided by FUNCTION  FILE:LINE" for a table's check, "reported by …" for a
// report, "… (as WIRE-…)" for a dialect found through an accumulator rule).
// With `json`, the rules are appended to that array instead, each as
// {protocol, id, severity, source, text, deciders: [{function, file, line,
// kind}]}.
void WriteRuleCatalogue(const std::map<std::string, RuleCatalog>& rules,
                        const std::function<bool(std::string_view protocol)>& keep,
                        nlohmann::json* json, std::ostream& out);

}  // namespace llmconform::harness

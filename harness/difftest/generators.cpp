#include "harness/difftest/generators.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/json.h"
#include "harness/difftest/op_record.h"

namespace llmconform::harness::difftest {
namespace {

// Every op's record, by name (harness/difftest/ops_<protocol>.cpp).
const std::map<std::string, OpRecord, std::less<>>& Table() {
  static const auto* table = [] {
    auto* t = new std::map<std::string, OpRecord, std::less<>>();
    for (auto ops :
         {ActionOps(), MultiturnOps(), SkillOps(), ThinkingmlOps(), WireOps(), ToolcallsOps()}) {
      for (OpRecord& r : ops) {
        std::string name = r.name;
        t->emplace(std::move(name), std::move(r));
      }
    }
    return t;
  }();
  return *table;
}

const OpRecord* Find(std::string_view op) {
  const auto& table = Table();
  auto it = table.find(op);
  return it == table.end() ? nullptr : &it->second;
}

}  // namespace

const rc::Gen<Json>* InputGenerator(std::string_view op) {
  const OpRecord* record = Find(op);
  return record ? &record->generator : nullptr;
}

rc::Shrinkable<Json> GenerateCase(const rc::Gen<Json>& gen, std::uint64_t seed, std::size_t index) {
  const int size = static_cast<int>(index % 101);
  rc::Random random(seed);
  random = rc::Random(random.next() ^ (0x9e3779b97f4a7c15ULL * (index + 1)));
  return gen(random, size);
}

std::vector<std::string> GeneratedOps() {
  std::vector<std::string> out;
  for (const auto& [name, record] : Table()) out.push_back(name);
  return out;
}

std::vector<std::string> TriggeredRules(std::string_view op, const Json& input,
                                        const Json& output) {
  std::set<std::string> rules;
  if (output.is_object()) {
    if (auto f = output.find("findings"); f != output.end() && f->is_array()) {
      for (const Json& finding : *f) {
        if (finding.is_object() && finding.contains("rule") && finding["rule"].is_string())
          rules.insert(finding["rule"].get<std::string>());
      }
    }
  }
  const OpRecord* record = Find(op);
  if (record && record->evidenced && output.is_object() && input.is_object())
    record->evidenced(input, output, rules);
  return {rules.begin(), rules.end()};
}

std::vector<std::string> RulePrefixes(std::string_view op) {
  const OpRecord* record = Find(op);
  return record ? record->rules : std::vector<std::string>{};
}

bool IsTrafficRule(std::string_view rule) {
  return rule == "ACT-15" || rule == "REQ-AIS-MULTITURN-8";
}

std::vector<std::string> RulesToCover(std::string_view op,
                                      const std::map<std::string, RuleCatalog>& catalogues) {
  std::vector<std::string> out;
  const auto prefixes = RulePrefixes(op);
  for (const auto& p : prefixes)
    if (!p.ends_with('-')) out.push_back(p);
  for (const auto& [protocol, rules] : catalogues) {
    for (const auto& r : rules) {
      if (IsTrafficRule(r.id)) continue;
      for (const auto& p : prefixes)
        if (p.ends_with('-') && r.id.starts_with(p)) out.push_back(r.id);
    }
  }
  return out;
}

Decision DecidingRule(std::string_view op, const Json& input, const Json& output,
                      const Json& actual) {
  if (const OpRecord* record = Find(op); record && record->decide) {
    Decision d = record->decide(input, output, actual);
    if (!d.rule.empty()) return d;
  }
  if (output.is_object()) {
    if (auto f = output.find("findings"); f != output.end() && f->is_array() && !f->empty()) {
      const Json& first = (*f)[0];
      if (first.is_object() && first.contains("rule") && first["rule"].is_string())
        return {first["rule"].get<std::string>(), ""};
    }
  }
  const auto rules = TriggeredRules(op, input, output);
  // Most specific first: what decided the shape of this answer.
  static const char* const kPreferred[] = {"REQ-AIS-MULTITURN-5",
                                           "REQ-AIS-MULTITURN-4",
                                           "REQ-AIS-MULTITURN-6",
                                           "REQ-AIS-MULTITURN-1",
                                           "ACT-13",
                                           "ACT-14",
                                           "ACT-12",
                                           "ACT-11",
                                           "ACT-10",
                                           "ACT-9",
                                           "SKILL-PARSE-8",
                                           "SKILL-PARSE-7"};
  for (const char* r : kPreferred) {
    if (std::find(rules.begin(), rules.end(), r) != rules.end()) return {r, ""};
  }
  return {rules.empty() ? "" : rules.front(), ""};
}

}  // namespace llmconform::harness::difftest

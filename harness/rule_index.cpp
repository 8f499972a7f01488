#include "harness/rule_index.h"

#include "protocols/wire/dialect.h"

namespace llmconform::harness {

namespace {

constexpr RuleDecider kIndex[] = {
#include "rule_deciders.inc"
};

std::vector<RuleDecider> Direct(std::string_view rule) {
  std::vector<RuleDecider> out;
  for (const RuleDecider& d : kIndex) {
    if (d.rule == rule) out.push_back(d);
  }
  return out;
}

}  // namespace

std::span<const RuleDecider> RuleDeciderIndex() { return kIndex; }

std::vector<RuleDecider> DecidersOf(std::string_view rule) { return Direct(rule); }

std::string_view RuleDeciderKindName(RuleDeciderKind kind) {
  return kind == RuleDeciderKind::kTable ? "table" : "reports";
}

namespace {

nlohmann::json DecidersJson(std::string_view rule) {
  nlohmann::json out = nlohmann::json::array();
  for (const RuleDecider& d : DecidersOf(rule)) {
    nlohmann::json one = {{"function", d.function},
                          {"file", d.file},
                          {"line", d.line},
                          {"kind", RuleDeciderKindName(d.kind)}};
    out.push_back(std::move(one));
  }
  return out;
}

void WriteDeciders(std::string_view rule, std::ostream& out) {
  const auto deciders = DecidersOf(rule);
  if (deciders.empty()) out << "    decided by nothing the index knows\n";
  for (const RuleDecider& d : deciders) {
    out << "    " << (d.kind == RuleDeciderKind::kTable ? "decided by " : "reported by ")
        << d.function << "  " << d.file << ':' << d.line;
    out << '\n';
  }
}

}  // namespace

void WriteRuleCatalogue(const std::map<std::string, RuleCatalog>& rules,
                        const std::function<bool(std::string_view protocol)>& keep,
                        nlohmann::json* json, std::ostream& out) {
  auto add = [&](std::string_view protocol, std::string_view id, std::string_view severity,
                 std::string_view source, std::string_view text) {
    if (json) {
      json->push_back({{"protocol", protocol},
                       {"id", id},
                       {"severity", severity},
                       {"source", source},
                       {"text", text},
                       {"deciders", DecidersJson(id)}});
      return;
    }
    out << id << "  [" << severity << "]  " << source << '\n';
    if (!text.empty()) out << "    " << text << '\n';
    WriteDeciders(id, out);
  };
  for (const auto& [protocol, catalog] : rules) {
    if (!keep(protocol)) continue;
    for (const auto& r : catalog) add(protocol, r.id, r.severity, r.source, r.text);
  }
  if (keep("wire")) {
    for (std::string_view id : wire::DialectIds())
      add("wire", id, "dialect", "specs/wire/dialects.json", "");
  }
}

}  // namespace llmconform::harness

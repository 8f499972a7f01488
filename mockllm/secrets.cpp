#include "mockllm/secrets.h"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <stdexcept>
#include <unordered_set>

namespace llmconform::mockllm {
namespace {

constexpr std::string_view kRulesJson =
#include "mockllm/secret_rules.inc"
    ;

// Lower case with '_' → '-', and camelCase humps split: "apiKey" → "api-key".
std::string NormalName(std::string_view name) {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (std::isupper(static_cast<unsigned char>(c)) && i > 0 &&
        std::islower(static_cast<unsigned char>(name[i - 1]))) {
      out.push_back('-');
    }
    out.push_back(c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

std::shared_ptr<const re2::RE2> Compile(const std::string& rule, const std::string& pattern) {
  re2::RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_shared<const re2::RE2>(pattern, options);
  if (!re->ok()) {
    throw std::logic_error("mockllm/secret_rules.json: rule \"" + rule +
                           "\": bad pattern: " + re->error());
  }
  return re;
}

std::vector<SecretRule> LoadRules() {
  const nlohmann::json doc = nlohmann::json::parse(kRulesJson);
  if (doc.value("format", "") != "mockllm-secret-rules/1")
    throw std::logic_error("mockllm/secret_rules.json: format is not mockllm-secret-rules/1");
  std::vector<SecretRule> rules;
  for (const auto& r : doc.at("rules")) {
    SecretRule rule;
    rule.name = r.at("name").get<std::string>();
    rule.kind = r.at("kind").get<std::string>();
    const std::string applies = r.at("applies").get<std::string>();
    if (applies != "text" && applies != "name") {
      throw std::logic_error("mockllm/secret_rules.json: rule \"" + rule.name +
                             "\": applies must be \"text\" or \"name\"");
    }
    rule.applies = applies == "text" ? SecretRule::Applies::kText : SecretRule::Applies::kName;
    rule.pattern = Compile(rule.name, r.at("pattern").get<std::string>());
    if (r.contains("value")) rule.value = Compile(rule.name, r.at("value").get<std::string>());
    rule.must_match = r.at("must_match");
    rule.must_not_match = r.at("must_not_match");
    rules.push_back(std::move(rule));
  }
  return rules;
}

}  // namespace

const std::vector<SecretRule>& SecretRules() {
  static const std::vector<SecretRule> rules = LoadRules();
  return rules;
}

namespace {

// The rules that apply to `applies` in one RE2::Set: a single linear pass
// over a string tells which of their patterns can match it, and most strings
// (names, bodies, stream chunks) match none and are done after that pass
// instead of one pass per rule.
struct RuleSet {
  std::unique_ptr<re2::RE2::Set> set;    // null: not built (every rule is tried)
  std::vector<const SecretRule*> rules;  // by the set's index, in catalogue order
};

RuleSet BuildRuleSet(SecretRule::Applies applies, re2::RE2::Anchor anchor) {
  RuleSet out;
  re2::RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(64 << 20);
  auto set = std::make_unique<re2::RE2::Set>(options, anchor);
  for (const SecretRule& rule : SecretRules()) {
    if (rule.applies != applies) continue;
    if (set->Add(rule.pattern->pattern(), nullptr) < 0) return RuleSet{};
    out.rules.push_back(&rule);
  }
  if (!set->Compile()) return RuleSet{};
  out.set = std::move(set);
  return out;
}

// Short strings that one rule set never matches, per thread. Requests repeat
// a few of them in every request ("model", "user", "content-type",
// "application/json"); remembered, they skip the set and its shared DFA
// cache. Bounded (at most 64 KiB of strings a memo, two memos a thread):
// past kMaxRemembered strings all are forgotten at once. Only a clean
// no-match is remembered, never the answer of a set that ran out of memory.
class NoMatchMemo {
 public:
  bool Known(std::string_view s) const { return s.size() <= kMaxLength && known_.contains(s); }
  void Remember(std::string_view s) {
    if (s.size() > kMaxLength) return;
    if (known_.size() >= kMaxRemembered) known_.clear();
    known_.emplace(s);
  }

 private:
  static constexpr std::size_t kMaxRemembered = 1024, kMaxLength = 64;
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_set<std::string, Hash, std::equal_to<>> known_;
};

// Name rules match a whole (normalized) field name.
const RuleSet& NameRules() {
  static const RuleSet built = BuildRuleSet(SecretRule::Applies::kName, re2::RE2::ANCHOR_BOTH);
  return built;
}

bool ValueFits(const SecretRule& rule, std::string_view value) {
  return !rule.value ||
         re2::RE2::FullMatch(re2::StringPiece(value.data(), value.size()), *rule.value);
}

}  // namespace

const SecretRule* SecretFieldRuleRuleByRule(std::string_view name, std::string_view value) {
  const std::string n = NormalName(name);
  for (const SecretRule& rule : SecretRules()) {
    if (rule.applies != SecretRule::Applies::kName) continue;
    if (re2::RE2::FullMatch(n, *rule.pattern) && ValueFits(rule, value)) return &rule;
  }
  return nullptr;
}

const SecretRule* SecretFieldRule(std::string_view name, std::string_view value) {
  const RuleSet& names = NameRules();
  if (!names.set) return SecretFieldRuleRuleByRule(name, value);
  const std::string n = NormalName(name);
  thread_local NoMatchMemo no_rule;
  if (no_rule.Known(n)) return nullptr;
  std::vector<int> hits;
  re2::RE2::Set::ErrorInfo error{};
  if (!names.set->Match(n, &hits, &error)) {
    // No rule matches — or the DFA ran out of memory, and every rule is tried.
    if (error.kind != re2::RE2::Set::kNoError) return SecretFieldRuleRuleByRule(name, value);
    no_rule.Remember(n);
    return nullptr;
  }
  std::sort(hits.begin(), hits.end());  // the first rule of the catalogue wins
  for (int i : hits) {
    const SecretRule& rule = *names.rules[static_cast<std::size_t>(i)];
    if (ValueFits(rule, value)) return &rule;
  }
  return nullptr;
}

namespace {

// Text rules match anywhere in a string. Any match the per-rule search finds
// is a match of its pattern in the whole text, so the set never hides one.
const RuleSet& TextRules() {
  static const RuleSet built = BuildRuleSet(SecretRule::Applies::kText, re2::RE2::UNANCHORED);
  return built;
}

// Appends the matches of `rule` in `text` to `all`.
void SearchRule(const SecretRule& rule, std::string_view text, std::vector<SecretMatch>& all) {
  const bool grouped = rule.pattern->NumberOfCapturingGroups() >= 1;
  re2::StringPiece m[2];
  std::size_t at = 0;
  const re2::StringPiece whole(text.data(), text.size());
  while (at <= text.size() &&
         rule.pattern->Match(whole, at, text.size(), re2::RE2::UNANCHORED, m, grouped ? 2 : 1)) {
    const re2::StringPiece secret = grouped && m[1].data() != nullptr ? m[1] : m[0];
    const auto pos = static_cast<std::size_t>(secret.data() - text.data());
    const std::string_view seen(secret.data(), secret.size());
    if (!seen.empty() && !IsRedactedValue(seen))
      all.push_back({pos, secret.size(), rule.kind, rule.name});
    // Go on after the secret (not after the whole match: a pattern that
    // consumes a boundary character after the secret may start there).
    const auto match_pos = static_cast<std::size_t>(m[0].data() - text.data());
    at = std::max(pos + secret.size(), match_pos + 1);
  }
}

// Sorted by position, the longest first at one position; overlaps dropped
// (the earliest wins).
std::vector<SecretMatch> Disjoint(std::vector<SecretMatch> all) {
  std::sort(all.begin(), all.end(), [](const SecretMatch& a, const SecretMatch& b) {
    return a.pos != b.pos ? a.pos < b.pos : a.len > b.len;
  });
  std::vector<SecretMatch> out;
  for (SecretMatch& m : all) {
    if (!out.empty() && m.pos < out.back().pos + out.back().len) continue;
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

std::vector<SecretMatch> FindSecretsInText(std::string_view text) {
  const RuleSet& set = TextRules();
  if (!set.set) return FindSecretsInTextRuleByRule(text);
  thread_local NoMatchMemo no_secret;
  if (no_secret.Known(text)) return {};
  std::vector<int> hits;
  re2::RE2::Set::ErrorInfo error{};
  if (!set.set->Match(re2::StringPiece(text.data(), text.size()), &hits, &error)) {
    // No rule matches — or the DFA ran out of memory on this text, in which
    // case every rule is tried.
    if (error.kind != re2::RE2::Set::kNoError) return FindSecretsInTextRuleByRule(text);
    no_secret.Remember(text);
    return {};
  }
  std::sort(hits.begin(), hits.end());  // the rules' own order
  std::vector<SecretMatch> all;
  for (const int i : hits) SearchRule(*set.rules[static_cast<std::size_t>(i)], text, all);
  return Disjoint(std::move(all));
}

std::vector<SecretMatch> FindSecretsInTextRuleByRule(std::string_view text) {
  std::vector<SecretMatch> all;
  for (const SecretRule& rule : SecretRules()) {
    if (rule.applies == SecretRule::Applies::kText) SearchRule(rule, text, all);
  }
  return Disjoint(std::move(all));
}

namespace {

std::string Redacted(std::string_view text, const std::vector<SecretMatch>& found) {
  std::string out;
  std::size_t at = 0;
  for (const SecretMatch& m : found) {
    out.append(text.substr(at, m.pos - at));
    out.append(kRedacted);
    at = m.pos + m.len;
  }
  out.append(text.substr(at));
  return out;
}

}  // namespace

std::string RedactText(std::string_view text) { return Redacted(text, FindSecretsInText(text)); }

bool RedactTextInPlace(std::string& text) {
  const std::vector<SecretMatch> found = FindSecretsInText(text);
  if (found.empty()) return false;
  text = Redacted(text, found);
  return true;
}

bool IsRedactedValue(std::string_view value) {
  return value.empty() || value.find(kRedacted) != std::string_view::npos;
}

}  // namespace llmconform::mockllm

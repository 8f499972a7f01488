// What counts as a secret in a trace or a journal, and how it is removed.
//
// The detectors are data: the named rules of mockllm/secret_rules.json,
// compiled into the program at build time (RE2 patterns, never a
// backtracking engine on input). Two kinds:
//  - "text" rules are searched in any string (header values, bodies, raw
//    stream bytes, paths, query strings, URLs): OpenAI-style `sk-` keys,
//    bearer tokens, Google `AIza…` keys, credentials in query strings
//    (`?key=`, `access_token=` …), AWS access key ids and secret keys, GitHub
//    and Slack tokens, JWTs, PEM private keys, passwords in URLs. The rule's
//    first capture group is the secret (the whole match when the group took
//    no part: a PEM key cut before its END line).
//  - "name" rules match a whole header name or JSON key (case-insensitive,
//    '_' read as '-', camelCase split: "apiKey" is "api-key"): authorization,
//    cookie, Ocp-Apim-Subscription-Key, *-api-key, password, client_secret,
//    token, access_token …; the string value under such a name is the secret
//    (for a rule with a "value" pattern, only a value that matches it: a
//    logprobs {"token":"Hello"} is not a credential).
// Each rule carries an example that must match and one that must not; the
// tests check both. The redacted form is "[redacted]", in place of the
// secret only ("sk-[redacted]", "Bearer [redacted]", "?key=[redacted]").
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace llmconform::mockllm {

inline constexpr std::string_view kRedacted = "[redacted]";

struct SecretRule {
  enum class Applies { kText, kName };
  std::string name;  // "openai-key"
  std::string kind;  // "an sk- API key", as messages say it
  Applies applies = Applies::kText;
  std::shared_ptr<const re2::RE2> pattern;
  std::shared_ptr<const re2::RE2> value;  // name rules: the values that count; null: any
  nlohmann::json must_match;              // a string (text rules) or {"name","value"} (name rules)
  nlohmann::json must_not_match;          // the same shape
};

// The rules of secret_rules.json, compiled once. Throws std::logic_error at
// first use if the embedded file is broken (a build defect, caught by tests).
const std::vector<SecretRule>& SecretRules();

// The name rule that makes `value` under the header name or JSON key `name`
// a secret, or null.
const SecretRule* SecretFieldRule(std::string_view name, std::string_view value);
inline bool IsSecretField(std::string_view name, std::string_view value) {
  return SecretFieldRule(name, value) != nullptr;
}

struct SecretMatch {
  std::size_t pos = 0;  // the secret itself (what redaction replaces)
  std::size_t len = 0;
  std::string kind;  // "an sk- API key", "a bearer token"
  std::string rule;  // "openai-key"
};
// Every secret-looking run in `text` by the text rules, in order, none
// overlapping (the earliest wins).
// One pass of all text rules together (an RE2::Set) picks the rules that
// match; only those are searched rule by rule.
std::vector<SecretMatch> FindSecretsInText(std::string_view text);
// The same without the combined pass: every rule searched on its own. For
// tests and benchmarks that check the prefilter changes nothing.
std::vector<SecretMatch> FindSecretsInTextRuleByRule(std::string_view text);
// SecretFieldRule without the RE2::Set prefilter, one rule after another: the
// reference the prefiltered search is tested against.
const SecretRule* SecretFieldRuleRuleByRule(std::string_view name, std::string_view value);

// `text` with every secret found by FindSecretsInText replaced by
// "[redacted]", keeping what shows its kind ("sk-[redacted]").
std::string RedactText(std::string_view text);
// RedactText in place; false (and `text` untouched, nothing allocated) when
// it holds no secret, as most strings do.
bool RedactTextInPlace(std::string& text);

// True when a value held under a secret name is already harmless (empty or
// redacted).
bool IsRedactedValue(std::string_view value);

}  // namespace llmconform::mockllm

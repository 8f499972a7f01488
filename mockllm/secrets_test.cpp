#include "mockllm/secrets.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>

#include "mockllm/lint.h"

namespace llmconform::mockllm {
namespace {

// The rules that flag an example: a text example is searched, a name
// example {"name","value"} looked up.
std::set<std::string> RulesFlagging(const SecretRule& rule, const nlohmann::json& example) {
  std::set<std::string> out;
  if (rule.applies == SecretRule::Applies::kText) {
    for (const SecretMatch& m : FindSecretsInText(example.get<std::string>())) out.insert(m.rule);
  } else {
    const auto name = example.at("name").get<std::string>();
    const auto value = example.at("value").get<std::string>();
    if (const SecretRule* r = SecretFieldRule(name, value)) out.insert(r->name);
  }
  return out;
}

TEST(SecretRules, EveryRuleMatchesItsExampleAndNotItsCounterExample) {
  const auto& rules = SecretRules();
  ASSERT_GE(rules.size(), 15u);
  std::set<std::string> names;
  for (const SecretRule& rule : rules) {
    EXPECT_TRUE(names.insert(rule.name).second) << "duplicate rule " << rule.name;
    EXPECT_TRUE(RulesFlagging(rule, rule.must_match).contains(rule.name))
        << rule.name << " misses its must_match example " << rule.must_match.dump();
    EXPECT_FALSE(RulesFlagging(rule, rule.must_not_match).contains(rule.name))
        << rule.name << " flags its must_not_match example " << rule.must_not_match.dump();
    if (rule.applies == SecretRule::Applies::kText) {
      // Redaction removes what the rule found, and is stable.
      const std::string redacted = RedactText(rule.must_match.get<std::string>());
      EXPECT_NE(redacted.find(kRedacted), std::string::npos) << rule.name;
      EXPECT_TRUE(FindSecretsInText(redacted).empty()) << rule.name << ": " << redacted;
      EXPECT_EQ(RedactText(redacted), redacted) << rule.name;
    }
  }
}

// The combined pass of FindSecretsInText is only a filter: on text mixing
// every rule's examples, boundaries and noise it finds exactly what each
// rule searched on its own finds.
RC_GTEST_PROP(Secrets, CombinedPassFindsWhatEachRuleFinds, ()) {
  std::vector<std::string> pieces = {" ",       "\n",  "\"",      "?",     "&", "=",
                                     "Bearer ", "sk-", "://u:p@", "-----", "é", "\xff"};
  for (const SecretRule& rule : SecretRules()) {
    if (rule.applies != SecretRule::Applies::kText) continue;
    pieces.push_back(rule.must_match.get<std::string>());
    pieces.push_back(rule.must_not_match.get<std::string>());
  }
  const auto parts = *rc::gen::container<std::vector<std::string>>(
      rc::gen::oneOf(rc::gen::elementOf(pieces), rc::gen::string<std::string>()));
  std::string text;
  for (const std::string& p : parts) text += p;
  const auto fast = FindSecretsInText(text);
  const auto slow = FindSecretsInTextRuleByRule(text);
  RC_ASSERT(fast.size() == slow.size());
  for (std::size_t i = 0; i < fast.size(); ++i) {
    RC_ASSERT(fast[i].pos == slow[i].pos);
    RC_ASSERT(fast[i].len == slow[i].len);
    RC_ASSERT(fast[i].rule == slow[i].rule);
  }
}

RC_GTEST_PROP(Secrets, NameSetFindsWhatEachNameRuleFinds, ()) {
  // Names and values made of the catalogue's own examples, pieces of them,
  // case and separator variants, and random text.
  std::vector<std::string> pieces = {"_", "-", "x", "api", "KEY", "token", "Secret", "é", "\xff"};
  for (const SecretRule& rule : SecretRules()) {
    if (rule.applies != SecretRule::Applies::kName) continue;
    for (const auto* example : {&rule.must_match, &rule.must_not_match}) {
      if (example->is_string()) pieces.push_back(example->get<std::string>());
      if (example->is_object()) {
        for (const auto& [k, v] : example->items()) {
          pieces.push_back(k);
          if (v.is_string()) pieces.push_back(v.get<std::string>());
        }
      }
    }
  }
  const auto piece = rc::gen::oneOf(rc::gen::elementOf(pieces), rc::gen::string<std::string>());
  std::string name, value;
  for (const std::string& p : *rc::gen::container<std::vector<std::string>>(piece)) name += p;
  for (const std::string& p : *rc::gen::container<std::vector<std::string>>(piece)) value += p;
  RC_ASSERT(SecretFieldRule(name, value) == SecretFieldRuleRuleByRule(name, value));
}

TEST(SecretRules, CoverTheCredentialsOfTheCommonProviders) {
  const auto kinds = [](std::string_view text) {
    std::set<std::string> out;
    for (const SecretMatch& m : FindSecretsInText(text)) out.insert(m.rule);
    return out;
  };
  EXPECT_EQ(kinds("AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI"),
            (std::set<std::string>{"google-api-key"}));
  EXPECT_TRUE(kinds("/v1beta/models/gemini:generateContent?key=not-google-shaped-key")
                  .contains("key-in-query"));
  EXPECT_TRUE(kinds("AKIAIOSFODNN7EXAMPLE").contains("aws-access-key-id"));
  EXPECT_TRUE(kinds("\"aws_secret_access_key\": \"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\"")
                  .contains("aws-secret-key"));
  EXPECT_TRUE(kinds("ghp_0123456789abcdefghijABCDEFGHIJ012345").contains("github-token"));
  EXPECT_TRUE(kinds("github_pat_11ABCDEFG0123456789_abcdefghijklmnop").contains("github-token"));
  EXPECT_TRUE(kinds("xoxb-1234567890-abcdefghij").contains("slack-token"));
  EXPECT_TRUE(kinds("-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----")
                  .contains("pem-private-key"));
  for (auto name :
       {"Authorization", "api-key", "X-Api-Key", "x_api_key", "apiKey", "api_key", "Cookie",
        "set-cookie", "x-goog-api-key", "Proxy-Authorization", "Ocp-Apim-Subscription-Key",
        "password", "client_secret", "openai_api_key", "OPENAI_API_KEY", "clientSecret"}) {
    EXPECT_TRUE(IsSecretField(name, "abc")) << name;
  }
  for (auto name : {"token", "access_token", "accessToken", "refresh_token"}) {
    EXPECT_TRUE(IsSecretField(name, "ya29.a0AfH6SMBx3abcdefghij")) << name;
    EXPECT_FALSE(IsSecretField(name, " world")) << name << ": a logprobs token is not a secret";
  }
  for (auto name : {"content-type", "x-request-id", "key", "model", "max_tokens", "tokens"})
    EXPECT_FALSE(IsSecretField(name, "abcdefghijklmnopqrstuvwxyz")) << name;
}

TEST(Secrets, FindsKeysAndBearerTokens) {
  const std::string text =
      "use sk-proj-abcdefghijklmnopqrstuvwx or Bearer abc.def-123 and "
      "risk-abcdefghijklmnopqrstuvwxyz";
  const auto found = FindSecretsInText(text);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(text.substr(found[0].pos, found[0].len), "proj-abcdefghijklmnopqrstuvwx");
  EXPECT_EQ(found[0].kind, "an sk- API key");
  EXPECT_EQ(found[0].rule, "openai-key");
  EXPECT_EQ(text.substr(found[1].pos, found[1].len), "abc.def-123");
  EXPECT_TRUE(FindSecretsInText("sk-short and Bearer [redacted] and bearer x").empty());
}

TEST(Secrets, RedactKeepsTheKindReadable) {
  EXPECT_EQ(RedactText("key sk-abcdefghijklmnopqrstuvwxyz, header bearer tok_1234567890"),
            "key sk-[redacted], header bearer [redacted]");
  EXPECT_EQ(RedactText("GET /v1/models?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI&alt=json"),
            "GET /v1/models?key=[redacted]&alt=json");
  EXPECT_EQ(RedactText("postgres://admin:hunter2@db/app"), "postgres://admin:[redacted]@db/app");
  EXPECT_TRUE(FindSecretsInText(RedactText("Bearer sk-abcdefghijklmnopqrstuvwxyz")).empty());
  EXPECT_TRUE(IsRedactedValue("Bearer [redacted]"));
  EXPECT_FALSE(IsRedactedValue("Bearer abc"));
}

TEST(Secrets, LintFlagsWhatTheOldDetectorsMissed) {
  const std::string trace =
      std::string(R"({"format":"llmconform-trace/1","id":"x"})") + "\n" +
      R"({"request":{"path":"/v1/chat/completions?key=AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI","headers":{"ocp-apim-subscription-key":"0123456789abcdef"},"body":{"client_secret":"s","messages":[{"role":"user","content":"my token ghp_0123456789abcdefghijABCDEFGHIJ012345"}]}},"response":{"status":200}})" +
      "\n";
  const auto problems = LintTrace(trace, "t.jsonl");
  ASSERT_EQ(problems.size(), 4u) << ::testing::PrintToString(problems);
  EXPECT_NE(problems[0].find("/request/path: holds a secret"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("rule auth-header"), std::string::npos) << problems[1];
  EXPECT_NE(problems[2].find("rule password-field"), std::string::npos) << problems[2];
  EXPECT_NE(problems[3].find("rule github-token"), std::string::npos) << problems[3];
}

// A PEM private key cut before its END line (by a log, a journal bound, a
// prompt) is still a key: the BEGIN line alone is evidence enough.
TEST(Secrets, APemPrivateKeyCutBeforeItsEndLineIsStillASecret) {
  for (const std::string text :
       {"-----BEGIN PRIVATE KEY-----", "key: -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq0",
        R"(data: {"content":"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIOfe"}\n\n)"}) {
    const auto found = FindSecretsInText(text);
    ASSERT_EQ(found.size(), 1u) << text;
    EXPECT_EQ(found[0].rule, "pem-private-key");
    EXPECT_TRUE(FindSecretsInText(RedactText(text)).empty()) << RedactText(text);
  }
  EXPECT_EQ(RedactText("key: -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq0"),
            "key: [redacted]");
  EXPECT_EQ(RedactText(R"({"content":"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIOfe"})"),
            R"({"content":"[redacted]"})");
  // A whole key keeps its armour; a public key is no secret, whole or cut.
  EXPECT_EQ(RedactText("-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----"),
            "-----BEGIN PRIVATE KEY-----[redacted]-----END PRIVATE KEY-----");
  EXPECT_TRUE(FindSecretsInText("-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0B").empty());
}

}  // namespace
}  // namespace llmconform::mockllm

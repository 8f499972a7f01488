// What counts as a secret in a trace or a journal, and how it is removed.
//
// Secrets: the values of the headers authorization, proxy-authorization,
// api-key, x-api-key, x-goog-api-key, cookie and set-cookie; the values of JSON
// keys of the same names (also spelt with '_' or in camelCase: api_key,
// apiKey); and anywhere in text, OpenAI-style keys (`sk-` followed by 20 or
// more of [A-Za-z0-9_-]) and bearer tokens (`Bearer ` followed by 8 or more
// token characters). The redacted form is "[redacted]".
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mockllm {

inline constexpr std::string_view kRedacted = "[redacted]";

// Case-insensitive; '-' and '_' are the same, so "X_Api_Key" is a secret header.
bool IsSecretName(std::string_view name);

struct SecretMatch {
  std::size_t pos = 0;
  std::size_t len = 0;
  std::string kind;  // "an sk- API key", "a bearer token"
};
// Every secret-looking run in `text`, in order.
std::vector<SecretMatch> FindSecretsInText(std::string_view text);

// `text` with every secret-looking run replaced by a redacted form that keeps
// its kind readable ("sk-[redacted]", "Bearer [redacted]").
std::string RedactText(std::string_view text);

// True when a value held under a secret name is already harmless (empty or
// redacted).
bool IsRedactedValue(std::string_view value);

}  // namespace mockllm

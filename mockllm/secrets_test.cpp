#include "mockllm/secrets.h"

#include <gtest/gtest.h>

namespace mockllm {
namespace {

TEST(Secrets, SecretNames) {
  for (auto name : {"Authorization", "api-key", "X-Api-Key", "x_api_key", "apiKey", "api_key",
                    "Cookie", "set-cookie", "x-goog-api-key", "Proxy-Authorization"}) {
    EXPECT_TRUE(IsSecretName(name)) << name;
  }
  for (auto name : {"content-type", "x-request-id", "key", "model"})
    EXPECT_FALSE(IsSecretName(name)) << name;
}

TEST(Secrets, FindsKeysAndBearerTokens) {
  const std::string text =
      "use sk-proj-abcdefghijklmnopqrstuvwx or Bearer abc.def-123 and "
      "risk-abcdefghijklmnopqrstuvwxyz";
  const auto found = FindSecretsInText(text);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(text.substr(found[0].pos, found[0].len), "sk-proj-abcdefghijklmnopqrstuvwx");
  EXPECT_EQ(found[0].kind, "an sk- API key");
  EXPECT_EQ(text.substr(found[1].pos, found[1].len), "Bearer abc.def-123");
  EXPECT_TRUE(FindSecretsInText("sk-short and Bearer [redacted] and bearer x").empty());
}

TEST(Secrets, RedactKeepsTheKindReadable) {
  EXPECT_EQ(RedactText("key sk-abcdefghijklmnopqrstuvwxyz, header bearer tok_1234567890"),
            "key sk-[redacted], header bearer [redacted]");
  EXPECT_TRUE(FindSecretsInText(RedactText("Bearer sk-abcdefghijklmnopqrstuvwxyz")).empty());
  EXPECT_TRUE(IsRedactedValue("Bearer [redacted]"));
  EXPECT_FALSE(IsRedactedValue("Bearer abc"));
}

}  // namespace
}  // namespace mockllm

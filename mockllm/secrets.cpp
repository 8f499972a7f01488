#include "mockllm/secrets.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace mockllm {
namespace {

bool KeyChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

bool TokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '~' ||
         c == '+' || c == '/' || c == '=' || c == '-';
}

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

constexpr std::array<std::string_view, 7> kSecretNames = {
    "authorization", "proxy-authorization", "api-key", "x-api-key", "x-goog-api-key",
    "cookie",        "set-cookie"};

constexpr std::size_t kMinKeyTail = 20;
constexpr std::size_t kMinBearer = 8;

}  // namespace

bool IsSecretName(std::string_view name) {
  const std::string n = NormalName(name);
  return std::find(kSecretNames.begin(), kSecretNames.end(), n) != kSecretNames.end();
}

std::vector<SecretMatch> FindSecretsInText(std::string_view text) {
  std::vector<SecretMatch> out;
  std::size_t i = 0;
  while (i < text.size()) {
    // sk-… keys, not inside a longer word ("risk-…").
    if (text.compare(i, 3, "sk-") == 0 && (i == 0 || !KeyChar(text[i - 1]))) {
      std::size_t end = i + 3;
      while (end < text.size() && KeyChar(text[end])) ++end;
      if (end - i - 3 >= kMinKeyTail) {
        out.push_back({i, end - i, "an sk- API key"});
        i = end;
        continue;
      }
    }
    if ((text[i] == 'b' || text[i] == 'B') && i + 7 <= text.size() &&
        (i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1])))) {
      std::string word(text.substr(i, 6));
      std::transform(word.begin(), word.end(), word.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      if (word == "bearer" && (text[i + 6] == ' ' || text[i + 6] == '\t')) {
        std::size_t start = i + 6;
        while (start < text.size() && (text[start] == ' ' || text[start] == '\t')) ++start;
        std::size_t end = start;
        while (end < text.size() && TokenChar(text[end])) ++end;
        if (end - start >= kMinBearer) {
          out.push_back({i, end - i, "a bearer token"});
          i = end;
          continue;
        }
      }
    }
    ++i;
  }
  return out;
}

std::string RedactText(std::string_view text) {
  std::string out;
  std::size_t at = 0;
  for (const SecretMatch& m : FindSecretsInText(text)) {
    out.append(text.substr(at, m.pos - at));
    out.append(text[m.pos] == 's' ? "sk-" : text.substr(m.pos, 7));
    out.append(kRedacted);
    at = m.pos + m.len;
  }
  out.append(text.substr(at));
  return out;
}

bool IsRedactedValue(std::string_view value) {
  return value.empty() || value.find(kRedacted) != std::string_view::npos;
}

}  // namespace mockllm

#include "mockllm/json_locate.h"

#include <string>
#include <vector>

namespace mockllm {
namespace {

// A forward scanner over JSON text that can skip whole values and read keys.
class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}

  std::size_t pos() const { return pos_; }
  bool AtEnd() const { return pos_ >= s_.size(); }
  char Peek() const { return AtEnd() ? '\0' : s_[pos_]; }
  void Advance() { ++pos_; }

  void SkipBlank() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t' || Peek() == '\n' || Peek() == '\r'))
      ++pos_;
  }

  // Reads a string starting at its opening quote, decoding the simple escapes
  // (a \uXXXX escape is kept as written: keys that need one are rare and a
  // miss only costs a less precise column).
  std::optional<std::string> ReadString() {
    if (Peek() != '"') return std::nullopt;
    ++pos_;
    std::string out;
    while (!AtEnd()) {
      const char c = s_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (AtEnd()) return std::nullopt;
      const char e = s_[pos_++];
      switch (e) {
        case 'n':
          out.push_back('\n');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'u':
          out.append("\\u");
          break;
        default:
          out.push_back(e);
          break;
      }
    }
    return std::nullopt;
  }

  // Skips one value starting at the current position.
  bool SkipValue() {
    SkipBlank();
    if (Peek() == '"') return ReadString().has_value();
    if (Peek() == '{' || Peek() == '[') {
      int depth = 0;
      while (!AtEnd()) {
        const char c = Peek();
        if (c == '"') {
          if (!ReadString()) return false;
          continue;
        }
        ++pos_;
        if (c == '{' || c == '[') ++depth;
        if ((c == '}' || c == ']') && --depth == 0) return true;
      }
      return false;
    }
    const std::size_t start = pos_;
    while (!AtEnd() && Peek() != ',' && Peek() != '}' && Peek() != ']' && Peek() != ' ' &&
           Peek() != '\t' && Peek() != '\n' && Peek() != '\r') {
      ++pos_;
    }
    return pos_ > start;
  }

 private:
  std::string_view s_;
  std::size_t pos_ = 0;
};

std::vector<std::string> PointerTokens(std::string_view pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  pointer.remove_prefix(1);  // the leading '/'
  while (true) {
    const auto slash = pointer.find('/');
    std::string token;
    for (std::size_t i = 0; i < pointer.substr(0, slash).size(); ++i) {
      const char c = pointer[i];
      if (c == '~' && i + 1 < pointer.size() && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
        token.push_back(pointer[i + 1] == '0' ? '~' : '/');
        ++i;
      } else {
        token.push_back(c);
      }
    }
    tokens.push_back(std::move(token));
    if (slash == std::string_view::npos) break;
    pointer.remove_prefix(slash + 1);
  }
  return tokens;
}

// Moves `sc` to the value named by tokens[depth..]; false when absent.
bool Descend(Scanner& sc, const std::vector<std::string>& tokens, std::size_t depth) {
  sc.SkipBlank();
  if (depth == tokens.size()) return !sc.AtEnd();
  const std::string& token = tokens[depth];
  if (sc.Peek() == '{') {
    sc.Advance();
    while (true) {
      sc.SkipBlank();
      if (sc.Peek() == '}') return false;
      auto key = sc.ReadString();
      if (!key) return false;
      sc.SkipBlank();
      if (sc.Peek() != ':') return false;
      sc.Advance();
      sc.SkipBlank();
      if (*key == token) return Descend(sc, tokens, depth + 1);
      if (!sc.SkipValue()) return false;
      sc.SkipBlank();
      if (sc.Peek() != ',') return false;
      sc.Advance();
    }
  }
  if (sc.Peek() == '[') {
    std::size_t index = 0;
    for (char c : token) {
      if (c < '0' || c > '9') return false;
      index = index * 10 + static_cast<std::size_t>(c - '0');
    }
    if (token.empty()) return false;
    sc.Advance();
    for (std::size_t i = 0;; ++i) {
      sc.SkipBlank();
      if (sc.Peek() == ']') return false;
      if (i == index) return Descend(sc, tokens, depth + 1);
      if (!sc.SkipValue()) return false;
      sc.SkipBlank();
      if (sc.Peek() != ',') return false;
      sc.Advance();
    }
  }
  return false;
}

}  // namespace

std::optional<std::size_t> LocateJsonPointer(std::string_view json_text, std::string_view pointer) {
  Scanner sc(json_text);
  if (!Descend(sc, PointerTokens(pointer), 0)) return std::nullopt;
  return sc.pos();
}

std::size_t LocateNearest(std::string_view json_text, std::string_view pointer) {
  std::string p(pointer);
  while (true) {
    if (auto at = LocateJsonPointer(json_text, p)) return *at;
    if (p.empty()) break;
    p.erase(p.rfind('/'));
  }
  const auto first = json_text.find_first_not_of(" \t\r\n");
  return first == std::string_view::npos ? 0 : first;
}

}  // namespace mockllm

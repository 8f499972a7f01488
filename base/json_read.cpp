#include "base/json_read.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "base/utf8.h"

namespace llmconform {
namespace {

std::string Hex(unsigned char b) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  return {'0', 'x', kDigits[b >> 4], kDigits[b & 0xF]};
}

// Ends the number token starting at `i` (JSON's characters and a few more, so
// that a malformed number is still one token for the parser to refuse).
std::size_t NumberEnd(std::string_view text, std::size_t i) {
  while (i < text.size()) {
    const char c = text[i];
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.' ||
          c == 'e' || c == 'E'))
      break;
    ++i;
  }
  return i;
}

// Whether the number token overflows a double (nlohmann: out_of_range.406).
// Only tokens with an exponent or of more than 300 characters can.
bool Overflows(std::string_view token) {
  if (token.size() <= 300 && token.find_first_of("eE") == std::string_view::npos) return false;
  const std::string copy(token);
  char* end = nullptr;
  const double v = std::strtod(copy.c_str(), &end);
  return end != copy.c_str() && !std::isfinite(v);
}

std::string Shorten(std::string_view token) {
  constexpr std::size_t kShown = 32;
  if (token.size() <= kShown) return std::string(token);
  return std::string(token.substr(0, kShown)) + "… (" + std::to_string(token.size()) +
         " characters)";
}

JsonReadError Located(std::string_view name, std::string_view text, std::size_t offset,
                      std::string what, const JsonReadOptions& options) {
  LineColumn where = LineColumnOf(text, offset);
  where.line += options.first_line - 1;
  what = ToValidUtf8(what);
  std::string message = ToValidUtf8(name);
  message += ':' + std::to_string(where.line) + ':' + std::to_string(where.column) + ": " + what;
  return {std::move(message), std::move(what), where};
}

// nlohmann's what(): "[json.exception.parse_error.101] parse error at line 1,
// column 3: syntax error while parsing value - invalid literal; last read:
// 'tr'" → what follows the location.
std::string Explanation(const std::string& what) {
  if (auto at = what.find("syntax error while "); at != std::string::npos) return what.substr(at);
  if (auto at = what.find("] "); at != std::string::npos) {
    std::string rest = what.substr(at + 2);
    if (rest.starts_with("parse error")) {
      if (auto colon = rest.find(": "); colon != std::string::npos) return rest.substr(colon + 2);
    }
    return rest;
  }
  return what;
}

template <typename J>
std::expected<J, JsonReadError> Read(std::string_view name, std::string_view text,
                                     const JsonReadOptions& options) {
  if (auto problem = PrescanJsonText(text, options.max_depth)) {
    return std::unexpected(Located(name, text, problem->offset, problem->what, options));
  }
  try {
    return J::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is the 1-based index of the last byte read; the error is there.
    return std::unexpected(
        Located(name, text, e.byte == 0 ? 0 : e.byte - 1, Explanation(e.what()), options));
  } catch (const nlohmann::json::exception& e) {
    // Not expected after the pre-scan; still an input error, located at the start.
    return std::unexpected(Located(name, text, 0, Explanation(e.what()), options));
  }
}

}  // namespace

std::optional<JsonTextProblem> PrescanJsonText(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  std::size_t i = 0;
  char32_t cp = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"') {
      // A string: escapes skipped, UTF-8 checked; the parser checks the rest.
      ++i;
      while (i < text.size() && text[i] != '"') {
        const auto b = static_cast<unsigned char>(text[i]);
        if (b == '\\') {
          i += 2;
        } else if (b < 0x80) {
          ++i;
        } else if (const std::size_t n = DecodeUtf8(text, i, cp); n > 0) {
          i += n;
        } else {
          return JsonTextProblem{i, "invalid UTF-8 in a string (byte " + Hex(b) + ")"};
        }
      }
      ++i;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        return JsonTextProblem{
            i, "arrays and objects nest deeper than " + std::to_string(max_depth) + " levels"};
      }
      ++i;
    } else if (c == ']' || c == '}') {
      if (depth > 0) --depth;
      ++i;
    } else if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      const std::size_t end = NumberEnd(text, i);
      const std::string_view token = text.substr(i, end - i);
      if (Overflows(token)) {
        return JsonTextProblem{i,
                               "number " + Shorten(token) + " is out of range (beyond ±1.8e308)"};
      }
      i = end;
    } else if (c == '\0') {
      // nlohmann's lexer takes a NUL for the end of the input: `{}\0junk`
      // would be read as `{}`.
      return JsonTextProblem{i, "a NUL byte (JSON text holds none outside strings)"};
    } else {
      ++i;
    }
  }
  return std::nullopt;
}

std::string JsonReadError::AtLineColumn() const {
  return "line " + std::to_string(where.line) + ", column " + std::to_string(where.column) + ": " +
         what;
}

std::expected<nlohmann::json, JsonReadError> ReadJson(std::string_view name, std::string_view text,
                                                      const JsonReadOptions& options) {
  return Read<nlohmann::json>(name, text, options);
}

std::expected<nlohmann::ordered_json, JsonReadError> ReadOrderedJson(
    std::string_view name, std::string_view text, const JsonReadOptions& options) {
  return Read<nlohmann::ordered_json>(name, text, options);
}

nlohmann::json ReadJsonOrDiscarded(std::string_view text) {
  if (PrescanJsonText(text)) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

nlohmann::ordered_json ReadOrderedJsonOrDiscarded(std::string_view text) {
  if (PrescanJsonText(text))
    return nlohmann::ordered_json(nlohmann::ordered_json::value_t::discarded);
  return nlohmann::ordered_json::parse(text.begin(), text.end(), nullptr,
                                       /*allow_exceptions=*/false);
}

std::string DumpJson(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string DumpJson(const nlohmann::ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace llmconform

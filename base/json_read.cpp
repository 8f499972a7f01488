#include "base/json_read.h"

#include <simdjson.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <memory>

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

Error Located(std::string_view name, std::string_view text, std::size_t offset, std::string what,
              const JsonReadOptions& options) {
  const LineColumn where = LineColumnOf(text, offset);
  return Error::At({ToValidUtf8(name), where.line + options.first_line - 1, where.column},
                   std::nullopt, ToValidUtf8(what));
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

// Thrown by Convert for a value nlohmann would read otherwise than simdjson
// gave it (a negative zero); the text is then parsed by nlohmann.
struct ReadByNlohmann {};

// A simdjson value as nlohmann's parser makes it: a non-negative integer is
// unsigned, a negative one signed, a fraction or exponent a double; object
// members assigned in order (a repeated key: the last value, at the first
// place).
template <typename J>
J Convert(simdjson::dom::element e) {
  using simdjson::dom::element_type;
  switch (e.type()) {
    case element_type::OBJECT: {
      J out = J::object();
      simdjson::dom::object object;
      if (e.get_object().get(object) != simdjson::SUCCESS) throw ReadByNlohmann{};
      for (auto field : object) {
        out[std::string(field.key)] = Convert<J>(field.value);
      }
      return out;
    }
    case element_type::ARRAY: {
      J out = J::array();
      simdjson::dom::array array;
      if (e.get_array().get(array) != simdjson::SUCCESS) throw ReadByNlohmann{};
      auto& items = out.template get_ref<typename J::array_t&>();
      items.reserve(array.size());
      for (simdjson::dom::element item : array) items.push_back(Convert<J>(item));
      return out;
    }
    case element_type::STRING: {
      std::string_view v;
      if (e.get_string().get(v) != simdjson::SUCCESS) throw ReadByNlohmann{};
      return J(std::string(v));
    }
    case element_type::INT64: {
      std::int64_t v = 0;
      if (e.get_int64().get(v) != simdjson::SUCCESS) throw ReadByNlohmann{};
      return v >= 0 ? J(static_cast<std::uint64_t>(v)) : J(v);
    }
    case element_type::UINT64: {
      std::uint64_t v = 0;
      if (e.get_uint64().get(v) != simdjson::SUCCESS) throw ReadByNlohmann{};
      return J(v);
    }
    case element_type::DOUBLE: {
      double v = 0;
      if (e.get_double().get(v) != simdjson::SUCCESS || (v == 0 && std::signbit(v)))
        throw ReadByNlohmann{};
      return J(v);
    }
    case element_type::BOOL: {
      bool v = false;
      if (e.get_bool().get(v) != simdjson::SUCCESS) throw ReadByNlohmann{};
      return J(v);
    }
    case element_type::NULL_VALUE:
      return J(nullptr);
  }
  throw ReadByNlohmann{};
}

// Whether `text` may hold the integer -0, which nlohmann reads as a signed
// integer and simdjson as 0: a "-0" where a value starts, not followed by a
// fraction or an exponent (inside a string too: then nlohmann reads it,
// which costs time, not correctness).
bool MayHoldNegativeZero(std::string_view text) {
  for (std::size_t at = text.find("-0"); at != std::string_view::npos;
       at = text.find("-0", at + 2)) {
    const std::size_t next = at + 2;
    if (next < text.size() && (text[next] == '.' || text[next] == 'e' || text[next] == 'E'))
      continue;
    std::size_t before = at;
    while (before > 0 && (text[before - 1] == ' ' || text[before - 1] == '\n' ||
                          text[before - 1] == '\r' || text[before - 1] == '\t'))
      --before;
    if (before == 0 || text[before - 1] == '[' || text[before - 1] == ':' ||
        text[before - 1] == ',')
      return true;
  }
  return false;
}

// Texts up to this size are parsed by one parser per thread, kept between
// calls (request bodies, trace lines); a larger one by a parser of its own,
// freed after it: a thread does not keep the buffers of its largest text.
constexpr std::size_t kKeptParserBytes = 64 * 1024;

// `text` read by simdjson (several times nlohmann's speed on long strings),
// or nullopt when simdjson refuses it or reads it otherwise than nlohmann
// would: nlohmann then reads it, and says where it stops being JSON.
template <typename J>
std::optional<J> ReadBySimdjson(std::string_view text, std::size_t max_depth) {
  // An empty text is no JSON (and simdjson would copy from a null pointer).
  if (text.empty() || MayHoldNegativeZero(text)) return std::nullopt;
  thread_local std::unique_ptr<simdjson::dom::parser> kept;
  std::unique_ptr<simdjson::dom::parser> own;
  simdjson::dom::parser* parser = nullptr;
  if (text.size() <= kKeptParserBytes) {
    if (!kept) kept = std::make_unique<simdjson::dom::parser>();
    parser = kept.get();
  } else {
    own = std::make_unique<simdjson::dom::parser>();
    parser = own.get();
  }
  // The same depth as PrescanJsonText's: `max_depth` nested arrays or objects.
  if (parser->max_depth() != max_depth &&
      parser->allocate(std::max(parser->capacity(), text.size()), max_depth) != simdjson::SUCCESS)
    return std::nullopt;
  simdjson::dom::element root;
  if (parser->parse(text.data(), text.size(), true).get(root) != simdjson::SUCCESS)
    return std::nullopt;
  try {
    return Convert<J>(root);
  } catch (const ReadByNlohmann&) {
    return std::nullopt;
  }
}

template <typename J>
std::expected<J, Error> Read(std::string_view name, std::string_view text,
                             const JsonReadOptions& options) {
  // simdjson takes only JSON that is valid UTF-8, within the depth and with
  // numbers in range: what it reads needs no pre-scan.
  if (auto fast = ReadBySimdjson<J>(text, options.max_depth)) return std::move(*fast);
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

std::string AtLineColumn(const Error& e) {
  if (!e.position) return e.message;
  return "line " + std::to_string(e.position->line) + ", column " +
         std::to_string(e.position->column) + ": " + e.what;
}

std::expected<nlohmann::json, Error> ReadJson(std::string_view name, std::string_view text,
                                              const JsonReadOptions& options) {
  return Read<nlohmann::json>(name, text, options);
}

std::expected<nlohmann::ordered_json, Error> ReadOrderedJson(std::string_view name,
                                                             std::string_view text,
                                                             const JsonReadOptions& options) {
  return Read<nlohmann::ordered_json>(name, text, options);
}

nlohmann::json ReadJsonOrDiscarded(std::string_view text) {
  if (auto fast = ReadBySimdjson<nlohmann::json>(text, kMaxJsonDepth)) return std::move(*fast);
  if (PrescanJsonText(text)) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

nlohmann::ordered_json ReadOrderedJsonOrDiscarded(std::string_view text) {
  if (auto fast = ReadBySimdjson<nlohmann::ordered_json>(text, kMaxJsonDepth))
    return std::move(*fast);
  if (PrescanJsonText(text))
    return nlohmann::ordered_json(nlohmann::ordered_json::value_t::discarded);
  return nlohmann::ordered_json::parse(text.begin(), text.end(), nullptr,
                                       /*allow_exceptions=*/false);
}

}  // namespace llmconform

// DumpJson and AppendJson (base/json_read.h): nlohmann's compact dump, with
// strings copied in runs. nlohmann's serializer walks every byte of a string
// through its UTF-8 decoder; traces and journals are mostly long strings
// (bodies, stream chunks), so writing them was the larger part of an import.
// Valid UTF-8 is copied run by run up to the next byte JSON escapes; a string
// that is not valid UTF-8, and every number, is dumped by nlohmann itself, so
// the bytes are the same as nlohmann's dump(-1, ' ', false, replace).
#include <array>
#include <charconv>

#include "base/json_read.h"
#include "base/utf8.h"

namespace llmconform {
namespace {

// For each byte: 0 when a string holds it as is, else the character after the
// backslash ('u' for \u00XX), as nlohmann writes it.
constexpr std::array<char, 256> kEscapes = [] {
  std::array<char, 256> e{};
  for (int c = 0; c < 0x20; ++c) e[c] = 'u';
  e['\b'] = 'b';
  e['\t'] = 't';
  e['\n'] = 'n';
  e['\f'] = 'f';
  e['\r'] = 'r';
  e['"'] = '"';
  e['\\'] = '\\';
  return e;
}();

void AppendString(std::string& out, std::string_view s) {
  if (!IsValidUtf8(s)) {
    out += nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return;
  }
  out.push_back('"');
  const char* p = s.data();
  const char* const end = p + s.size();
  while (p != end) {
    const char* run = p;
    while (p != end && kEscapes[static_cast<unsigned char>(*p)] == 0) ++p;
    out.append(run, p);
    if (p == end) break;
    const char e = kEscapes[static_cast<unsigned char>(*p)];
    out.push_back('\\');
    out.push_back(e);
    if (e == 'u') {
      static constexpr char kHex[] = "0123456789abcdef";
      const auto c = static_cast<unsigned char>(*p);
      out.append("00");
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
    ++p;
  }
  out.push_back('"');
}

template <class J>
void Append(std::string& out, const J& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      out.push_back('{');
      bool first = true;
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (!first) out.push_back(',');
        first = false;
        AppendString(out, it.key());
        out.push_back(':');
        Append(out, it.value());
      }
      out.push_back('}');
      return;
    }
    case nlohmann::json::value_t::array: {
      out.push_back('[');
      bool first = true;
      for (const J& v : j) {
        if (!first) out.push_back(',');
        first = false;
        Append(out, v);
      }
      out.push_back(']');
      return;
    }
    case nlohmann::json::value_t::string:
      AppendString(out, j.template get_ref<const typename J::string_t&>());
      return;
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: {
      std::array<char, 24> digits{};
      const auto r = j.is_number_unsigned()
                         ? std::to_chars(digits.data(), digits.data() + digits.size(),
                                         j.template get<std::uint64_t>())
                         : std::to_chars(digits.data(), digits.data() + digits.size(),
                                         j.template get<std::int64_t>());
      out.append(digits.data(), r.ptr);
      return;
    }
    case nlohmann::json::value_t::boolean:
      out += j.template get<bool>() ? "true" : "false";
      return;
    case nlohmann::json::value_t::null:
      out += "null";
      return;
    default:  // floats, binary, discarded: as nlohmann writes them
      out += j.dump(-1, ' ', false, J::error_handler_t::replace);
      return;
  }
}

}  // namespace

void AppendJson(std::string& out, const nlohmann::json& j) { Append(out, j); }
void AppendJson(std::string& out, const nlohmann::ordered_json& j) { Append(out, j); }

std::string DumpJson(const nlohmann::json& j, int indent) {
  if (indent >= 0) return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  Append(out, j);
  return out;
}

std::string DumpJson(const nlohmann::ordered_json& j, int indent) {
  if (indent >= 0)
    return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  std::string out;
  Append(out, j);
  return out;
}

}  // namespace llmconform

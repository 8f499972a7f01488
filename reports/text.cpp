#include "reports/text.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace llmconform::reports {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Decodes the well-formed UTF-8 sequence at the start of `s` (Unicode table
// 3-7): its code point and length, or length 0 when the first byte does not
// start one.
struct Decoded {
  char32_t code_point = 0;
  std::size_t length = 0;
};

Decoded DecodeOne(std::string_view s) {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(s[i]); };
  const std::uint8_t b0 = byte(0);
  if (b0 < 0x80) return {b0, 1};
  std::size_t length = 0;
  char32_t cp = 0;
  std::uint8_t lo = 0x80, hi = 0xBF;  // the valid range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
    cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    cp = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;  // no overlong forms
    if (b0 == 0xED) hi = 0x9F;  // no surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    cp = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;  // no overlong forms
    if (b0 == 0xF4) hi = 0x8F;  // nothing past U+10FFFF
  } else {
    return {};
  }
  if (s.size() < length) return {};
  for (std::size_t i = 1; i < length; ++i) {
    const std::uint8_t b = byte(i);
    if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xBF)) return {};
    cp = (cp << 6) | (b & 0x3F);
  }
  return {cp, length};
}

// The visible escape of a code point ReadableText does not pass through, or
// "" when it passes.
std::string EscapeFor(char32_t cp) {
  if (cp == '\t' || cp == '\n') return "";
  if (cp == '\r') return "\\r";
  const bool c0 = cp < 0x20, del_or_c1 = cp >= 0x7F && cp <= 0x9F;
  if (!c0 && !del_or_c1 && cp != 0xFFFE && cp != 0xFFFF) return "";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kHex[(cp >> shift) & 0xF]);
  return out;
}

template <bool kReadable>
std::string Clean(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const Decoded d = DecodeOne(text);
    if (d.length == 0) {
      out.append(kReplacement);
      text.remove_prefix(1);
      continue;
    }
    if constexpr (kReadable) {
      if (std::string escape = EscapeFor(d.code_point); !escape.empty()) {
        out.append(escape);
        text.remove_prefix(d.length);
        continue;
      }
    }
    out.append(text.substr(0, d.length));
    text.remove_prefix(d.length);
  }
  return out;
}

}  // namespace

std::string ReadableText(std::string_view text) { return Clean<true>(text); }

std::string ValidUtf8(std::string_view text) { return Clean<false>(text); }

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out.append("&amp;");
        break;
      case '<':
        out.append("&lt;");
        break;
      case '>':
        out.append("&gt;");
        break;
      case '"':
        out.append("&quot;");
        break;
      case '\'':
        out.append("&#39;");
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string HumanDuration(double ms) {
  char buf[48];
  if (!(ms >= 0)) ms = 0;  // also NaN
  if (ms > 0 && ms < 1) return "<1 ms";
  if (ms < 999.5) {
    std::snprintf(buf, sizeof buf, "%.0f ms", ms);
  } else if (ms < 59995) {
    std::snprintf(buf, sizeof buf, "%.2f s", ms / 1000);
  } else {
    const double seconds = std::round(ms / 1000);
    std::snprintf(buf, sizeof buf, "%.0f min %02.0f s", std::floor(seconds / 60),
                  std::fmod(seconds, 60));
  }
  return buf;
}

}  // namespace llmconform::reports

#include "reports/text.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "base/utf8.h"

namespace llmconform::reports {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

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

}  // namespace

std::string ReadableText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    char32_t cp = 0;
    const std::size_t length = DecodeUtf8(text, i, cp);
    if (length == 0) {
      out.append(kReplacement);
      i += MaximalSubpart(text, i);
    } else if (std::string escape = EscapeFor(cp); !escape.empty()) {
      out.append(escape);
      i += length;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

std::string ValidUtf8(std::string_view text) { return ToValidUtf8(text); }

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

std::string HtmlText(std::string_view text) { return HtmlEscape(ReadableText(text)); }

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

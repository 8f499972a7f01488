#include "base/utf8.h"

#include <simdjson.h>

namespace llmconform {
namespace {

constexpr bool IsContinuation(unsigned char b) { return (b & 0xC0) == 0x80; }

using utf8_detail::Lead;
using utf8_detail::LeadOf;
using utf8_detail::ScanSequence;

}  // namespace

std::size_t MaximalSubpart(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return 0;
  const Lead lead = LeadOf(static_cast<unsigned char>(text[pos]));
  if (lead.length == 0) return 1;
  return ScanSequence(text, pos, lead);
}

std::optional<std::size_t> FirstInvalidUtf8(std::string_view text) {
  // Valid text, the common case, is checked at SIMD speed; the walk below
  // finds where invalid text fails.
  if (simdjson::validate_utf8(text.data(), text.size())) return std::nullopt;
  std::size_t i = 0;
  char32_t cp = 0;
  while (i < text.size()) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = DecodeUtf8(text, i, cp);
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

std::string ToValidUtf8(std::string_view text) {
  auto bad = FirstInvalidUtf8(text);
  if (!bad) return std::string(text);
  std::string out(text.substr(0, *bad));
  out.reserve(text.size() + 8);
  std::size_t i = *bad;
  char32_t cp = 0;
  while (i < text.size()) {
    if (const std::size_t n = DecodeUtf8(text, i, cp); n > 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      out.append("\xEF\xBF\xBD");
      i += MaximalSubpart(text, i);
    }
  }
  return out;
}

void AppendUtf8(std::string& out, char32_t cp) {
  if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) cp = 0xFFFD;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::size_t CountCodePoints(std::string_view text) {
  std::size_t n = 0;
  for (char c : text) n += !IsContinuation(static_cast<unsigned char>(c));
  return n;
}

std::size_t OffsetOfCodePoint(std::string_view text, std::size_t n) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (IsContinuation(static_cast<unsigned char>(text[i]))) continue;
    if (seen == n) return i;
    ++seen;
  }
  return text.size();
}

std::size_t Utf8Prefix(std::string_view text, std::size_t max_bytes) {
  if (max_bytes >= text.size()) return text.size();
  std::size_t n = max_bytes;
  // Back up over continuation bytes to the start of the sequence cut at n.
  std::size_t start = n;
  while (start > 0 && n - start < 3 && IsContinuation(static_cast<unsigned char>(text[start])))
    --start;
  char32_t cp = 0;
  const std::size_t len = DecodeUtf8(text, start, cp);
  if (len > 0 && start + len > n) return start;  // a well-formed sequence would be split
  return n;
}

std::string CapText(std::string_view text, std::size_t max) {
  if (text.size() <= max) return std::string(text);
  std::string out(text.substr(0, Utf8Prefix(text, max)));
  out += "… [" + std::to_string(text.size()) + " bytes in all]";
  return out;
}

}  // namespace llmconform

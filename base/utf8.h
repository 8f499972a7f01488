// UTF-8: decoding, validation and repair, with the semantics of the WHATWG
// Encoding Standard's UTF-8 decoder (TextDecoder), because the oracle is used
// for differential testing against JavaScript implementations.
//
// An ill-formed sequence is replaced by one U+FFFD per *maximal subpart*
// (Unicode §3.9 "U+FFFD Substitution of Maximal Subparts"): the longest prefix
// of a well-formed sequence that is present. So a 3-byte sequence cut short
// after two bytes ("\xE2\x82") is one U+FFFD, a stray continuation byte is one
// U+FFFD each, and "\xF0\x80" is two (0x80 cannot follow 0xF0).
//
// Every function takes arbitrary bytes and never fails.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace llmconform {

namespace utf8_detail {

// The expected length of the sequence a lead byte starts, and the range its
// second byte must fall in (the Encoding Standard's lower and upper
// boundary); length 0 for a byte that starts no sequence.
struct Lead {
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
};

constexpr Lead LeadOf(unsigned char b) {
  if (b >= 0xC2 && b <= 0xDF) return {2};
  if (b == 0xE0) return {3, 0xA0, 0xBF};
  if (b == 0xED) return {3, 0x80, 0x9F};
  if (b >= 0xE1 && b <= 0xEF) return {3};
  if (b == 0xF0) return {4, 0x90, 0xBF};
  if (b == 0xF4) return {4, 0x80, 0x8F};
  if (b >= 0xF1 && b <= 0xF3) return {4};
  return {0};
}

// How many bytes from `pos` belong to the (possibly incomplete) sequence
// `lead` starts: lead.length when it is complete.
inline std::size_t ScanSequence(std::string_view text, std::size_t pos, const Lead& lead) {
  std::size_t n = 1;
  while (n < lead.length && pos + n < text.size()) {
    const auto b = static_cast<unsigned char>(text[pos + n]);
    const bool ok = n == 1 ? (b >= lead.low && b <= lead.high) : (b & 0xC0) == 0x80;
    if (!ok) break;
    ++n;
  }
  return n;
}

}  // namespace utf8_detail

// Decodes the well-formed sequence starting at `text[pos]`: returns its length
// (1–4) and sets `cp`, or returns 0 when the bytes there are not one (or `pos`
// is past the end). Inline: lexers call it for every non-ASCII character.
inline std::size_t DecodeUtf8(std::string_view text, std::size_t pos, char32_t& cp) {
  if (pos >= text.size()) return 0;
  const auto b0 = static_cast<unsigned char>(text[pos]);
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  const utf8_detail::Lead lead = utf8_detail::LeadOf(b0);
  if (lead.length == 0 || utf8_detail::ScanSequence(text, pos, lead) != lead.length) return 0;
  char32_t value = b0 & (lead.length == 2 ? 0x1F : lead.length == 3 ? 0x0F : 0x07);
  for (std::size_t i = 1; i < lead.length; ++i) {
    value = (value << 6) | (static_cast<unsigned char>(text[pos + i]) & 0x3F);
  }
  cp = value;
  return lead.length;
}

// When `text[pos]` starts no well-formed sequence, the length (>= 1) of the
// maximal subpart there: the bytes one U+FFFD replaces. 0 at or past the end.
std::size_t MaximalSubpart(std::string_view text, std::size_t pos);

// The offset of the first byte that is not part of a well-formed sequence.
std::optional<std::size_t> FirstInvalidUtf8(std::string_view text);
inline bool IsValidUtf8(std::string_view text) { return !FirstInvalidUtf8(text); }

// `text` with each maximal subpart of an ill-formed sequence replaced by
// U+FFFD, as TextDecoder("utf-8") does; valid text is returned unchanged.
std::string ToValidUtf8(std::string_view text);

// Appends the UTF-8 encoding of `cp` (a scalar value; surrogates and values
// past U+10FFFF are written as U+FFFD).
void AppendUtf8(std::string& out, char32_t cp);

// The number of code points in `text`, counted by lead bytes (every byte that
// is not a continuation byte 0x80–0xBF starts one): for valid UTF-8 exactly
// the code points, and never failing on invalid bytes.
std::size_t CountCodePoints(std::string_view text);

// The byte offset where the code point numbered `n` (0-based) starts, or
// text.size() when there are no more than `n`. Counts as CountCodePoints does.
std::size_t OffsetOfCodePoint(std::string_view text, std::size_t n);

// The largest n <= max_bytes such that text[0, n) does not end inside a
// UTF-8 sequence.
std::size_t Utf8Prefix(std::string_view text, std::size_t max_bytes);

// `text` when it fits in `max` bytes; otherwise its longest head within `max`
// that ends at a sequence boundary (Utf8Prefix), followed by "… [N bytes in
// all]". For quoting outside bytes in messages and kept records.
std::string CapText(std::string_view text, std::size_t max);

}  // namespace llmconform

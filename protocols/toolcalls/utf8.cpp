#include "protocols/toolcalls/utf8.h"

namespace llmconform::toolcalls {
namespace {

// Length of the valid sequence starting at s[i], or 0.
std::size_t ValidSequence(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  std::size_t n;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  }
  return n;
}

}  // namespace

std::string ToValidUtf8(std::string_view text) {
  // Fast path: ASCII runs, then whole valid sequences; copy once when valid.
  std::size_t i = 0;
  while (i < text.size()) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = ValidSequence(text, i);
    if (n == 0) break;
    i += n;
  }
  if (i == text.size()) return std::string(text);
  std::string out(text.substr(0, i));  // the valid head
  out.reserve(text.size());
  while (i < text.size()) {
    const std::size_t n = ValidSequence(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::size_t Utf8Prefix(std::string_view text, std::size_t max_bytes) {
  if (max_bytes >= text.size()) return text.size();
  const std::size_t n = max_bytes;
  const auto continuation = [&](std::size_t k) {
    return (static_cast<unsigned char>(text[k]) & 0xC0) == 0x80;
  };
  if (!continuation(n)) return n;  // the cut falls between sequences
  std::size_t k = n;
  while (k > 0 && n - k < 3 && continuation(k)) --k;
  // A valid sequence starting at k runs past n: cut before it.
  return ValidSequence(text, k) > n - k ? k : n;
}

std::size_t CodePoints(std::string_view text) {
  std::size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

}  // namespace llmconform::toolcalls

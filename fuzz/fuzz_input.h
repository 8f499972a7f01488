// Helpers for the libFuzzer targets: the input as text, and splitting it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace llmconform::fuzz {

inline std::string_view Text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// The input cut at its first NUL: (before, after); no NUL: (all, "").
inline std::pair<std::string_view, std::string_view> SplitAtNul(std::string_view text) {
  const auto nul = text.find('\0');
  if (nul == std::string_view::npos) return {text, {}};
  return {text.substr(0, nul), text.substr(nul + 1)};
}

// Read boundaries derived from the input's bytes, so one input also tests
// how a streaming parser copes with the stream arriving in pieces.
inline std::vector<std::size_t> Splits(std::string_view text) {
  std::vector<std::size_t> splits;
  std::size_t at = 0;
  for (unsigned char c : text.substr(0, std::min<std::size_t>(text.size(), 16))) {
    at += 1 + c % 23;
    if (at >= text.size()) break;
    splits.push_back(at);
  }
  return splits;
}

}  // namespace llmconform::fuzz

// A fast, stable, non-cryptographic hash for deriving values from content:
// fault seeds from trace ids, shard buckets from scenario ids, ids and
// padding of dialect rewrites. Stable across runs, builds and machines.
#pragma once

#include <cstdint>
#include <string_view>

namespace llmconform {

// 64-bit FNV-1a of `text`.
constexpr std::uint64_t Fnv1a64(std::string_view text) {
  std::uint64_t h = 14695981039346656037ull;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace llmconform

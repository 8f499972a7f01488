// Undoing HTTP content codings (RFC 9110 §8.4.1) of recorded bodies:
// gzip and deflate (zlib) and br (libbrotli). Output is bounded so a small
// hostile body cannot expand into unbounded memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

namespace llmconform::mockllm {

inline constexpr std::size_t kMaxDecodedBodyBytes = 256u * 1024 * 1024;

// Why bytes could not be decoded.
struct DecodeError {
  enum class Kind {
    kBadData,   // not data of that coding, truncated, an unknown coding
    kTooLarge,  // they decode to more than `max_out` bytes (decoding stopped there)
  };
  Kind kind = Kind::kBadData;
  std::string message;  // "not gzip data …", "decodes to more than 268435456 bytes"
};

// The decoded bytes, or why they cannot be decoded. `coding` is one coding
// name, case-insensitive: "gzip", "x-gzip", "deflate", "br" or "identity".
// Decoding stops as soon as the output passes `max_out`.
std::expected<std::string, DecodeError> DecodeContent(std::string_view coding,
                                                      std::string_view bytes,
                                                      std::size_t max_out = kMaxDecodedBodyBytes);

// The bytes gzip-compressed (for tests and for writing fixtures).
std::string GzipForTest(std::string_view bytes);
// The bytes brotli-compressed (for tests).
std::string BrotliForTest(std::string_view bytes);

}  // namespace llmconform::mockllm
